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
