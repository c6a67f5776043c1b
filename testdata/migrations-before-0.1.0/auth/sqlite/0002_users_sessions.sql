CREATE TABLE auth_users (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	email TEXT NOT NULL UNIQUE,
	password_hash TEXT NOT NULL,
	email_verified_at TIMESTAMP,
	capabilities TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL
);
CREATE TABLE auth_sessions (
	id_hash BLOB PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
	created_at TIMESTAMP NOT NULL,
	last_seen_at TIMESTAMP NOT NULL,
	password_confirmed_at TIMESTAMP NOT NULL
);
CREATE INDEX auth_sessions_user ON auth_sessions (user_id);
CREATE INDEX auth_sessions_last_seen ON auth_sessions (last_seen_at);
CREATE TABLE auth_remember_tokens (
	selector TEXT PRIMARY KEY,
	validator_hash BLOB NOT NULL,
	user_id INTEGER NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
	expires_at TIMESTAMP NOT NULL,
	created_at TIMESTAMP NOT NULL
);
CREATE INDEX auth_remember_tokens_user ON auth_remember_tokens (user_id);
CREATE TABLE auth_password_resets (
	user_id INTEGER PRIMARY KEY REFERENCES auth_users (id) ON DELETE CASCADE,
	token_hash BLOB NOT NULL,
	created_at TIMESTAMP NOT NULL
);
ALTER TABLE auth_api_tokens ADD COLUMN user_id INTEGER REFERENCES auth_users (id) ON DELETE CASCADE;
CREATE INDEX auth_api_tokens_user ON auth_api_tokens (user_id);
