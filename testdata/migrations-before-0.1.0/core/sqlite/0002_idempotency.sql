-- Idempotency-Key records: the response to replay for a key, per caller
-- and route, until expires_at. status 0 marks a request still running.
CREATE TABLE groundwork_idempotency (
	scope TEXT NOT NULL,
	key TEXT NOT NULL,
	request_hash TEXT NOT NULL,
	status INTEGER NOT NULL DEFAULT 0,
	header TEXT,
	body BLOB,
	created_at TIMESTAMP NOT NULL,
	expires_at TIMESTAMP NOT NULL,
	PRIMARY KEY (scope, key)
);
CREATE INDEX groundwork_idempotency_expires_at ON groundwork_idempotency (expires_at);
