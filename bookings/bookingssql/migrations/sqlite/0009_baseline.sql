-- The bookings schema as of groundwork v0.1.0: the earlier migrations folded into
-- one. A database they made records version 9 and is already here.
CREATE TABLE bookings_services (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	slug TEXT NOT NULL UNIQUE,
	name TEXT NOT NULL,
	description TEXT NOT NULL,
	duration INTEGER NOT NULL CHECK (duration > 0),
	buffer_before INTEGER NOT NULL CHECK (buffer_before >= 0),
	buffer_after INTEGER NOT NULL CHECK (buffer_after >= 0),
	price TEXT,
	is_free BOOLEAN NOT NULL,
	timezone TEXT NOT NULL,
	assignment_strategy TEXT NOT NULL,
	default_provider_id INTEGER,
	slot_interval INTEGER,
	min_advance INTEGER,
	max_advance INTEGER,
	max_bookings_per_slot INTEGER NOT NULL,
	intake_schema TEXT,
	intake_schema_version INTEGER NOT NULL,
	is_active BOOLEAN NOT NULL,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL,
	-- Each service's and provider's booking rules (confirmation, limits,
	-- lengths, place, currency) as one JSON document, and the place of each
	-- booking as it was when booked.
	rules TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE bookings_providers (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	slug TEXT NOT NULL UNIQUE,
	name TEXT NOT NULL,
	bio TEXT NOT NULL,
	email TEXT NOT NULL,
	phone TEXT NOT NULL,
	timezone TEXT NOT NULL,
	round_robin_weight INTEGER NOT NULL,
	last_assigned_at TIMESTAMP,
	sort_order INTEGER NOT NULL,
	is_active BOOLEAN NOT NULL,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL,
	-- Provider calendar feeds: only the SHA-256 of a minted feed token; NULL
	-- when none (no feed).
	ical_token_hash BLOB,
	rules TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE bookings_service_providers (
	service_id INTEGER NOT NULL REFERENCES bookings_services (id) ON DELETE CASCADE,
	provider_id INTEGER NOT NULL REFERENCES bookings_providers (id) ON DELETE CASCADE,
	custom_duration INTEGER CHECK (custom_duration > 0),
	custom_price TEXT,
	PRIMARY KEY (service_id, provider_id)
);
CREATE TABLE bookings_weekly_hours (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	provider_id INTEGER NOT NULL REFERENCES bookings_providers (id) ON DELETE CASCADE,
	weekday INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
	start_minute INTEGER NOT NULL,
	end_minute INTEGER NOT NULL,
	effective_from TEXT,
	effective_until TEXT,
	is_available BOOLEAN NOT NULL,
	CHECK (0 <= start_minute AND start_minute < end_minute AND end_minute <= 1440)
);
CREATE TABLE bookings_overrides (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	provider_id INTEGER NOT NULL REFERENCES bookings_providers (id) ON DELETE CASCADE,
	day TEXT NOT NULL,
	type TEXT NOT NULL,
	start_minute INTEGER,
	end_minute INTEGER,
	reason TEXT NOT NULL
);
CREATE TABLE bookings_blackouts (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	service_id INTEGER REFERENCES bookings_services (id) ON DELETE CASCADE,
	starts_on TEXT NOT NULL,
	ends_on TEXT NOT NULL,
	reason TEXT NOT NULL
);
CREATE TABLE bookings_bookings (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	number TEXT NOT NULL UNIQUE,
	service_id INTEGER NOT NULL REFERENCES bookings_services (id),
	provider_id INTEGER REFERENCES bookings_providers (id),
	status TEXT NOT NULL,
	start_time TIMESTAMP NOT NULL,
	end_time TIMESTAMP NOT NULL,
	customer_name TEXT NOT NULL,
	customer_email TEXT NOT NULL,
	customer_phone TEXT NOT NULL,
	customer_timezone TEXT NOT NULL,
	assignment_strategy TEXT NOT NULL,
	intake_version INTEGER NOT NULL,
	intake_data TEXT,
	notes TEXT NOT NULL,
	manage_token_hash BLOB NOT NULL UNIQUE,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL,
	-- Seats: up to a service's max_bookings_per_slot active bookings share a
	-- provider and start, each with its own seat; the last guard is now one
	-- active booking per provider, start and seat.
	seat INTEGER NOT NULL DEFAULT 1,
	-- SEQUENCE of a booking's calendar event: one more at every reschedule,
	-- reassignment and cancellation.
	sequence INTEGER NOT NULL DEFAULT 0,
	-- A booking's manage token sealed with the service's secret key (AES-GCM),
	-- so every later mail (a change, a reminder) can carry the manage link;
	-- empty without a key, and wiped when the customer's details are erased.
	manage_token_sealed TEXT NOT NULL DEFAULT '',
	location_kind TEXT NOT NULL DEFAULT '',
	location TEXT NOT NULL DEFAULT '',
	-- Bookings made as a weekly series: the series they belong to (a random
	-- label shared by its occurrences) and their place in it, from 0.
	series_id TEXT NOT NULL DEFAULT '',
	series_index INTEGER NOT NULL DEFAULT 0,
	CHECK (start_time < end_time)
);
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
-- Busy periods read from them: when, never what.
CREATE TABLE bookings_busy_periods (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	connection_id INTEGER NOT NULL REFERENCES bookings_calendar_connections (id) ON DELETE CASCADE,
	provider_id INTEGER NOT NULL,
	start_time TIMESTAMP NOT NULL,
	end_time TIMESTAMP NOT NULL
);
-- A provider's busy time from all their calendars, merged and kept one
-- row a UTC day (day: days since 1970-01-01; spans: "start-end,..." in
-- Unix seconds, clipped to the day), so that a month of slots reads a
-- few hundred short rows, not every period of every calendar.
CREATE TABLE bookings_busy_days (
	provider_id INTEGER NOT NULL REFERENCES bookings_providers (id) ON DELETE CASCADE,
	day INTEGER NOT NULL,
	spans TEXT NOT NULL,
	PRIMARY KEY (provider_id, day)
);
-- The other providers a booking of a collective service holds (its
-- provider_id is the first of them): each is busy for it, sees it in
-- their feed and is told of it.
CREATE TABLE bookings_booking_hosts (
	booking_id INTEGER NOT NULL REFERENCES bookings_bookings (id) ON DELETE CASCADE,
	provider_id INTEGER NOT NULL REFERENCES bookings_providers (id) ON DELETE CASCADE,
	PRIMARY KEY (booking_id, provider_id)
);
CREATE INDEX bookings_weekly_hours_provider ON bookings_weekly_hours (provider_id);
CREATE INDEX bookings_overrides_provider_day ON bookings_overrides (provider_id, day);
CREATE INDEX bookings_bookings_provider_start ON bookings_bookings (provider_id, start_time);
CREATE UNIQUE INDEX bookings_bookings_active_seat ON bookings_bookings (provider_id, start_time, seat)
	WHERE status IN ('requested', 'confirmed');
CREATE INDEX bookings_holds_provider_start ON bookings_holds (provider_id, start_time);
CREATE UNIQUE INDEX bookings_providers_ical_token ON bookings_providers (ical_token_hash);
-- Reminders and retention look bookings up by start and by end.
CREATE INDEX bookings_bookings_start ON bookings_bookings (start_time);
CREATE INDEX bookings_bookings_end ON bookings_bookings (end_time);
CREATE INDEX bookings_calendar_connections_provider ON bookings_calendar_connections (provider_id);
CREATE INDEX bookings_calendar_connections_due ON bookings_calendar_connections (next_sync_at);
CREATE INDEX bookings_busy_periods_provider_start ON bookings_busy_periods (provider_id, start_time);
CREATE INDEX bookings_busy_periods_connection ON bookings_busy_periods (connection_id, start_time);
CREATE INDEX bookings_booking_hosts_provider ON bookings_booking_hosts (provider_id);
CREATE INDEX bookings_bookings_series ON bookings_bookings (series_id) WHERE series_id <> '';
