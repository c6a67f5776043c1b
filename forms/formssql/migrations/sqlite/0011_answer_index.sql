-- Submissions filtered by answer: a value is found by its field and its
-- first 200 characters (a whole long answer would not fit an index entry
-- on Postgres), and the query compares the whole value after.
CREATE INDEX forms_values_answer ON forms_values (field_name, substr(value, 1, 200), submission_id);
-- A long list filtered by an answer most pass is read by asking each
-- submission in turn: its values by submission, field and answer.
DROP INDEX forms_values_submission;
CREATE INDEX forms_values_submission ON forms_values (submission_id, field_name, substr(value, 1, 200));
