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
	views BIGINT NOT NULL,
	visitors BIGINT NOT NULL,
	sessions BIGINT NOT NULL,
	PRIMARY KEY (pair, a, day, b)
);
CREATE INDEX reporting_pairs_b ON reporting_pairs (pair, b, day);
