-- The waitlist of a full time: each entry is one customer waiting for a
-- service's start (and length, 0 for the service's own). A cancellation
-- offers the time to the first waiting (by id): the entry is offered, a
-- hold keeps the seat for it until offer_expires, and the link mailed to
-- the customer carries the hold's token (kept here sealed, and its hash
-- to find the entry by). One customer waits once a time.
CREATE TABLE bookings_waitlist (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	service_id INTEGER NOT NULL REFERENCES bookings_services (id) ON DELETE CASCADE,
	start_time TIMESTAMP NOT NULL,
	length_minutes INTEGER NOT NULL DEFAULT 0,
	name TEXT NOT NULL,
	email TEXT NOT NULL,
	time_zone TEXT NOT NULL DEFAULT '',
	status TEXT NOT NULL,
	offer_hash BLOB,
	offer_sealed TEXT NOT NULL DEFAULT '',
	offer_provider_id INTEGER,
	offered_at TIMESTAMP,
	offer_expires TIMESTAMP,
	booking_id INTEGER,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX bookings_waitlist_once ON bookings_waitlist (service_id, start_time, lower(email))
	WHERE status IN ('waiting', 'offered');
CREATE INDEX bookings_waitlist_next ON bookings_waitlist (service_id, start_time, id) WHERE status = 'waiting';
CREATE INDEX bookings_waitlist_due ON bookings_waitlist (offer_expires) WHERE status = 'offered';
CREATE UNIQUE INDEX bookings_waitlist_offer ON bookings_waitlist (offer_hash);
