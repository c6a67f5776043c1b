-- A routing form's submission keeps where it sent the respondent to book
-- (the service, the providers, when) and what came of it (the booking's
-- id, number and address, or when it was found not booked), as one JSON
-- value; NULL for a submission not routed.
ALTER TABLE forms_submissions ADD COLUMN routed TEXT;
