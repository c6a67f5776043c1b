-- A paid form's submission: what it owes and how it stands (JSON), and
-- its status apart (awaiting_payment, paid, unpaid; NULL for a submission
-- that owes nothing), for the sweep of the unpaid and the lists' filter.
ALTER TABLE forms_submissions ADD COLUMN payment TEXT;
ALTER TABLE forms_submissions ADD COLUMN payment_status TEXT;
CREATE INDEX forms_submissions_payment ON forms_submissions (payment_status, form_id) WHERE payment_status IS NOT NULL;
