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
CREATE INDEX reporting_triples_page ON reporting_triples (page, day);
