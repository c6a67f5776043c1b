-- A form's version counts changes to the form, its fields, steps and notifications, so
-- that a cached definition can be checked when a submission is stored.
ALTER TABLE forms_forms ADD COLUMN version BIGINT NOT NULL DEFAULT 1;
