-- The core schema as of groundwork v0.1.0: the earlier migrations folded into
-- one. A database they made records version 3 and is already here.
-- Fixed-window counters of SQLRateLimiter, shared by every instance.
CREATE TABLE groundwork_rate_limits (
	key TEXT PRIMARY KEY,
	hits INTEGER NOT NULL,
	reset_at TIMESTAMP NOT NULL
);
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
-- Fingerprints of the keys instances share (a keyed hash, never the key),
-- so an instance given another key refuses to start.
CREATE TABLE groundwork_keys (
	name TEXT PRIMARY KEY,
	fingerprint TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL
);
CREATE INDEX groundwork_rate_limits_reset_at ON groundwork_rate_limits (reset_at);
CREATE INDEX groundwork_idempotency_expires_at ON groundwork_idempotency (expires_at);
