-- Due deliveries are claimed oldest first, ties by id: an index in that
-- very order lets a claim read the first rows it needs and stop, rather
-- than sort every due delivery (a fan-out makes a thousand with one
-- time). (SQLite's index holds the id already: its rowid.)
DROP INDEX webhooks_deliveries_due;
CREATE INDEX webhooks_deliveries_due ON webhooks_deliveries (next_attempt_at, id) WHERE status IN ('pending', 'retrying');
