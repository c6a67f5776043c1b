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
	updated_at TIMESTAMP NOT NULL
);
CREATE INDEX forms_forms_created ON forms_forms (created_at DESC, id DESC);

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
CREATE INDEX forms_steps_form ON forms_steps (form_id, sort_order);

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
CREATE INDEX forms_fields_form ON forms_fields (form_id, sort_order);

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
CREATE INDEX forms_submissions_form ON forms_submissions (form_id, created_at DESC, id DESC);
CREATE INDEX forms_submissions_unread ON forms_submissions (form_id, is_read);

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
CREATE INDEX forms_uploads_submission ON forms_uploads (submission_id);

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
CREATE INDEX forms_values_submission ON forms_values (submission_id);

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
CREATE INDEX forms_notifications_form ON forms_notifications (form_id);
