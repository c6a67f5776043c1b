-- A step's jumps: after it, on to a named step or to the end when their
-- conditions hold (a JSON list; NULL for none).
ALTER TABLE forms_steps ADD COLUMN jumps TEXT;
