-- Partial responses: the answers so far of a person who saved a form to
-- finish later, apart from submissions (never exported, never notified),
-- found by the hash of the resume link's token; their files stay in the
-- BlobStore until the response is sent (they become its uploads) or the
-- partial expires (swept with them).
CREATE TABLE forms_partials (
	id BIGSERIAL PRIMARY KEY,
	form_id BIGINT NOT NULL REFERENCES forms_forms (id) ON DELETE CASCADE,
	token_hash TEXT NOT NULL UNIQUE,
	answers TEXT NOT NULL,
	uploads TEXT NOT NULL,
	last_step INTEGER NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL,
	expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX forms_partials_form ON forms_partials (form_id, updated_at);
CREATE INDEX forms_partials_expires ON forms_partials (expires_at);
