-- A provider's busy time from all their calendars, merged and kept one
-- row a UTC day (day: days since 1970-01-01; spans: "start-end,..." in
-- Unix seconds, clipped to the day), so that a month of slots reads a
-- few hundred short rows, not every period of every calendar.
CREATE TABLE bookings_busy_days (
	provider_id BIGINT NOT NULL REFERENCES bookings_providers (id) ON DELETE CASCADE,
	day INTEGER NOT NULL,
	spans TEXT NOT NULL,
	PRIMARY KEY (provider_id, day)
);
-- The periods read before this table existed are read again at once.
UPDATE bookings_calendar_connections SET next_sync_at = created_at, etag = '', last_modified = '';
