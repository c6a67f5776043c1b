-- Where people stop, kept after their saved answers expire: the saved
-- responses swept unsent, counted by form, the day they were first saved
-- and the last step they reached (the funnel's starts and drop-off).
CREATE TABLE forms_abandoned (
	form_id BIGINT NOT NULL REFERENCES forms_forms (id) ON DELETE CASCADE,
	day TEXT NOT NULL,
	last_step INTEGER NOT NULL,
	count BIGINT NOT NULL,
	PRIMARY KEY (form_id, day, last_step)
);
