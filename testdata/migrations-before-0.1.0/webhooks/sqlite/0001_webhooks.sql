CREATE TABLE webhooks_subscriptions (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	url TEXT NOT NULL,
	events TEXT NOT NULL,
	sealed_secret TEXT NOT NULL,
	is_active BOOLEAN NOT NULL DEFAULT TRUE,
	standard_webhooks BOOLEAN NOT NULL DEFAULT FALSE,
	consecutive_failures INTEGER NOT NULL DEFAULT 0,
	last_success_at TIMESTAMP,
	last_failure_at TIMESTAMP,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL
);
CREATE INDEX webhooks_subscriptions_active ON webhooks_subscriptions (is_active);

CREATE TABLE webhooks_deliveries (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	subscription_id INTEGER NOT NULL REFERENCES webhooks_subscriptions (id) ON DELETE CASCADE,
	event TEXT NOT NULL,
	event_id TEXT NOT NULL,
	status TEXT NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0,
	next_attempt_at TIMESTAMP,
	response_status INTEGER,
	response_body TEXT,
	delivered_at TIMESTAMP,
	payload TEXT NOT NULL,
	payload_hash TEXT NOT NULL,
	order_id TEXT,
	customer_id TEXT,
	request_id TEXT NOT NULL DEFAULT '',
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL
);
CREATE INDEX webhooks_deliveries_subscription ON webhooks_deliveries (subscription_id, id);
CREATE INDEX webhooks_deliveries_due ON webhooks_deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying');
CREATE INDEX webhooks_deliveries_created ON webhooks_deliveries (created_at);
CREATE INDEX webhooks_deliveries_order ON webhooks_deliveries (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX webhooks_deliveries_customer ON webhooks_deliveries (customer_id) WHERE customer_id IS NOT NULL;
