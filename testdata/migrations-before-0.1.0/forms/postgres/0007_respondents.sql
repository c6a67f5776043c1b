-- One response a person: a form may take one accepted submission from
-- each signed-in person (the host's identity). Who sent it is kept apart
-- from the submission, one row a form and person, so two submissions of
-- one person racing on two instances cannot both be kept.
ALTER TABLE forms_forms ADD COLUMN one_per_person BOOLEAN NOT NULL DEFAULT FALSE;
CREATE TABLE forms_respondents (
	form_id BIGINT NOT NULL REFERENCES forms_forms (id) ON DELETE CASCADE,
	respondent TEXT NOT NULL,
	submission_id BIGINT NOT NULL REFERENCES forms_submissions (id) ON DELETE CASCADE,
	PRIMARY KEY (form_id, respondent)
);
