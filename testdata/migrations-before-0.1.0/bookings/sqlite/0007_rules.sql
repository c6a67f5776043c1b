-- Each service's and provider's booking rules (confirmation, limits,
-- lengths, place, currency) as one JSON document, and the place of each
-- booking as it was when booked.
ALTER TABLE bookings_services ADD COLUMN rules TEXT NOT NULL DEFAULT '{}';
ALTER TABLE bookings_providers ADD COLUMN rules TEXT NOT NULL DEFAULT '{}';
ALTER TABLE bookings_bookings ADD COLUMN location_kind TEXT NOT NULL DEFAULT '';
ALTER TABLE bookings_bookings ADD COLUMN location TEXT NOT NULL DEFAULT '';
