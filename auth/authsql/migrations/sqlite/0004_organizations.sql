-- Organizations and their members (auth/orgs): a user belongs to any
-- number, each with a role. An organization's tenant key is "org:" and
-- its id.
CREATE TABLE auth_organizations (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL
);
CREATE TABLE auth_memberships (
	organization_id INTEGER NOT NULL REFERENCES auth_organizations (id) ON DELETE CASCADE,
	user_id INTEGER NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
	role TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX auth_memberships_user ON auth_memberships (user_id);
