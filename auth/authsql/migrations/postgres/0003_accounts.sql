ALTER TABLE auth_sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
ALTER TABLE auth_sessions ADD COLUMN ip TEXT NOT NULL DEFAULT '';
ALTER TABLE auth_users ADD COLUMN two_factor_secret TEXT;
ALTER TABLE auth_users ADD COLUMN two_factor_confirmed_at TIMESTAMPTZ;
ALTER TABLE auth_users ADD COLUMN two_factor_last_step BIGINT NOT NULL DEFAULT 0;
CREATE TABLE auth_recovery_codes (
	user_id BIGINT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
	code_hash BYTEA NOT NULL,
	PRIMARY KEY (user_id, code_hash)
);
