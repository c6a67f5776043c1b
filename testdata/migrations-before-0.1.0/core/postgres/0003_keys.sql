-- Fingerprints of the keys instances share (a keyed hash, never the key),
-- so an instance given another key refuses to start.
CREATE TABLE groundwork_keys (
	name TEXT PRIMARY KEY,
	fingerprint TEXT NOT NULL,
	created_at TIMESTAMPTZ NOT NULL
);
