package orgs

import "context"

// Store keeps the organizations and their members. Implementation:
// orgssql, in auth's tables (migrated with authsql.Migrations).
type Store interface {
	// CreateOrganization stores o, sets its ID, and makes ownerID its
	// member with role, in one transaction.
	CreateOrganization(ctx context.Context, o *Organization, ownerID int64, role Role) error
	// Memberships returns a user's memberships, by organization name, then
	// ID.
	Memberships(ctx context.Context, userID int64) ([]Membership, error)
	// Membership returns one; ErrNotFound when the user is no member.
	Membership(ctx context.Context, orgID, userID int64) (Membership, error)
	// AddMember makes userID a member with role (or sets the role of one
	// already); ErrNotFound when the organization or the user is not there.
	AddMember(ctx context.Context, m Membership) error
	// Members returns an organization's members by name, then user ID.
	Members(ctx context.Context, orgID int64) ([]Member, error)
}
