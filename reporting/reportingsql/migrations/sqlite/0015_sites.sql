-- Sites: the analytics of each tenant apart. Every row of the rollups, the
-- visitors' days, their views and events, the days' versions and copies,
-- the goals, shared links and email reports belongs to one site, the
-- tenant's key ('' for a host without tenancy, and every row from before),
-- and every key begins with it, so one site's report reads its own rows
-- alone. The salts and the Google connections stay global. SQLite changes
-- no key in place: each keyed table is made again.
CREATE TABLE reporting_daily_new (
	site TEXT NOT NULL DEFAULT '',
	day TEXT NOT NULL,
	dim TEXT NOT NULL,
	key TEXT NOT NULL,
	label TEXT NOT NULL,
	views INTEGER NOT NULL,
	visitors INTEGER NOT NULL,
	sessions INTEGER NOT NULL,
	duration_seconds INTEGER NOT NULL,
	bounces INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (site, dim, day, key)
) WITHOUT ROWID;
INSERT INTO reporting_daily_new (day, dim, key, label, views, visitors, sessions, duration_seconds, bounces)
	SELECT day, dim, key, label, views, visitors, sessions, duration_seconds, bounces FROM reporting_daily;
DROP TABLE reporting_daily;
ALTER TABLE reporting_daily_new RENAME TO reporting_daily;

CREATE TABLE reporting_weekly_new (
	site TEXT NOT NULL DEFAULT '',
	week TEXT NOT NULL,
	dim TEXT NOT NULL,
	key TEXT NOT NULL,
	label TEXT NOT NULL,
	views INTEGER NOT NULL,
	visitors INTEGER NOT NULL,
	sessions INTEGER NOT NULL,
	duration_seconds INTEGER NOT NULL,
	bounces INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (site, dim, week, key)
) WITHOUT ROWID;
INSERT INTO reporting_weekly_new (week, dim, key, label, views, visitors, sessions, duration_seconds, bounces)
	SELECT week, dim, key, label, views, visitors, sessions, duration_seconds, bounces FROM reporting_weekly;
DROP TABLE reporting_weekly;
ALTER TABLE reporting_weekly_new RENAME TO reporting_weekly;

CREATE TABLE reporting_seen_new (
	site TEXT NOT NULL DEFAULT '',
	day TEXT NOT NULL,
	visitor TEXT NOT NULL,
	scope TEXT NOT NULL,
	last_seen TIMESTAMP NOT NULL,
	page TEXT NOT NULL DEFAULT '',
	entry TEXT NOT NULL DEFAULT '',
	hits INTEGER NOT NULL DEFAULT 0,
	entry_row INTEGER NOT NULL DEFAULT 0,
	last_row INTEGER NOT NULL DEFAULT 0,
	seen TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (site, day, visitor, scope)
) WITHOUT ROWID;
INSERT INTO reporting_seen_new (day, visitor, scope, last_seen, page, entry, hits, entry_row, last_row, seen)
	SELECT day, visitor, scope, last_seen, page, entry, hits, entry_row, last_row, seen FROM reporting_seen;
DROP TABLE reporting_seen;
ALTER TABLE reporting_seen_new RENAME TO reporting_seen;

CREATE TABLE reporting_pairs_new (
	site TEXT NOT NULL DEFAULT '',
	day TEXT NOT NULL,
	pair TEXT NOT NULL,
	a TEXT NOT NULL,
	b TEXT NOT NULL,
	label TEXT NOT NULL,
	views INTEGER NOT NULL,
	visitors INTEGER NOT NULL,
	sessions INTEGER NOT NULL,
	PRIMARY KEY (site, pair, a, day, b)
) WITHOUT ROWID;
INSERT INTO reporting_pairs_new (day, pair, a, b, label, views, visitors, sessions)
	SELECT day, pair, a, b, label, views, visitors, sessions FROM reporting_pairs;
DROP TABLE reporting_pairs;
ALTER TABLE reporting_pairs_new RENAME TO reporting_pairs;
CREATE INDEX reporting_pairs_b ON reporting_pairs (site, pair, b, day);

CREATE TABLE reporting_triples_new (
	site TEXT NOT NULL DEFAULT '',
	day TEXT NOT NULL,
	page TEXT NOT NULL,
	source TEXT NOT NULL,
	device TEXT NOT NULL,
	label TEXT NOT NULL,
	views INTEGER NOT NULL,
	visitors INTEGER NOT NULL,
	sessions INTEGER NOT NULL,
	PRIMARY KEY (site, source, device, day, page)
) WITHOUT ROWID;
INSERT INTO reporting_triples_new (day, page, source, device, label, views, visitors, sessions)
	SELECT day, page, source, device, label, views, visitors, sessions FROM reporting_triples;
