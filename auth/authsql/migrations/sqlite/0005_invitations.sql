-- Invitations to an organization (auth/orgs): an address, the role it
-- joins with, the hash of the link's token, until when it holds; used
-- once (accepted_at), or revoked.
CREATE TABLE auth_invitations (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	organization_id INTEGER NOT NULL REFERENCES auth_organizations (id) ON DELETE CASCADE,
	email TEXT NOT NULL,
	role TEXT NOT NULL,
	token_hash BLOB NOT NULL UNIQUE,
	invited_by INTEGER REFERENCES auth_users (id) ON DELETE SET NULL,
	created_at TIMESTAMP NOT NULL,
	expires_at TIMESTAMP NOT NULL,
	accepted_at TIMESTAMP,
	accepted_by INTEGER REFERENCES auth_users (id) ON DELETE SET NULL,
	revoked_at TIMESTAMP
);
CREATE INDEX auth_invitations_organization ON auth_invitations (organization_id);
