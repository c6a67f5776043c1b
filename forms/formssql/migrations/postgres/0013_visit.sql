-- A submission keeps where the visit it was sent in came from (source,
-- medium, campaign, landing page, country: what the analytics keeps of
-- the visit's first page view) as one JSON value; NULL when not known.
ALTER TABLE forms_submissions ADD COLUMN visit TEXT;
