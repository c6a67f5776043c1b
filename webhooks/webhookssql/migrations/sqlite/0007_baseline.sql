-- The webhooks schema as of groundwork v0.1.0: the earlier migrations folded into
-- one. A database they made records version 7 and is already here.
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
	updated_at TIMESTAMP NOT NULL,
	-- Owners: a subscription is its owner's (an opaque string the host
	-- chooses); the subscriptions from before are the default owner's ('').
	-- A fan-out reads the active subscriptions of one owner.
	owner TEXT NOT NULL DEFAULT '',
	-- Secret rotation: the secret a rotation replaced (sealed) keeps signing
	-- deliveries beside the new one until previous_secret_expires_at.
	previous_sealed_secret TEXT NOT NULL DEFAULT '',
	previous_secret_expires_at TIMESTAMP,
	-- Per-endpoint settings: a description, custom headers (a JSON object of
	-- names to values) and a rate limit (deliveries a second; 0: none).
	description TEXT NOT NULL DEFAULT '',
	headers TEXT NOT NULL DEFAULT '{}',
	rate_limit INTEGER NOT NULL DEFAULT 0,
	-- Channels: an endpoint with channels (a JSON array) receives only the
	-- events that carry one of them; '[]' receives its events whatever their
	-- channels.
	channels TEXT NOT NULL DEFAULT '[]'
);
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
-- The inbound ledger: every request that reached a gateway. Not unique on
-- (provider, event_id): redeliveries get rows of their own.
CREATE TABLE webhooks_inbound (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	provider TEXT NOT NULL,
	event_id TEXT,
	event_type TEXT,
	verified BOOLEAN NOT NULL,
	duplicate BOOLEAN NOT NULL DEFAULT FALSE,
	error_code TEXT,
	payload_hash TEXT NOT NULL,
	payload_size INTEGER NOT NULL,
	payload TEXT NOT NULL,
	payload_truncated BOOLEAN NOT NULL DEFAULT FALSE,
	parsed TEXT,
	response_status INTEGER NOT NULL,
	correlation_id TEXT,
	session_reference TEXT,
	received_at TIMESTAMP NOT NULL
);
-- One claim per provider event: the first delivery of an event wins it.
CREATE TABLE webhooks_inbound_claims (
	provider TEXT NOT NULL,
	event_id TEXT NOT NULL,
	claimed_at TIMESTAMP NOT NULL,
	PRIMARY KEY (provider, event_id)
);
-- A minimal store of payment sessions (webhookssql.PaymentSessions), for
-- hosts without their own and for trying reconciliation.
CREATE TABLE webhooks_payment_sessions (
	provider TEXT NOT NULL,
	reference TEXT NOT NULL,
	status TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL,
	PRIMARY KEY (provider, reference)
);
-- The deliveries made to a rate-limited endpoint in its current second,
-- shared by every instance: an attempt takes one or waits.
CREATE TABLE webhooks_rate (
	subscription_id INTEGER PRIMARY KEY REFERENCES webhooks_subscriptions (id) ON DELETE CASCADE,
	second INTEGER NOT NULL,
	taken INTEGER NOT NULL
);
-- The failed attempts of a delivery, each with the receiver's answer (a
-- delivered one is its delivery's own row): the portal's delivery log.
CREATE TABLE webhooks_attempts (
	delivery_id INTEGER NOT NULL REFERENCES webhooks_deliveries (id) ON DELETE CASCADE,
	attempt INTEGER NOT NULL,
	response_status INTEGER,
	response_excerpt TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	PRIMARY KEY (delivery_id, attempt)
);
CREATE INDEX webhooks_subscriptions_active ON webhooks_subscriptions (is_active);
CREATE INDEX webhooks_deliveries_subscription ON webhooks_deliveries (subscription_id, id);
CREATE INDEX webhooks_deliveries_due ON webhooks_deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying');
CREATE INDEX webhooks_deliveries_created ON webhooks_deliveries (created_at);
CREATE INDEX webhooks_deliveries_order ON webhooks_deliveries (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX webhooks_deliveries_customer ON webhooks_deliveries (customer_id) WHERE customer_id IS NOT NULL;
CREATE INDEX webhooks_inbound_event ON webhooks_inbound (provider, event_id);
CREATE INDEX webhooks_inbound_received ON webhooks_inbound (received_at);
CREATE INDEX webhooks_inbound_session ON webhooks_inbound (session_reference) WHERE session_reference IS NOT NULL;
CREATE INDEX webhooks_inbound_claims_at ON webhooks_inbound_claims (claimed_at);
CREATE INDEX webhooks_payment_sessions_awaiting ON webhooks_payment_sessions (updated_at) WHERE status = 'pending';
CREATE INDEX webhooks_subscriptions_owner ON webhooks_subscriptions (owner, is_active);
