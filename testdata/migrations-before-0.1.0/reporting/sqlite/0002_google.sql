-- Per-user Google connections: tokens sealed by the application before
-- they are stored.
CREATE TABLE reporting_google_connections (
	user_id TEXT PRIMARY KEY,
	access_token TEXT NOT NULL,
	refresh_token TEXT NOT NULL,
	token_type TEXT NOT NULL,
	expires_at TIMESTAMP,
	scopes TEXT NOT NULL,
	status TEXT NOT NULL,
	disconnect_reason TEXT NOT NULL,
	updated_at TIMESTAMP NOT NULL
);
