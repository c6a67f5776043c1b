-- A form's limits: the most accepted submissions it takes (NULL: no
-- limit), when it opens and closes (NULL: always), and what a person
-- reads instead of the form when it is closed or full.
ALTER TABLE forms_forms ADD COLUMN max_responses INTEGER;
ALTER TABLE forms_forms ADD COLUMN opens_at TIMESTAMP;
ALTER TABLE forms_forms ADD COLUMN closes_at TIMESTAMP;
ALTER TABLE forms_forms ADD COLUMN closed_message TEXT NOT NULL DEFAULT '';
