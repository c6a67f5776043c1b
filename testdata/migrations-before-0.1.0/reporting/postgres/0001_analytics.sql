-- First-party analytics: daily rollups by dimension (total, page, event,
-- source, device, country), the uniques seen per day (visitor hashes only,
-- pruned after two days) and each day's salt (forgotten after a day).
CREATE TABLE reporting_daily (
	day TEXT NOT NULL,
	dim TEXT NOT NULL,
	key TEXT NOT NULL,
	label TEXT NOT NULL,
	views BIGINT NOT NULL,
	visitors BIGINT NOT NULL,
	sessions BIGINT NOT NULL,
	duration_seconds BIGINT NOT NULL,
	PRIMARY KEY (dim, day, key)
);
-- The same by week (the Monday), so a long range reads a seventh of the
-- rows.
CREATE TABLE reporting_weekly (
	week TEXT NOT NULL,
	dim TEXT NOT NULL,
	key TEXT NOT NULL,
	label TEXT NOT NULL,
	views BIGINT NOT NULL,
	visitors BIGINT NOT NULL,
	sessions BIGINT NOT NULL,
	duration_seconds BIGINT NOT NULL,
	PRIMARY KEY (dim, week, key)
);
CREATE TABLE reporting_seen (
	day TEXT NOT NULL,
	visitor TEXT NOT NULL,
	scope TEXT NOT NULL,
	last_seen TIMESTAMPTZ NOT NULL,
	PRIMARY KEY (day, visitor, scope)
);
CREATE TABLE reporting_salts (
	day TEXT PRIMARY KEY,
	salt BYTEA NOT NULL
);
