// Package openidsql keeps auth's linked OpenID identities (package
// openid) in auth's tables, on SQLite or Postgres: migrate the database
// with authsql.Migrations.
package openidsql

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/groundwork-go/groundwork/auth/openid"
	"github.com/groundwork-go/groundwork/store"
)

// Store is openid.Store on a database.
type Store struct{ db *store.DB }

// New returns a Store on db, migrated with authsql.Migrations.
func New(db *store.DB) *Store { return &Store{db: db} }

var _ openid.Store = (*Store)(nil)

type row struct {
	ID        int64      `db:"id"`
	UserID    int64      `db:"user_id"`
	Provider  string     `db:"provider"`
	Issuer    string     `db:"issuer"`
	Subject   string     `db:"subject"`
	Email     string     `db:"email"`
	CreatedAt store.Time `db:"created_at"`
}

func (r row) identity() openid.Identity {
	return openid.Identity{ID: r.ID, UserID: r.UserID, Provider: r.Provider, Issuer: r.Issuer, Subject: r.Subject, Email: r.Email,
		CreatedAt: r.CreatedAt.Time}
}

const columns = `id, user_id, provider, issuer, subject, email, created_at`

// LinkIdentity implements openid.Store.
func (s *Store) LinkIdentity(ctx context.Context, id openid.Identity) (openid.Identity, error) {
	err := s.db.QueryRowxContext(ctx, s.db.Reader().Rebind(`INSERT INTO auth_identities (user_id, provider, issuer, subject, email, created_at)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`), id.UserID, id.Provider, id.Issuer, id.Subject, id.Email, store.NewTime(id.CreatedAt)).Scan(&id.ID)
	switch {
	case store.IsUniqueViolation(err):
		return openid.Identity{}, openid.ErrLinked
	case store.IsForeignKeyViolation(err):
		return openid.Identity{}, openid.ErrNotFound
	case err != nil:
		return openid.Identity{}, fmt.Errorf("openidsql: link identity: %w", err)
	}
	return id, nil
}

// IdentityBySubject implements openid.Store.
func (s *Store) IdentityBySubject(ctx context.Context, issuer, subject string) (openid.Identity, error) {
	var r row
	err := s.db.Reader().GetContext(ctx, &r, s.db.Reader().Rebind(`SELECT `+columns+` FROM auth_identities WHERE issuer = ? AND subject = ?`),
		issuer, subject)
	if errors.Is(err, sql.ErrNoRows) {
		return openid.Identity{}, openid.ErrNotFound
	}
	if err != nil {
		return openid.Identity{}, fmt.Errorf("openidsql: identity: %w", err)
	}
	return r.identity(), nil
}

// Identities implements openid.Store.
func (s *Store) Identities(ctx context.Context, userID int64) ([]openid.Identity, error) {
	var rows []row
	if err := s.db.Reader().SelectContext(ctx, &rows, s.db.Reader().Rebind(`SELECT `+columns+` FROM auth_identities WHERE user_id = ? ORDER BY id`),
		userID); err != nil {
		return nil, fmt.Errorf("openidsql: identities: %w", err)
	}
	out := make([]openid.Identity, len(rows))
	for i, r := range rows {
		out[i] = r.identity()
	}
	return out, nil
}

// UnlinkIdentity implements openid.Store.
func (s *Store) UnlinkIdentity(ctx context.Context, userID, id int64) error {
	res, err := s.db.ExecContext(ctx, s.db.Reader().Rebind(`DELETE FROM auth_identities WHERE id = ? AND user_id = ?`), id, userID)
	if err != nil {
		return fmt.Errorf("openidsql: unlink identity: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("openidsql: unlink identity: %w", err)
	}
	if n == 0 {
		return openid.ErrNotFound
	}
	return nil
}

// Join returns the OpenID sign-in of o on env's database, its tables
// auth's (join auth first: authsql.Join). What o leaves unset comes from
// the environment: its Key (the environment's key for "openid"), Now,
// and its pages' BaseURL, Logger, Brand and Navigator.
func Join(env *store.Env, o openid.Options) (*openid.Handler, error) {
	if o.Key == nil {
		o.Key = env.Keys.For("openid")
	}
	if o.Now == nil {
		o.Now = env.Now
	}
	web := env.HTTPOptions(env.HTTP)
	if o.BaseURL == nil {
		o.BaseURL = web.BaseURL
	}
	o.Logger, o.Brand = cmp.Or(o.Logger, web.Logger), cmp.Or(o.Brand, web.Brand)
	if o.Navigator == nil {
		o.Navigator = web.Navigator
	}
	h, err := openid.New(New(env.DB), &o)
	if err != nil {
		return nil, err
	}
	return h, env.Join("openid", nil, nil)
}
