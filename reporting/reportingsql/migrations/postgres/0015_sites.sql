-- Sites: the analytics of each tenant apart. Every row of the rollups, the
-- visitors' days, their views and events, the days' versions and copies,
-- the goals, shared links and email reports belongs to one site, the
-- tenant's key ('' for a host without tenancy, and every row from before),
-- and every key begins with it, so one site's report reads its own rows
-- alone. The salts and the Google connections stay global.
ALTER TABLE reporting_daily ADD COLUMN site TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_daily DROP CONSTRAINT reporting_daily_pkey, ADD PRIMARY KEY (site, dim, day, key);
ALTER TABLE reporting_weekly ADD COLUMN site TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_weekly DROP CONSTRAINT reporting_weekly_pkey, ADD PRIMARY KEY (site, dim, week, key);
ALTER TABLE reporting_seen ADD COLUMN site TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_seen DROP CONSTRAINT reporting_seen_pkey, ADD PRIMARY KEY (site, day, visitor, scope);
ALTER TABLE reporting_pairs ADD COLUMN site TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_pairs DROP CONSTRAINT reporting_pairs_pkey, ADD PRIMARY KEY (site, pair, a, day, b);
DROP INDEX reporting_pairs_b;
CREATE INDEX reporting_pairs_b ON reporting_pairs (site, pair, b, day);
ALTER TABLE reporting_triples ADD COLUMN site TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_triples DROP CONSTRAINT reporting_triples_pkey, ADD PRIMARY KEY (site, source, device, day, page);
DROP INDEX reporting_triples_page;
CREATE INDEX reporting_triples_page ON reporting_triples (site, page, day);
ALTER TABLE reporting_views ADD COLUMN site TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_views DROP CONSTRAINT reporting_views_pkey, ADD PRIMARY KEY (site, day, visitor, row_key);
ALTER TABLE reporting_visitor_events ADD COLUMN site TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_visitor_events DROP CONSTRAINT reporting_visitor_events_pkey, ADD PRIMARY KEY (site, day, visitor, event, prop);
ALTER TABLE reporting_days ADD COLUMN site TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_days DROP CONSTRAINT reporting_days_pkey, ADD PRIMARY KEY (site, day);
ALTER TABLE reporting_day_columns ADD COLUMN site TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_day_columns DROP CONSTRAINT reporting_day_columns_pkey, ADD PRIMARY KEY (site, day);
ALTER TABLE reporting_day_changes ADD COLUMN site TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_day_changes DROP CONSTRAINT reporting_day_changes_pkey, ADD PRIMARY KEY (site, day, version);
ALTER TABLE reporting_goals ADD COLUMN site TEXT NOT NULL DEFAULT '';
CREATE INDEX reporting_goals_site ON reporting_goals (site);
ALTER TABLE reporting_shared_links ADD COLUMN site TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_email_reports ADD COLUMN site TEXT NOT NULL DEFAULT '';
ALTER TABLE reporting_email_reports DROP CONSTRAINT reporting_email_reports_email_period_key, ADD UNIQUE (site, email, period);
