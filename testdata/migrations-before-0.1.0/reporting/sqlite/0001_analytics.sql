-- First-party analytics: daily rollups by dimension (total, page, event,
-- source, device, country), the uniques seen per day (visitor hashes only,
-- pruned after two days) and each day's salt (forgotten after a day).
CREATE TABLE reporting_daily (
	day TEXT NOT NULL,
	dim TEXT NOT NULL,
	key TEXT NOT NULL,
	label TEXT NOT NULL,
	views INTEGER NOT NULL,
	visitors INTEGER NOT NULL,
	sessions INTEGER NOT NULL,
	duration_seconds INTEGER NOT NULL,
	PRIMARY KEY (dim, day, key)
) WITHOUT ROWID;
-- The same by week (the Monday), so a long range reads a seventh of the
-- rows.
CREATE TABLE reporting_weekly (
	week TEXT NOT NULL,
	dim TEXT NOT NULL,
	key TEXT NOT NULL,
	label TEXT NOT NULL,
	views INTEGER NOT NULL,
	visitors INTEGER NOT NULL,
	sessions INTEGER NOT NULL,
	duration_seconds INTEGER NOT NULL,
	PRIMARY KEY (dim, week, key)
) WITHOUT ROWID;
CREATE TABLE reporting_seen (
	day TEXT NOT NULL,
	visitor TEXT NOT NULL,
	scope TEXT NOT NULL,
	last_seen TIMESTAMP NOT NULL,
	PRIMARY KEY (day, visitor, scope)
) WITHOUT ROWID;
CREATE TABLE reporting_salts (
	day TEXT PRIMARY KEY,
	salt BLOB NOT NULL
);
