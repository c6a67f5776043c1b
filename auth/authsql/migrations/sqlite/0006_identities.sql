-- Accounts at OpenID providers linked to a user (auth/openid): the
-- provider's issuer and subject, which sign in as the user; they go
-- with the user.
CREATE TABLE auth_identities (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	user_id INTEGER NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
	provider TEXT NOT NULL,
	issuer TEXT NOT NULL,
	subject TEXT NOT NULL,
	email TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	UNIQUE (issuer, subject)
);
CREATE INDEX auth_identities_user ON auth_identities (user_id);