DROP TABLE reporting_triples;
ALTER TABLE reporting_triples_new RENAME TO reporting_triples;
CREATE INDEX reporting_triples_page ON reporting_triples (site, page, day);

CREATE TABLE reporting_views_new (
	site TEXT NOT NULL DEFAULT '',
	day TEXT NOT NULL,
	visitor INTEGER NOT NULL,
	row_key INTEGER NOT NULL,
	page TEXT NOT NULL,
	label TEXT NOT NULL,
	source TEXT NOT NULL,
	device TEXT NOT NULL,
	country TEXT NOT NULL,
	browser TEXT NOT NULL,
	os TEXT NOT NULL,
	medium TEXT NOT NULL,
	campaign TEXT NOT NULL,
	term TEXT NOT NULL,
	content TEXT NOT NULL,
	views INTEGER NOT NULL,
	sessions INTEGER NOT NULL,
	bounces INTEGER NOT NULL,
	duration_seconds INTEGER NOT NULL,
	exits INTEGER NOT NULL,
	PRIMARY KEY (site, day, visitor, row_key)
);
INSERT INTO reporting_views_new (day, visitor, row_key, page, label, source, device, country, browser, os, medium, campaign, term, content,
	views, sessions, bounces, duration_seconds, exits)
	SELECT day, visitor, row_key, page, label, source, device, country, browser, os, medium, campaign, term, content,
	views, sessions, bounces, duration_seconds, exits FROM reporting_views;
DROP TABLE reporting_views;
ALTER TABLE reporting_views_new RENAME TO reporting_views;

CREATE TABLE reporting_visitor_events_new (
	site TEXT NOT NULL DEFAULT '',
	day TEXT NOT NULL,
	visitor INTEGER NOT NULL,
	event TEXT NOT NULL,
	prop TEXT NOT NULL,
	count INTEGER NOT NULL,
	PRIMARY KEY (site, day, visitor, event, prop)
);
INSERT INTO reporting_visitor_events_new (day, visitor, event, prop, count)
	SELECT day, visitor, event, prop, count FROM reporting_visitor_events;
DROP TABLE reporting_visitor_events;
ALTER TABLE reporting_visitor_events_new RENAME TO reporting_visitor_events;

CREATE TABLE reporting_days_new (
	site TEXT NOT NULL DEFAULT '',
	day TEXT NOT NULL,
	version BIGINT NOT NULL,
	changed_at TIMESTAMP NOT NULL,
	PRIMARY KEY (site, day)
);
INSERT INTO reporting_days_new (day, version, changed_at) SELECT day, version, changed_at FROM reporting_days;
DROP TABLE reporting_days;
ALTER TABLE reporting_days_new RENAME TO reporting_days;

CREATE TABLE reporting_day_columns_new (
	site TEXT NOT NULL DEFAULT '',
	day TEXT NOT NULL,
	version BIGINT NOT NULL,
	data BLOB NOT NULL,
	PRIMARY KEY (site, day)
);
INSERT INTO reporting_day_columns_new (day, version, data) SELECT day, version, data FROM reporting_day_columns;
DROP TABLE reporting_day_columns;
ALTER TABLE reporting_day_columns_new RENAME TO reporting_day_columns;

CREATE TABLE reporting_day_changes_new (
	site TEXT NOT NULL DEFAULT '',
	day TEXT NOT NULL,
	version BIGINT NOT NULL,
	visitors BLOB NOT NULL,
	changed_at TIMESTAMP NOT NULL,
	PRIMARY KEY (site, day, version)
);
INSERT INTO reporting_day_changes_new (day, version, visitors, changed_at) SELECT day, version, visitors, changed_at FROM reporting_day_changes;
DROP TABLE reporting_day_changes;
ALTER TABLE reporting_day_changes_new RENAME TO reporting_day_changes;

ALTER TABLE reporting_goals ADD COLUMN site TEXT NOT NULL DEFAULT '';
CREATE INDEX reporting_goals_site ON reporting_goals (site);
ALTER TABLE reporting_shared_links ADD COLUMN site TEXT NOT NULL DEFAULT '';

CREATE TABLE reporting_email_reports_new (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	site TEXT NOT NULL DEFAULT '',
	email TEXT NOT NULL,
	period TEXT NOT NULL,
	last_sent TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	UNIQUE (site, email, period)
);
INSERT INTO reporting_email_reports_new (id, email, period, last_sent, created_at)
	SELECT id, email, period, last_sent, created_at FROM reporting_email_reports;
DROP TABLE reporting_email_reports;
ALTER TABLE reporting_email_reports_new RENAME TO reporting_email_reports;
