-- The forms schema as of groundwork v0.1.0: the earlier migrations folded into
-- one. A database they made records version 11 and is already here.
CREATE TABLE forms_forms (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	slug TEXT NOT NULL UNIQUE,
	description TEXT NOT NULL DEFAULT '',
	submit_button_text TEXT NOT NULL DEFAULT 'Submit',
	success_message TEXT NOT NULL DEFAULT '',
	redirect_url TEXT,
	is_active BOOLEAN NOT NULL DEFAULT 1,
	is_multi_step BOOLEAN NOT NULL DEFAULT 0,
	show_progress_bar BOOLEAN NOT NULL DEFAULT 1,
	allow_step_navigation BOOLEAN NOT NULL DEFAULT 0,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL,
	-- A form's version counts changes to the form, its fields, steps and notifications, so
	-- that a cached definition can be checked when a submission is stored.
	version BIGINT NOT NULL DEFAULT 1,
	-- How long, at least, a person takes to fill a form in; a submission sent back sooner
	-- after its form-load token was issued is kept as spam. Zero turns the check off.
	min_fill_seconds INTEGER NOT NULL DEFAULT 2,
	-- A form's limits: the most accepted submissions it takes (NULL: no
	-- limit), when it opens and closes (NULL: always), and what a person
	-- reads instead of the form when it is closed or full.
	max_responses INTEGER,
	opens_at TIMESTAMP,
	closes_at TIMESTAMP,
	closed_message TEXT NOT NULL DEFAULT '',
	-- One response a person: a form may take one accepted submission from
	-- each signed-in person (the host's identity). Who sent it is kept apart
	-- from the submission, one row a form and person, so two submissions of
	-- one person racing on two instances cannot both be kept.
	one_per_person BOOLEAN NOT NULL DEFAULT FALSE,
	-- The settings a form keeps together, as one JSON object (forms.FormSettings):
	-- how a person is known, and the settings that came after the first ones.
	settings TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE forms_steps (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	form_id INTEGER NOT NULL REFERENCES forms_forms (id) ON DELETE CASCADE,
	title TEXT NOT NULL,
	description TEXT NOT NULL DEFAULT '',
	next_button_text TEXT NOT NULL DEFAULT 'Next',
	prev_button_text TEXT NOT NULL DEFAULT 'Previous',
	sort_order INTEGER NOT NULL,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL
);
CREATE TABLE forms_fields (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	form_id INTEGER NOT NULL REFERENCES forms_forms (id) ON DELETE CASCADE,
	step_id INTEGER REFERENCES forms_steps (id) ON DELETE SET NULL,
	uuid TEXT NOT NULL UNIQUE,
	name TEXT NOT NULL,
	type TEXT NOT NULL,
	label TEXT NOT NULL DEFAULT '',
	placeholder TEXT NOT NULL DEFAULT '',
	help_text TEXT NOT NULL DEFAULT '',
	is_required BOOLEAN NOT NULL DEFAULT 0,
	validation_rules TEXT NOT NULL DEFAULT '{}',
	field_config TEXT NOT NULL DEFAULT '{}',
	default_value TEXT NOT NULL DEFAULT '',
	conditional_logic TEXT,
	width TEXT NOT NULL DEFAULT 'full',
	css_classes TEXT NOT NULL DEFAULT '',
	sort_order INTEGER NOT NULL,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL,
	UNIQUE (form_id, name)
);
CREATE TABLE forms_submissions (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	form_id INTEGER NOT NULL REFERENCES forms_forms (id) ON DELETE CASCADE,
	page_url TEXT NOT NULL DEFAULT '',
	referrer_url TEXT NOT NULL DEFAULT '',
	ip_address TEXT NOT NULL DEFAULT '',
	user_agent TEXT NOT NULL DEFAULT '',
	is_read BOOLEAN NOT NULL DEFAULT 0,
	is_spam BOOLEAN NOT NULL DEFAULT 0,
	is_starred BOOLEAN NOT NULL DEFAULT 0,
	admin_notes TEXT NOT NULL DEFAULT '',
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL
);
CREATE TABLE forms_uploads (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	submission_id INTEGER NOT NULL REFERENCES forms_submissions (id) ON DELETE CASCADE,
	field_id INTEGER,
	original_name TEXT NOT NULL,
	stored_name TEXT NOT NULL,
	blob_key TEXT NOT NULL,
	mime_type TEXT NOT NULL,
	size INTEGER NOT NULL,
	created_at TIMESTAMP NOT NULL
);
CREATE TABLE forms_values (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	submission_id INTEGER NOT NULL REFERENCES forms_submissions (id) ON DELETE CASCADE,
	field_id INTEGER,
	field_name TEXT NOT NULL,
	field_label TEXT NOT NULL,
	field_type TEXT NOT NULL,
	value TEXT,
	value_array TEXT,
	display_value TEXT NOT NULL DEFAULT '',
	upload_id INTEGER REFERENCES forms_uploads (id) ON DELETE SET NULL,
	created_at TIMESTAMP NOT NULL
);
CREATE TABLE forms_notifications (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	form_id INTEGER NOT NULL REFERENCES forms_forms (id) ON DELETE CASCADE,
	type TEXT NOT NULL,
	subject TEXT NOT NULL,
	recipients TEXT NOT NULL,
	message TEXT NOT NULL,
	is_enabled BOOLEAN NOT NULL DEFAULT 1,
	conditional_logic TEXT,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL
);
-- Uploads of a submission that failed on another field, kept (their blob
-- stays in the BlobStore) for the visitor's next try, which names one by
-- its random id; swept, with their blobs, after an hour.
CREATE TABLE forms_kept_uploads (
	id TEXT PRIMARY KEY,
	form_id INTEGER NOT NULL REFERENCES forms_forms (id) ON DELETE CASCADE,
	field_name TEXT NOT NULL,
	original_name TEXT NOT NULL,
	stored_name TEXT NOT NULL,
	blob_key TEXT NOT NULL,
	mime_type TEXT NOT NULL,
	size INTEGER NOT NULL,
	created_at TIMESTAMP NOT NULL
);
CREATE TABLE forms_respondents (
	form_id INTEGER NOT NULL REFERENCES forms_forms (id) ON DELETE CASCADE,
	respondent TEXT NOT NULL,
	submission_id INTEGER NOT NULL REFERENCES forms_submissions (id) ON DELETE CASCADE,
	PRIMARY KEY (form_id, respondent)
);
-- Partial responses: the answers so far of a person who saved a form to
-- finish later, apart from submissions (never exported, never notified),
-- found by the hash of the resume link's token; their files stay in the
-- BlobStore until the response is sent (they become its uploads) or the
-- partial expires (swept with them).
CREATE TABLE forms_partials (
	id INTEGER PRIMARY KEY,
	form_id INTEGER NOT NULL REFERENCES forms_forms (id) ON DELETE CASCADE,
	token_hash TEXT NOT NULL UNIQUE,
	answers TEXT NOT NULL,
	uploads TEXT NOT NULL,
	last_step INTEGER NOT NULL,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL,
	expires_at TIMESTAMP NOT NULL
);
-- Where people stop, kept after their saved answers expire: the saved
-- responses swept unsent, counted by form, the day they were first saved
-- and the last step they reached (the funnel's starts and drop-off).
CREATE TABLE forms_abandoned (
	form_id INTEGER NOT NULL REFERENCES forms_forms (id) ON DELETE CASCADE,
	day TEXT NOT NULL,
	last_step INTEGER NOT NULL,
	count INTEGER NOT NULL,
	PRIMARY KEY (form_id, day, last_step)
);
CREATE INDEX forms_forms_created ON forms_forms (created_at DESC, id DESC);
CREATE INDEX forms_steps_form ON forms_steps (form_id, sort_order);
CREATE INDEX forms_fields_form ON forms_fields (form_id, sort_order);
CREATE INDEX forms_submissions_unread ON forms_submissions (form_id, is_read);
CREATE INDEX forms_uploads_submission ON forms_uploads (submission_id);
CREATE INDEX forms_values_submission ON forms_values (submission_id);
CREATE INDEX forms_notifications_form ON forms_notifications (form_id);
CREATE INDEX forms_submissions_form ON forms_submissions (form_id, created_at DESC, id DESC, is_read, is_spam, is_starred);
CREATE INDEX forms_kept_uploads_created ON forms_kept_uploads (created_at);
CREATE INDEX forms_partials_form ON forms_partials (form_id, updated_at);
CREATE INDEX forms_partials_expires ON forms_partials (expires_at);
-- Submissions filtered by answer: the answers of the fields people pick
-- from or key in (choices, email, phone, number, date, hidden) are found
-- by their field and their first 200 characters (a whole long answer would
-- not fit an index entry on Postgres), the query comparing the whole value
-- after. Free text is not indexed, so that every submission does not pay
-- for it: a filter on it asks each submission in turn.
CREATE INDEX forms_values_answer ON forms_values (field_name, substr(value, 1, 200), submission_id)
	WHERE field_type IN ('email', 'select', 'radio', 'checkbox', 'hidden', 'number', 'phone', 'date');
