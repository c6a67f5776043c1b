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
CREATE INDEX webhooks_inbound_event ON webhooks_inbound (provider, event_id);
CREATE INDEX webhooks_inbound_received ON webhooks_inbound (received_at);
CREATE INDEX webhooks_inbound_session ON webhooks_inbound (session_reference) WHERE session_reference IS NOT NULL;

-- One claim per provider event: the first delivery of an event wins it.
CREATE TABLE webhooks_inbound_claims (
	provider TEXT NOT NULL,
	event_id TEXT NOT NULL,
	claimed_at TIMESTAMP NOT NULL,
	PRIMARY KEY (provider, event_id)
);
CREATE INDEX webhooks_inbound_claims_at ON webhooks_inbound_claims (claimed_at);

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
CREATE INDEX webhooks_payment_sessions_awaiting ON webhooks_payment_sessions (updated_at) WHERE status = 'pending';
