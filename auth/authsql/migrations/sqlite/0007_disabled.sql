-- A user an administrator turned off: set, they cannot sign in, their
-- sessions and remember-me tokens are gone and their API tokens stop
-- working, until it is cleared.
ALTER TABLE auth_users ADD COLUMN disabled_at TIMESTAMP;
