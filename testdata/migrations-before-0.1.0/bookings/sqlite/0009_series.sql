-- Bookings made as a weekly series: the series they belong to (a random
-- label shared by its occurrences) and their place in it, from 0.
ALTER TABLE bookings_bookings ADD COLUMN series_id TEXT NOT NULL DEFAULT '';
ALTER TABLE bookings_bookings ADD COLUMN series_index INTEGER NOT NULL DEFAULT 0;
CREATE INDEX bookings_bookings_series ON bookings_bookings (series_id) WHERE series_id <> '';
