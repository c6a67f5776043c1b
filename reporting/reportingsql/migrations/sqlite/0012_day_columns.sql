-- A settled day's page views and events as the columns a reader keeps in
-- memory (dictionaries of the values, then each column packed), for the
-- day's version in reporting_days: a reader starting cold reads a day in
-- one row instead of scanning its rows. Written by the first reader of
-- each version; a later version makes it again.
CREATE TABLE reporting_day_columns (
	day TEXT PRIMARY KEY,
	version BIGINT NOT NULL,
	data BLOB NOT NULL
);
