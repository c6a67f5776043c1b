// Package orgs gives auth's users organizations: a user belongs to any
// number, each with a role (owner, admin, member, or a host's own), and
// acts for one at a time. Each organization is a tenant (package
// tenant), so every domain's data made while a user acts for it is its
// own, and its members find none of another organization's:
// [Service.Tenancy] is the one middleware that puts the tenant in a
// request's context, after auth's LoadUser:
//
//	mux.Handle("/forms/inbox/", signIn.LoadUser(organizations.Tenancy(inbox)))
//
// A signed-in user in no organization acts for their own tenant
// (PersonalTenant), never for everyone's. A request acts for the
// organization its "gw_org" cookie names when the user is a member of it
// (the page's switch sets it), else for the user's first organization.
// Tokens a user makes while acting for an organization are bound to it
// (auth.Service.CreateToken).
package orgs

import (
	"errors"
	"strconv"
	"time"
)

// Role is what a member may do in their organization.
type Role string

// The roles every organization knows; a host may add its own
// (Options.Roles).
const (
	// RoleOwner may do everything, the organization's end included.
	RoleOwner Role = "owner"
	// RoleAdmin manages the members and the organization's data.
	RoleAdmin Role = "admin"
	// RoleMember works with the organization's data.
	RoleMember Role = "member"
)

// NameMaxLength caps an organization's name, in characters.
const NameMaxLength = 100

// Organization is a group of users whose data is kept apart from every
// other's.
type Organization struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// Tenant is the organization's tenant key: "org:" and its id.
func (o Organization) Tenant() string { return "org:" + strconv.FormatInt(o.ID, 10) }

// PersonalTenant is the tenant a signed-in user in no organization acts
// for: "user:" and their id.
func PersonalTenant(userID int64) string { return "user:" + strconv.FormatInt(userID, 10) }

// Membership is a user's place in an organization.
type Membership struct {
	Organization
	UserID   int64     `json:"user_id"`
	Role     Role      `json:"role"`
	JoinedAt time.Time `json:"joined_at"`
}

// Member is a member of an organization as its page lists them.
type Member struct {
	UserID   int64     `json:"user_id"`
	Name     string    `json:"name"`
	Email    string    `json:"email"`
	Role     Role      `json:"role"`
	JoinedAt time.Time `json:"joined_at"`
}

// Invitation asks someone, by their address, to join an organization
// with a role; its link is good once, until it expires, unless revoked.
type Invitation struct {
	ID               int64     `json:"id"`
	OrganizationID   int64     `json:"organization_id"`
	OrganizationName string    `json:"organization_name"`
	Email            string    `json:"email"`
	Role             Role      `json:"role"`
	InvitedBy        int64     `json:"invited_by"`
	CreatedAt        time.Time `json:"created_at"`
	ExpiresAt        time.Time `json:"expires_at"`
}

// The errors of organizations.
var (
	// ErrNotFound is an organization, a membership or an invitation that
	// is not there (or not the asker's; an invitation used, revoked or
	// expired).
	ErrNotFound = errors.New("orgs: not found")
	// ErrLastOwner is a change that would leave an organization without
	// an owner: its last owner cannot leave, be removed or be made less.
	ErrLastOwner = errors.New("orgs: an organization keeps at least one owner")
	// ErrForbidden is a change the member's role does not allow: only an
	// owner or an admin manages members and invitations, and only an
	// owner makes, changes or removes an owner.
	ErrForbidden = errors.New("orgs: your role does not allow that")
)
