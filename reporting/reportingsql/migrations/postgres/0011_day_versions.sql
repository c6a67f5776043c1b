-- Each day of reporting_views and reporting_visitor_events has a version,
-- raised by every batch that writes to the day in the batch's own
-- transaction, and the time of that write. A reader that keeps a day's
-- views in memory (to narrow reports without scanning the table) keeps
-- it for one version only, and keeps only days that have settled (no
-- write for a while); a day without a row has version 0.
CREATE TABLE reporting_days (
	day TEXT PRIMARY KEY,
	version BIGINT NOT NULL,
	changed_at TIMESTAMPTZ NOT NULL
);
