-- The visitors each batch wrote, by the day and the version it raised the
-- day to (in the batch's own transaction), so a reader that keeps a copy
-- of a day still being written brings it up to date by re-reading only
-- those visitors' rows. visitors is their numbers, sorted, as unsigned
-- varint gaps. Rows older than a few minutes are deleted; a reader whose
-- copy is older reads the day again.
CREATE TABLE reporting_day_changes (
	day TEXT NOT NULL,
	version BIGINT NOT NULL,
	visitors BYTEA NOT NULL,
	changed_at TIMESTAMPTZ NOT NULL,
	PRIMARY KEY (day, version)
);
