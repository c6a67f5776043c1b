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
CREATE INDEX forms_kept_uploads_created ON forms_kept_uploads (created_at);
