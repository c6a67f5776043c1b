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
	updated_at TIMESTAMP NOT NULL
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
	updated_at TIMESTAMP NOT NULL
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
CREATE INDEX bookings_weekly_hours_provider ON bookings_weekly_hours (provider_id);
CREATE TABLE bookings_overrides (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	provider_id INTEGER NOT NULL REFERENCES bookings_providers (id) ON DELETE CASCADE,
	day TEXT NOT NULL,
	type TEXT NOT NULL,
	start_minute INTEGER,
	end_minute INTEGER,
	reason TEXT NOT NULL
);
CREATE INDEX bookings_overrides_provider_day ON bookings_overrides (provider_id, day);
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
	CHECK (start_time < end_time)
);
CREATE INDEX bookings_bookings_provider_start ON bookings_bookings (provider_id, start_time);
-- The last guard against a double booking: one active booking per
-- provider and start.
CREATE UNIQUE INDEX bookings_bookings_active_slot ON bookings_bookings (provider_id, start_time)
	WHERE status IN ('requested', 'confirmed');
