-- The auth schema as of groundwork v0.1.0: the earlier migrations folded into
-- one. A database they made records version 3 and is already here.
CREATE TABLE auth_users (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	email TEXT NOT NULL UNIQUE,
	password_hash TEXT NOT NULL,
	email_verified_at TIMESTAMP,
	capabilities TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL,
	two_factor_secret TEXT,
	two_factor_confirmed_at TIMESTAMP,
	two_factor_last_step INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE auth_api_tokens (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	secret_hash BLOB NOT NULL,
	abilities TEXT NOT NULL,
	expires_at TIMESTAMP,
	last_used_at TIMESTAMP,
	revoked_at TIMESTAMP,
	created_at TIMESTAMP NOT NULL,
	user_id INTEGER REFERENCES auth_users (id) ON DELETE CASCADE
);
CREATE TABLE auth_sessions (
	id_hash BLOB PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
	created_at TIMESTAMP NOT NULL,
	last_seen_at TIMESTAMP NOT NULL,
	password_confirmed_at TIMESTAMP NOT NULL,
	user_agent TEXT NOT NULL DEFAULT '',
	ip TEXT NOT NULL DEFAULT '',
	place TEXT NOT NULL DEFAULT ''
);
CREATE TABLE auth_remember_tokens (
	selector TEXT PRIMARY KEY,
	validator_hash BLOB NOT NULL,
	user_id INTEGER NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
	expires_at TIMESTAMP NOT NULL,
	created_at TIMESTAMP NOT NULL
);
CREATE TABLE auth_password_resets (
	user_id INTEGER PRIMARY KEY REFERENCES auth_users (id) ON DELETE CASCADE,
	token_hash BLOB NOT NULL,
	created_at TIMESTAMP NOT NULL
);
CREATE TABLE auth_recovery_codes (
	user_id INTEGER NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
	code_hash BLOB NOT NULL,
	PRIMARY KEY (user_id, code_hash)
);
CREATE TABLE auth_passkeys (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	user_id INTEGER NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
	credential_id BLOB NOT NULL UNIQUE,
	credential TEXT NOT NULL,
	name TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	last_used_at TIMESTAMP
);
CREATE INDEX auth_sessions_user ON auth_sessions (user_id);
CREATE INDEX auth_sessions_last_seen ON auth_sessions (last_seen_at);
CREATE INDEX auth_remember_tokens_user ON auth_remember_tokens (user_id);
CREATE INDEX auth_api_tokens_user ON auth_api_tokens (user_id);
CREATE INDEX auth_passkeys_user ON auth_passkeys (user_id);
