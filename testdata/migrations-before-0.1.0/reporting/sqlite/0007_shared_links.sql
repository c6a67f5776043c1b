-- Shared links: a read-only dashboard behind a random token, kept only as
-- its hash, with an optional password (its PHC hash, '' for none).
CREATE TABLE reporting_shared_links (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	token_hash BLOB NOT NULL UNIQUE,
	password_hash TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	revoked_at TIMESTAMP
);
