-- Fixed-window counters of SQLRateLimiter, shared by every instance.
CREATE TABLE groundwork_rate_limits (
	key TEXT PRIMARY KEY,
	hits INTEGER NOT NULL,
	reset_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX groundwork_rate_limits_reset_at ON groundwork_rate_limits (reset_at);
