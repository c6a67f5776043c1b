-- Per-endpoint settings: a description, custom headers (a JSON object of
-- names to values) and a rate limit (deliveries a second; 0: none).
ALTER TABLE webhooks_subscriptions ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE webhooks_subscriptions ADD COLUMN headers JSONB NOT NULL DEFAULT '{}';
ALTER TABLE webhooks_subscriptions ADD COLUMN rate_limit INTEGER NOT NULL DEFAULT 0;
-- The deliveries made to a rate-limited endpoint in its current second,
-- shared by every instance: an attempt takes one or waits.
CREATE TABLE webhooks_rate (
	subscription_id BIGINT PRIMARY KEY REFERENCES webhooks_subscriptions (id) ON DELETE CASCADE,
	second BIGINT NOT NULL,
	taken INTEGER NOT NULL
);
