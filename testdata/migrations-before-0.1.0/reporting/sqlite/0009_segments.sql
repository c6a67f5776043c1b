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
-- A session's first and last views' rows (0 for one kept before).
ALTER TABLE reporting_seen ADD COLUMN entry_row INTEGER NOT NULL DEFAULT 0;
ALTER TABLE reporting_seen ADD COLUMN last_row INTEGER NOT NULL DEFAULT 0;
