// Package authsql is the [auth.Store] on SQLite and Postgres.
package authsql

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"time"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/store"
)

//go:embed migrations
var migrations embed.FS

// Migrations is the auth schema; pass it to store.Migrate.
var Migrations = store.MigrationsFrom("auth", migrations, "migrations")

// Store is the auth.Store on a store.DB.
type Store struct {
	db *store.DB
}

var _ auth.Store = (*Store)(nil)

// New returns a Store on db, which must be migrated with [Migrations].
func New(db *store.DB) *Store { return &Store{db: db} }

// RunInTx implements auth.Store: a transaction of the store's DB
// ([store.DB.RunInTx]), which the methods called with its context join.
func (s *Store) RunInTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.db.RunInTx(ctx, fn)
}

type tokenRow struct {
	ID         int64                `db:"id"`
	Name       string               `db:"name"`
	SecretHash []byte               `db:"secret_hash"`
	Abilities  store.JSON[[]string] `db:"abilities"`
	ExpiresAt  store.Time           `db:"expires_at"`
	LastUsedAt store.Time           `db:"last_used_at"`
	RevokedAt  store.Time           `db:"revoked_at"`
	UserID     sql.NullInt64        `db:"user_id"`
	CreatedAt  store.Time           `db:"created_at"`
}

const tokenColumns = `id, name, secret_hash, abilities, expires_at, last_used_at, revoked_at, user_id, created_at`

func optional(t store.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	v := t.Time
	return &v
}

func fromOptional(t *time.Time) store.Time {
	if t == nil {
		return store.Time{}
	}
	return store.NewTime(*t)
}

func (r tokenRow) token() auth.Token {
	return auth.Token{ID: r.ID, Name: r.Name, Abilities: r.Abilities.V, ExpiresAt: optional(r.ExpiresAt),
		LastUsedAt: optional(r.LastUsedAt), RevokedAt: optional(r.RevokedAt), UserID: optionalID(r.UserID), CreatedAt: r.CreatedAt.Time}
}

func optionalID(id sql.NullInt64) *int64 {
	if !id.Valid {
		return nil
	}
	return &id.Int64
}

func fromOptionalID(id *int64) sql.NullInt64 {
	if id == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: *id, Valid: true}
}

// CreateToken implements auth.Store.
func (s *Store) CreateToken(ctx context.Context, t auth.Token, secretHash []byte) (auth.Token, error) {
	var row tokenRow
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`INSERT INTO auth_api_tokens
		(name, secret_hash, abilities, expires_at, last_used_at, revoked_at, user_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING `+tokenColumns),
		t.Name, secretHash, store.JSON[[]string]{V: t.Abilities}, fromOptional(t.ExpiresAt),
		fromOptional(t.LastUsedAt), fromOptional(t.RevokedAt), fromOptionalID(t.UserID), store.NewTime(t.CreatedAt)).StructScan(&row)
	if err != nil {
		return auth.Token{}, fmt.Errorf("authsql: create token: %w", store.MapError(err))
	}
	return row.token(), nil
}

// TokenByID implements auth.Store.
func (s *Store) TokenByID(ctx context.Context, id int64) (auth.Token, []byte, error) {
	var row tokenRow
	err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT `+tokenColumns+` FROM auth_api_tokens WHERE id = ?`), id)
	if err != nil {
		if errors.Is(store.MapError(err), store.ErrNotFound) {
			return auth.Token{}, nil, auth.ErrNotFound
		}
		return auth.Token{}, nil, fmt.Errorf("authsql: token %d: %w", id, err)
	}
	return row.token(), row.SecretHash, nil
}

// ListTokens implements auth.Store.
func (s *Store) ListTokens(ctx context.Context, userID int64) ([]auth.Token, error) {
	if userID == 0 {
		return s.listTokens(ctx, `SELECT `+tokenColumns+` FROM auth_api_tokens ORDER BY id`)
	}
	return s.listTokens(ctx, s.db.Rebind(`SELECT `+tokenColumns+` FROM auth_api_tokens WHERE user_id = ? ORDER BY id`), userID)
}

func (s *Store) listTokens(ctx context.Context, query string, args ...any) ([]auth.Token, error) {
	var rows []tokenRow
	if err := s.db.Reader().SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, fmt.Errorf("authsql: list tokens: %w", err)
	}
	out := make([]auth.Token, len(rows))
	for i, r := range rows {
		out[i] = r.token()
	}
	return out, nil
}

// RevokeToken implements auth.Store.
func (s *Store) RevokeToken(ctx context.Context, id int64, at time.Time) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE auth_api_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`), store.NewTime(at), id)
	if err != nil {
		return fmt.Errorf("authsql: revoke token %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("authsql: revoke token %d: %w", id, err)
	} else if n == 0 {
		return auth.ErrNotFound
	}
	return nil
}

// TouchToken implements auth.Store.
func (s *Store) TouchToken(ctx context.Context, id int64, at time.Time) error {
	t := store.NewTime(at)
	_, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE auth_api_tokens SET last_used_at = ?
		WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`), t, id, t)
	if err != nil {
		return fmt.Errorf("authsql: touch token %d: %w", id, err)
	}
	return nil
}
