ALTER TABLE auth_sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
ALTER TABLE auth_sessions ADD COLUMN ip TEXT NOT NULL DEFAULT '';
ALTER TABLE auth_sessions ADD COLUMN place TEXT NOT NULL DEFAULT '';
ALTER TABLE auth_users ADD COLUMN two_factor_secret TEXT;
ALTER TABLE auth_users ADD COLUMN two_factor_confirmed_at TIMESTAMP;
ALTER TABLE auth_users ADD COLUMN two_factor_last_step INTEGER NOT NULL DEFAULT 0;
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
CREATE INDEX auth_passkeys_user ON auth_passkeys (user_id);
