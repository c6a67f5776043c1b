// Package orgssql keeps auth's organizations (package orgs) in auth's
// tables, on SQLite or Postgres: migrate the database with
// authsql.Migrations.
package orgssql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/auth/orgs"
	"github.com/groundwork-go/groundwork/store"
)

// Store is orgs.Store on a database.
type Store struct{ db *store.DB }

// New returns a Store on db, migrated with authsql.Migrations.
func New(db *store.DB) *Store { return &Store{db: db} }

var _ orgs.Store = (*Store)(nil)

// CreateOrganization implements orgs.Store.
func (s *Store) CreateOrganization(ctx context.Context, o *orgs.Organization, ownerID int64, role orgs.Role) error {
	return s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.QueryRowxContext(ctx, tx.Rebind(`INSERT INTO auth_organizations (name, created_at) VALUES (?, ?) RETURNING id`),
			o.Name, store.NewTime(o.CreatedAt)).Scan(&o.ID); err != nil {
			return fmt.Errorf("orgssql: create organization: %w", err)
		}
		_, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO auth_memberships (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)`),
			o.ID, ownerID, role, store.NewTime(o.CreatedAt))
		return missing(err, "add its owner")
	})
}

type membershipRow struct {
	ID        int64      `db:"id"`
	Name      string     `db:"name"`
	CreatedAt store.Time `db:"created_at"`
	UserID    int64      `db:"user_id"`
	Role      string     `db:"role"`
	JoinedAt  store.Time `db:"joined_at"`
}

func (r membershipRow) membership() orgs.Membership {
	return orgs.Membership{Organization: orgs.Organization{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt.Time}, UserID: r.UserID,
		Role: orgs.Role(r.Role), JoinedAt: r.JoinedAt.Time}
}

const membershipSelect = `SELECT o.id, o.name, o.created_at, m.user_id, m.role, m.created_at AS joined_at
	FROM auth_memberships m JOIN auth_organizations o ON o.id = m.organization_id`

// Memberships implements orgs.Store.
func (s *Store) Memberships(ctx context.Context, userID int64) ([]orgs.Membership, error) {
	var rows []membershipRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.db.Reader().Rebind(membershipSelect+` WHERE m.user_id = ? ORDER BY o.name, o.id`),
		userID); err != nil {
		return nil, fmt.Errorf("orgssql: memberships: %w", err)
	}
	out := make([]orgs.Membership, len(rows))
	for i, r := range rows {
		out[i] = r.membership()
	}
	return out, nil
}

// Membership implements orgs.Store.
func (s *Store) Membership(ctx context.Context, orgID, userID int64) (orgs.Membership, error) {
	var r membershipRow
	err := s.db.Reader().GetContext(ctx, &r, s.db.Reader().Rebind(membershipSelect+` WHERE m.organization_id = ? AND m.user_id = ?`), orgID, userID)
	if errors.Is(err, sql.ErrNoRows) {
		return orgs.Membership{}, orgs.ErrNotFound
	}
	if err != nil {
		return orgs.Membership{}, fmt.Errorf("orgssql: membership: %w", err)
	}
	return r.membership(), nil
}

// AddMember implements orgs.Store.
func (s *Store) AddMember(ctx context.Context, m orgs.Membership) error {
	_, err := s.db.ExecContext(ctx, s.db.Reader().Rebind(`INSERT INTO auth_memberships (organization_id, user_id, role, created_at)
		VALUES (?, ?, ?, ?) ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role`),
		m.ID, m.UserID, m.Role, store.NewTime(m.JoinedAt))
	return missing(err, "add member")
}

// Members implements orgs.Store.
func (s *Store) Members(ctx context.Context, orgID int64) ([]orgs.Member, error) {
	var rows []struct {
		UserID   int64      `db:"user_id"`
		Name     string     `db:"name"`
		Email    string     `db:"email"`
		Role     string     `db:"role"`
		JoinedAt store.Time `db:"joined_at"`
	}
	if err := s.db.Reader().SelectContext(ctx, &rows, s.db.Reader().Rebind(`SELECT m.user_id, u.name, u.email, m.role, m.created_at AS joined_at
		FROM auth_memberships m JOIN auth_users u ON u.id = m.user_id WHERE m.organization_id = ? ORDER BY u.name, u.id`), orgID); err != nil {
		return nil, fmt.Errorf("orgssql: members: %w", err)
	}
	out := make([]orgs.Member, len(rows))
	for i, r := range rows {
		out[i] = orgs.Member{UserID: r.UserID, Name: r.Name, Email: r.Email, Role: orgs.Role(r.Role), JoinedAt: r.JoinedAt.Time}
	}
	return out, nil
}

// missing is err, or orgs.ErrNotFound when it is a foreign key's: the
// organization or the user is not there.
func missing(err error, what string) error {
	if err == nil {
		return nil
	}
	if msg := err.Error(); strings.Contains(msg, "FOREIGN KEY") || strings.Contains(msg, "23503") {
		return orgs.ErrNotFound
	}
	return fmt.Errorf("orgssql: %s: %w", what, err)
}

// lockOrganization holds an organization's row until tx ends (Postgres;
// SQLite's writers take turns): changes to its members are made one
// after another across instances. ErrNotFound when it is not there.
func (s *Store) lockOrganization(ctx context.Context, tx *sqlx.Tx, orgID int64) error {
	q := `SELECT id FROM auth_organizations WHERE id = ?`
	if s.db.Dialect() == store.Postgres {
		q += ` FOR UPDATE`
	}
	var id int64
	err := tx.GetContext(ctx, &id, tx.Rebind(q), orgID)
	if errors.Is(err, sql.ErrNoRows) {
		return orgs.ErrNotFound
	}
	return err
}

// ChangeMember implements orgs.Store.
func (s *Store) ChangeMember(ctx context.Context, orgID, userID int64, role orgs.Role) error {
	return s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		if err := s.lockOrganization(ctx, tx, orgID); err != nil {
			return err
		}
		var was string
		err := tx.GetContext(ctx, &was, tx.Rebind(`SELECT role FROM auth_memberships WHERE organization_id = ? AND user_id = ?`), orgID, userID)
		if errors.Is(err, sql.ErrNoRows) {
			return orgs.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("orgssql: change member: %w", err)
		}
		if orgs.Role(was) == orgs.RoleOwner && role != orgs.RoleOwner {
			var owners int
			if err := tx.GetContext(ctx, &owners, tx.Rebind(`SELECT COUNT(*) FROM auth_memberships WHERE organization_id = ? AND role = ?`),
				orgID, orgs.RoleOwner); err != nil {
				return fmt.Errorf("orgssql: count owners: %w", err)
			}
			if owners <= 1 {
				return orgs.ErrLastOwner
			}
		}
		if role == "" {
			_, err = tx.ExecContext(ctx, tx.Rebind(`DELETE FROM auth_memberships WHERE organization_id = ? AND user_id = ?`), orgID, userID)
		} else {
			_, err = tx.ExecContext(ctx, tx.Rebind(`UPDATE auth_memberships SET role = ? WHERE organization_id = ? AND user_id = ?`), role, orgID, userID)
		}
		if err != nil {
			return fmt.Errorf("orgssql: change member: %w", err)
		}
		return nil
	})
}

type invitationRow struct {
	ID        int64         `db:"id"`
	OrgID     int64         `db:"organization_id"`
	OrgName   string        `db:"organization_name"`
	Email     string        `db:"email"`
	Role      string        `db:"role"`
	InvitedBy sql.NullInt64 `db:"invited_by"`
	CreatedAt store.Time    `db:"created_at"`
	ExpiresAt store.Time    `db:"expires_at"`
}

func (r invitationRow) invitation() orgs.Invitation {
	return orgs.Invitation{ID: r.ID, OrganizationID: r.OrgID, OrganizationName: r.OrgName, Email: r.Email, Role: orgs.Role(r.Role),
		InvitedBy: r.InvitedBy.Int64, CreatedAt: r.CreatedAt.Time, ExpiresAt: r.ExpiresAt.Time}
}

const invitationSelect = `SELECT i.id, i.organization_id, o.name AS organization_name, i.email, i.role, i.invited_by, i.created_at, i.expires_at
	FROM auth_invitations i JOIN auth_organizations o ON o.id = i.organization_id
	WHERE i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ?`

// CreateInvitation implements orgs.Store.
func (s *Store) CreateInvitation(ctx context.Context, inv *orgs.Invitation, tokenHash []byte) error {
	var by any
	if inv.InvitedBy != 0 {
		by = inv.InvitedBy
	}
	err := s.db.QueryRowxContext(ctx, s.db.Reader().Rebind(`INSERT INTO auth_invitations (organization_id, email, role, token_hash, invited_by,
		created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`), inv.OrganizationID, inv.Email, inv.Role, tokenHash, by,
		store.NewTime(inv.CreatedAt), store.NewTime(inv.ExpiresAt)).Scan(&inv.ID)
	return missing(err, "create invitation")
}

// Invitations implements orgs.Store.
func (s *Store) Invitations(ctx context.Context, orgID int64, now time.Time) ([]orgs.Invitation, error) {
	var rows []invitationRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.db.Reader().Rebind(invitationSelect+` AND i.organization_id = ?
		ORDER BY i.created_at DESC, i.id DESC`), store.NewTime(now), orgID); err != nil {
		return nil, fmt.Errorf("orgssql: invitations: %w", err)
	}
	out := make([]orgs.Invitation, len(rows))
	for i, r := range rows {
		out[i] = r.invitation()
	}
	return out, nil
}

// Invitation implements orgs.Store.
func (s *Store) Invitation(ctx context.Context, tokenHash []byte, now time.Time) (orgs.Invitation, error) {
	var r invitationRow
	err := s.db.Reader().GetContext(ctx, &r, s.db.Reader().Rebind(invitationSelect+` AND i.token_hash = ?`), store.NewTime(now), tokenHash)
	if errors.Is(err, sql.ErrNoRows) {
		return orgs.Invitation{}, orgs.ErrNotFound
	}
	if err != nil {
		return orgs.Invitation{}, fmt.Errorf("orgssql: invitation: %w", err)
	}
	return r.invitation(), nil
}

// RevokeInvitation implements orgs.Store.
func (s *Store) RevokeInvitation(ctx context.Context, orgID, id int64, at time.Time) error {
	res, err := s.db.ExecContext(ctx, s.db.Reader().Rebind(`UPDATE auth_invitations SET revoked_at = ? WHERE id = ? AND organization_id = ?
		AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?`), store.NewTime(at), id, orgID, store.NewTime(at))
	if err != nil {
		return fmt.Errorf("orgssql: revoke invitation: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return orgs.ErrNotFound
	}
	return nil
}

// AcceptInvitation implements orgs.Store: the update that marks it used
// is the claim, so of two acceptances at once (on any instances) the
// second finds it used.
func (s *Store) AcceptInvitation(ctx context.Context, tokenHash []byte, userID int64, at time.Time) (orgs.Membership, error) {
	var m orgs.Membership
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		var claimed struct {
			OrgID int64  `db:"organization_id"`
			Role  string `db:"role"`
		}
		err := tx.GetContext(ctx, &claimed, tx.Rebind(`UPDATE auth_invitations SET accepted_at = ?, accepted_by = ?
			WHERE token_hash = ? AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?
			AND lower(email) = (SELECT lower(email) FROM auth_users WHERE id = ?) RETURNING organization_id, role`),
			store.NewTime(at), userID, tokenHash, store.NewTime(at), userID)
		if errors.Is(err, sql.ErrNoRows) {
			return orgs.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("orgssql: accept invitation: %w", err)
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO auth_memberships (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (organization_id, user_id) DO NOTHING`), claimed.OrgID, userID, claimed.Role, store.NewTime(at)); err != nil {
			return missing(err, "join")
		}
		var r membershipRow
		if err := tx.GetContext(ctx, &r, tx.Rebind(membershipSelect+` WHERE m.organization_id = ? AND m.user_id = ?`), claimed.OrgID, userID); err != nil {
			return fmt.Errorf("orgssql: accept invitation: %w", err)
		}
		m = r.membership()
		return nil
	})
	return m, err
}

// Join joins the organizations to env on its database (auth joined
// first, with authsql.Join: the tables are in its migrations). See
// orgs.NewModule.
func Join(env *store.Env, opts *orgs.ModuleOptions) (*orgs.Module, error) {
	return orgs.NewModule(env, New(env.DB), opts)
}
