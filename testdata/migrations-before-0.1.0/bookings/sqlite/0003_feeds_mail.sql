-- Provider calendar feeds: only the SHA-256 of a minted feed token; NULL
-- when none (no feed).
ALTER TABLE bookings_providers ADD COLUMN ical_token_hash BLOB;
CREATE UNIQUE INDEX bookings_providers_ical_token ON bookings_providers (ical_token_hash);
-- SEQUENCE of a booking's calendar event: one more at every reschedule,
-- reassignment and cancellation.
ALTER TABLE bookings_bookings ADD COLUMN sequence INTEGER NOT NULL DEFAULT 0;
-- Reminders and retention look bookings up by start and by end.
CREATE INDEX bookings_bookings_start ON bookings_bookings (start_time);
CREATE INDEX bookings_bookings_end ON bookings_bookings (end_time);
-- Notifications claimed before they are sent: one row per booking, kind
-- and scheduled time, so none is sent twice, on any instance.
CREATE TABLE bookings_notification_log (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	booking_id INTEGER NOT NULL REFERENCES bookings_bookings (id) ON DELETE CASCADE,
	kind TEXT NOT NULL,
	scheduled_for TIMESTAMP NOT NULL,
	recipient TEXT NOT NULL,
	claimed_at TIMESTAMP NOT NULL,
	UNIQUE (booking_id, kind, scheduled_for)
);
