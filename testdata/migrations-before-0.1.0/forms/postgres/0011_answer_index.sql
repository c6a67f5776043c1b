-- Submissions filtered by answer: the answers of the fields people pick
-- from or key in (choices, email, phone, number, date, hidden) are found
-- by their field and their first 200 characters (a whole long answer would
-- not fit an index entry on Postgres), the query comparing the whole value
-- after. Free text is not indexed, so that every submission does not pay
-- for it: a filter on it asks each submission in turn.
CREATE INDEX forms_values_answer ON forms_values (field_name, substr(value, 1, 200), submission_id)
	WHERE field_type IN ('email', 'select', 'radio', 'checkbox', 'hidden', 'number', 'phone', 'date');
-- An item of a list answer (a checkbox group's) is found by containment.
CREATE INDEX forms_values_items ON forms_values USING gin (value_array jsonb_path_ops);
-- A long list most pass is read by asking each submission for its answer:
-- on Postgres, whose rows are not kept by submission, from the index by
-- submission alone (field, type and the answer's first 200 characters in
-- it), never the table.
DROP INDEX forms_values_submission;
CREATE INDEX forms_values_submission ON forms_values (submission_id, field_name, substr(value, 1, 200)) INCLUDE (field_type);
