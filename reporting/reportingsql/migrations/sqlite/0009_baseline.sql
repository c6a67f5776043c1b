-- The reporting schema as of groundwork v0.1.0: the earlier migrations folded into
-- one. A database they made records version 9 and is already here.
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
	bounces INTEGER NOT NULL DEFAULT 0,
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
	bounces INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (dim, week, key)
) WITHOUT ROWID;
CREATE TABLE reporting_seen (
	day TEXT NOT NULL,
	visitor TEXT NOT NULL,
	scope TEXT NOT NULL,
	last_seen TIMESTAMP NOT NULL,
	-- Entry and exit pages, bounces: a visitor's 't:' row in reporting_seen
	-- also keeps their session's entry page, last page and hits (page views
	-- and events; a session of one hit is a bounce until a second comes);
	-- the rollups keep the bounces of each day's sessions, in the total and
	-- by entry page (dim 'entry'). Rows from before keep 0 hits: their
	-- sessions are not counted as bounces.
	page TEXT NOT NULL DEFAULT '',
	entry TEXT NOT NULL DEFAULT '',
	hits INTEGER NOT NULL DEFAULT 0,
	-- A session's first and last views' rows (0 for one kept before).
	entry_row INTEGER NOT NULL DEFAULT 0,
	last_row INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (day, visitor, scope)
) WITHOUT ROWID;
CREATE TABLE reporting_salts (
	day TEXT PRIMARY KEY,
	salt BLOB NOT NULL
);
-- Per-user Google connections: tokens sealed by the application before
-- they are stored.
CREATE TABLE reporting_google_connections (
	user_id TEXT PRIMARY KEY,
	access_token TEXT NOT NULL,
	refresh_token TEXT NOT NULL,
	token_type TEXT NOT NULL,
	expires_at TIMESTAMP,
	scopes TEXT NOT NULL,
	status TEXT NOT NULL,
	disconnect_reason TEXT NOT NULL,
	updated_at TIMESTAMP NOT NULL
);
-- Filtered reports: each page view counted by the pairs of its page,
-- source and device (pair 'page>source', 'page>device', 'source>device';
-- a and b the two values, label the page's title), a day at a time. The
-- views of one value of a are a range of the key; those of one value of b
-- a range of the second index.
CREATE TABLE reporting_pairs (
	day TEXT NOT NULL,
	pair TEXT NOT NULL,
	a TEXT NOT NULL,
	b TEXT NOT NULL,
	label TEXT NOT NULL,
	views INTEGER NOT NULL,
	visitors INTEGER NOT NULL,
	sessions INTEGER NOT NULL,
	PRIMARY KEY (pair, a, day, b)
) WITHOUT ROWID;
-- Reports narrowed by two filters at once (a source and a device, say):
-- each page view counted by its page, source and device together, a day
-- at a time, with its visitors unique to the three. Two filters match two
-- columns and the third is grouped; the key serves a source and a device,
-- the index a page with either.
CREATE TABLE reporting_triples (
	day TEXT NOT NULL,
	page TEXT NOT NULL,
	source TEXT NOT NULL,
	device TEXT NOT NULL,
	label TEXT NOT NULL,
	views INTEGER NOT NULL,
	visitors INTEGER NOT NULL,
	sessions INTEGER NOT NULL,
	PRIMARY KEY (source, device, day, page)
) WITHOUT ROWID;
-- Goals: a page pattern, or an event with an optional property value.
-- Their counts are rollup rows of dim 'goal' keyed by the goal's id, and
-- uniques of scope 'g:<id>'. A batch of hits locks this table against
-- goals made or removed while it is written (Postgres), so each hit is
-- counted under the goals as they were when it was written.
CREATE TABLE reporting_goals (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	page TEXT NOT NULL,
	event TEXT NOT NULL,
	property TEXT NOT NULL,
	value TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL
);
-- Shared links: a read-only dashboard behind a random token, kept only as
-- its hash, with an optional password (its PHC hash, '' for none).
CREATE TABLE reporting_shared_links (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	token_hash BLOB NOT NULL UNIQUE,
	password_hash TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	revoked_at TIMESTAMP
);
-- Email reports: an address that gets the analytics of each past week or
-- month; last_sent names the last period claimed ('2026-W47', '2026-11'),
-- so each is sent once whichever instance looks.
CREATE TABLE reporting_email_reports (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	email TEXT NOT NULL,
	period TEXT NOT NULL,
	last_sent TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	UNIQUE (email, period)
);
-- Reports narrowed by any dimensions together. reporting_views keeps a
-- day's page views by visitor and by every value they had: one row per
-- visitor, day and set of values (row_key, a hash of them), with the
-- views, the sessions that began on such a view and their bounces and
-- length, and the sessions whose last view it is (exits). visitor is a
-- number made from the day and the day's visitor hash, whose salt is
-- forgotten after a day: it ties one day's views together and names no
-- one. reporting_visitor_events keeps each visitor's events of the day,
-- and each event's properties (prop "name<US>value"; '' for the event
-- itself). Goals and properties narrow reports to the visitors who
-- reached them that day. Both are kept from this version on.
CREATE TABLE reporting_views (
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
	PRIMARY KEY (day, visitor, row_key)
);
CREATE TABLE reporting_visitor_events (
	day TEXT NOT NULL,
	visitor INTEGER NOT NULL,
	event TEXT NOT NULL,
	prop TEXT NOT NULL,
	count INTEGER NOT NULL,
	PRIMARY KEY (day, visitor, event, prop)
);
CREATE INDEX reporting_pairs_b ON reporting_pairs (pair, b, day);
CREATE INDEX reporting_triples_page ON reporting_triples (page, day);
