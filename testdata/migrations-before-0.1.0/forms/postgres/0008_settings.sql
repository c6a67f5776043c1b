-- The settings a form keeps together, as one JSON object (forms.FormSettings):
-- how a person is known, and the settings that came after the first ones.
ALTER TABLE forms_forms ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
