CREATE TABLE auth_api_tokens (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	secret_hash BLOB NOT NULL,
	abilities TEXT NOT NULL,
	expires_at TIMESTAMP,
	last_used_at TIMESTAMP,
	revoked_at TIMESTAMP,
	created_at TIMESTAMP NOT NULL
);
