-- Lists and their counts read the flags from the index too, so that a
-- filtered list of a large form never visits the table to filter.
DROP INDEX forms_submissions_form;
CREATE INDEX forms_submissions_form ON forms_submissions (form_id, created_at DESC, id DESC, is_read, is_spam, is_starred);
