-- Seats: up to a service's max_bookings_per_slot active bookings share a
-- provider and start, each with its own seat; the last guard is now one
-- active booking per provider, start and seat.
ALTER TABLE bookings_bookings ADD COLUMN seat INTEGER NOT NULL DEFAULT 1;
DROP INDEX bookings_bookings_active_slot;
CREATE UNIQUE INDEX bookings_bookings_active_seat ON bookings_bookings (provider_id, start_time, seat)
	WHERE status IN ('requested', 'confirmed');
-- Holds: a slot kept for one customer for a few minutes.
CREATE TABLE bookings_holds (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	token_hash BLOB NOT NULL UNIQUE,
	service_id INTEGER NOT NULL REFERENCES bookings_services (id) ON DELETE CASCADE,
	provider_id INTEGER NOT NULL REFERENCES bookings_providers (id) ON DELETE CASCADE,
	start_time TIMESTAMP NOT NULL,
	end_time TIMESTAMP NOT NULL,
	expires_at TIMESTAMP NOT NULL,
	created_at TIMESTAMP NOT NULL
);
CREATE INDEX bookings_holds_provider_start ON bookings_holds (provider_id, start_time);
