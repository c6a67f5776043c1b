package orgs

import (
	"context"
	"time"
)

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
	// ChangeMember gives a member role, or removes them when role is "",
	// in one transaction that holds the organization's row, so changes on
	// several instances are made one after another: ErrLastOwner when
	// the organization would keep no owner, ErrNotFound when the user is
	// no member.
	ChangeMember(ctx context.Context, orgID, userID int64, role Role) error

	// CreateInvitation stores inv with the hash of its link's token and
	// sets its ID.
	CreateInvitation(ctx context.Context, inv *Invitation, tokenHash []byte) error
	// Invitations are an organization's invitations still good at now
	// (neither used, revoked nor expired), newest first.
	Invitations(ctx context.Context, orgID int64, now time.Time) ([]Invitation, error)
	// Invitation is the invitation of a token's hash, with its
	// organization's name, if still good at now; ErrNotFound otherwise.
	Invitation(ctx context.Context, tokenHash []byte, now time.Time) (Invitation, error)
	// RevokeInvitation ends one of an organization's invitations still
	// good; ErrNotFound when there is none.
	RevokeInvitation(ctx context.Context, orgID, id int64, at time.Time) error
	// AcceptInvitation uses the invitation of a token's hash, still good
	// at at, once, by the user whose address it was sent to (letter case
	// aside): userID joins its organization with its role (a member
	// already keeps their role), in one transaction; ErrNotFound when it
	// is used (on any instance), revoked, expired, not there, or for
	// another address than the user's.
	AcceptInvitation(ctx context.Context, tokenHash []byte, userID int64, at time.Time) (Membership, error)
}
