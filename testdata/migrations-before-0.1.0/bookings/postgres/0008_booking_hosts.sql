-- The other providers a booking of a collective service holds (its
-- provider_id is the first of them): each is busy for it, sees it in
-- their feed and is told of it.
CREATE TABLE bookings_booking_hosts (
	booking_id BIGINT NOT NULL REFERENCES bookings_bookings (id) ON DELETE CASCADE,
	provider_id BIGINT NOT NULL REFERENCES bookings_providers (id) ON DELETE CASCADE,
	PRIMARY KEY (booking_id, provider_id)
);
CREATE INDEX bookings_booking_hosts_provider ON bookings_booking_hosts (provider_id);
