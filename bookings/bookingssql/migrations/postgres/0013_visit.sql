-- A booking keeps where the visit it was made in came from (source,
-- medium, campaign, landing page, country: what the analytics keeps of
-- the visit's first page view) as one JSON value; NULL when not known.
ALTER TABLE bookings_bookings ADD COLUMN visit TEXT;
