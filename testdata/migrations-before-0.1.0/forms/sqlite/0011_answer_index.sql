-- Submissions filtered by answer: the answers of the fields people pick
-- from or key in (choices, email, phone, number, date, hidden) are found
-- by their field and their first 200 characters (a whole long answer would
-- not fit an index entry on Postgres), the query comparing the whole value
-- after. Free text is not indexed, so that every submission does not pay
-- for it: a filter on it asks each submission in turn.
CREATE INDEX forms_values_answer ON forms_values (field_name, substr(value, 1, 200), submission_id)
	WHERE field_type IN ('email', 'select', 'radio', 'checkbox', 'hidden', 'number', 'phone', 'date');
