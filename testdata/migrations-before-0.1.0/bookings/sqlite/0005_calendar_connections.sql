-- A provider's own calendars, read for busy time (and one of them written
-- with the bookings): the secret (an app password, an ICS address, a
-- refresh token) sealed; the sync's state, claimed by one instance at a
-- time through claimed_until.
CREATE TABLE bookings_calendar_connections (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	provider_id INTEGER NOT NULL REFERENCES bookings_providers (id) ON DELETE CASCADE,
	kind TEXT NOT NULL,
	name TEXT NOT NULL,
	endpoint TEXT NOT NULL,
	username TEXT NOT NULL,
	sealed_secret TEXT NOT NULL,
	calendars TEXT NOT NULL,
	destination TEXT NOT NULL,
	block_when_stale INTEGER NOT NULL,
	etag TEXT NOT NULL,
	last_modified TEXT NOT NULL,
	synced_at TIMESTAMP,
	synced_until TIMESTAMP,
	last_error TEXT NOT NULL,
	failures INTEGER NOT NULL,
	next_sync_at TIMESTAMP NOT NULL,
	claimed_until TIMESTAMP,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL
);
CREATE INDEX bookings_calendar_connections_provider ON bookings_calendar_connections (provider_id);
CREATE INDEX bookings_calendar_connections_due ON bookings_calendar_connections (next_sync_at);
-- Busy periods read from them: when, never what.
CREATE TABLE bookings_busy_periods (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	connection_id INTEGER NOT NULL REFERENCES bookings_calendar_connections (id) ON DELETE CASCADE,
	provider_id INTEGER NOT NULL,
	start_time TIMESTAMP NOT NULL,
	end_time TIMESTAMP NOT NULL
);
CREATE INDEX bookings_busy_periods_provider_start ON bookings_busy_periods (provider_id, start_time);
CREATE INDEX bookings_busy_periods_connection ON bookings_busy_periods (connection_id, start_time);
