-- Entry and exit pages, bounces: a visitor's 't:' row in reporting_seen
-- also keeps their session's entry page, last page and hits (page views
-- and events; a session of one hit is a bounce until a second comes);
-- the rollups keep the bounces of each day's sessions, in the total and
-- by entry page (dim 'entry'). Rows from before keep 0 hits: their
-- sessions are not counted as bounces.
ALTER TABLE reporting_seen ADD COLUMN page TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_seen ADD COLUMN entry TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_seen ADD COLUMN hits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE reporting_daily ADD COLUMN bounces INTEGER NOT NULL DEFAULT 0;
ALTER TABLE reporting_weekly ADD COLUMN bounces INTEGER NOT NULL DEFAULT 0;
