-- How long, at least, a person takes to fill a form in; a submission sent back sooner
-- after its form-load token was issued is kept as spam. Zero turns the check off.
ALTER TABLE forms_forms ADD COLUMN min_fill_seconds INTEGER NOT NULL DEFAULT 2;
