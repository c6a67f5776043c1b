package authsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authstore"
	"github.com/groundwork-go/groundwork/store"
)

type userRow struct {
	ID              int64                `db:"id"`
	Name            string               `db:"name"`
	Email           string               `db:"email"`
	PasswordHash    string               `db:"password_hash"`
	EmailVerifiedAt store.Time           `db:"email_verified_at"`
	Capabilities    store.JSON[[]string] `db:"capabilities"`
	TwoFactorAt     store.Time           `db:"two_factor_confirmed_at"`
	DisabledAt      store.Time           `db:"disabled_at"`
	CreatedAt       store.Time           `db:"created_at"`
	UpdatedAt       store.Time           `db:"updated_at"`
}

const userColumns = `id, name, email, password_hash, email_verified_at, capabilities, two_factor_confirmed_at, disabled_at, created_at, updated_at`

func (r userRow) user() auth.User {
	caps := r.Capabilities.V
	if caps == nil {
		caps = []string{}
	}
	return auth.User{ID: r.ID, Name: r.Name, Email: r.Email, EmailVerifiedAt: optional(r.EmailVerifiedAt),
		Capabilities: caps, TwoFactorConfirmedAt: optional(r.TwoFactorAt), DisabledAt: optional(r.DisabledAt), CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time}
}

// notFound turns "no rows" into auth.ErrNotFound and wraps anything else.
func notFound(err error, format string, args ...any) error {
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		return auth.ErrNotFound
	}
	return fmt.Errorf("authsql: "+format+": %w", append(args, store.MapError(err))...)
}

// oneRow checks that an UPDATE or DELETE found its row.
func oneRow(res sql.Result, err error, format string, args ...any) error {
	if err != nil {
		return fmt.Errorf("authsql: "+format+": %w", append(args, err)...)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("authsql: "+format+": %w", append(args, err)...)
	}
	if n == 0 {
		return auth.ErrNotFound
	}
	return nil
}

// CreateUser implements auth.Store.
func (s *Store) CreateUser(ctx context.Context, u auth.User, passwordHash string) (auth.User, error) {
	caps := u.Capabilities
	if caps == nil {
		caps = []string{}
	}
	var row userRow
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`INSERT INTO auth_users
		(name, email, password_hash, email_verified_at, capabilities, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING `+userColumns),
		u.Name, u.Email, passwordHash, fromOptional(u.EmailVerifiedAt), store.JSON[[]string]{V: caps},
		store.NewTime(u.CreatedAt), store.NewTime(u.UpdatedAt)).StructScan(&row)
	if err != nil {
		if store.IsUniqueViolation(err) {
			return auth.User{}, auth.ErrEmailTaken
		}
		return auth.User{}, fmt.Errorf("authsql: create user: %w", err)
	}
	return row.user(), nil
}

// UserByID implements auth.Store.
func (s *Store) UserByID(ctx context.Context, id int64) (auth.User, string, error) {
	var row userRow
	if err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT `+userColumns+` FROM auth_users WHERE id = ?`), id); err != nil {
		return auth.User{}, "", notFound(err, "user %d", id)
	}
	return row.user(), row.PasswordHash, nil
}

// UserByEmail implements auth.Store.
func (s *Store) UserByEmail(ctx context.Context, email string) (auth.User, string, error) {
	var row userRow
	if err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT `+userColumns+` FROM auth_users WHERE email = ?`), email); err != nil {
		return auth.User{}, "", notFound(err, "user by email")
	}
	return row.user(), row.PasswordHash, nil
}

// likeEscaper escapes LIKE's wildcards (and its escape) in a search.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// ListUsers implements auth.Store: one indexed range of IDs, filtered by
// the search.
func (s *Store) ListUsers(ctx context.Context, q auth.UserQuery) ([]auth.User, error) {
	query, args := `SELECT `+userColumns+` FROM auth_users WHERE id > ?`, []any{q.After}
	if q.Search != "" {
		pattern := "%" + likeEscaper.Replace(strings.ToLower(q.Search)) + "%"
		query += ` AND (email LIKE ? ESCAPE '\' OR lower(name) LIKE ? ESCAPE '\')`
		args = append(args, pattern, pattern)
	}
	query += ` ORDER BY id`
	if q.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, q.Limit)
	}
	var rows []userRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(query), args...); err != nil {
		return nil, fmt.Errorf("authsql: list users: %w", err)
	}
	out := make([]auth.User, len(rows))
	for i, r := range rows {
		out[i] = r.user()
	}
	return out, nil
}

// SetDisabled implements auth.Store.
func (s *Store) SetDisabled(ctx context.Context, userID int64, disabledAt *time.Time, at time.Time) error {
	res, err := s.db.On(ctx).ExecContext(ctx, s.db.Rebind(`UPDATE auth_users SET disabled_at = ?, updated_at = ? WHERE id = ?`),
		fromOptional(disabledAt), store.NewTime(at), userID)
	return oneRow(res, err, "disable user %d", userID)
}

// SetPasswordHash implements auth.Store.
func (s *Store) SetPasswordHash(ctx context.Context, userID int64, hash string, at time.Time) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE auth_users SET password_hash = ?, updated_at = ? WHERE id = ?`),
		hash, store.NewTime(at), userID)
	return oneRow(res, err, "set password of user %d", userID)
}

// MarkEmailVerified implements auth.Store.
func (s *Store) MarkEmailVerified(ctx context.Context, userID int64, at time.Time) error {
	t := store.NewTime(at)
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE auth_users SET email_verified_at = COALESCE(email_verified_at, ?), updated_at = ? WHERE id = ?`),
		t, t, userID)
	return oneRow(res, err, "verify email of user %d", userID)
}

// SetCapabilities implements auth.Store.
func (s *Store) SetCapabilities(ctx context.Context, userID int64, capabilities []string, at time.Time) error {
	if capabilities == nil {
		capabilities = []string{}
	}
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE auth_users SET capabilities = ?, updated_at = ? WHERE id = ?`),
		store.JSON[[]string]{V: capabilities}, store.NewTime(at), userID)
	return oneRow(res, err, "set capabilities of user %d", userID)
}

type sessionRow struct {
	IDHash              []byte     `db:"id_hash"`
	UserID              int64      `db:"user_id"`
	CreatedAt           store.Time `db:"session_created_at"`
	LastSeenAt          store.Time `db:"last_seen_at"`
	PasswordConfirmedAt store.Time `db:"password_confirmed_at"`
	UserAgent           string     `db:"user_agent"`
	IP                  string     `db:"ip"`
	Place               string     `db:"place"`
}

func (r sessionRow) session() authstore.Session {
	return authstore.Session{IDHash: r.IDHash, UserID: r.UserID, CreatedAt: r.CreatedAt.Time, LastSeenAt: r.LastSeenAt.Time,
		PasswordConfirmedAt: r.PasswordConfirmedAt.Time, UserAgent: r.UserAgent, IP: r.IP, Place: r.Place}
}

const sessionColumns = `s.id_hash, s.user_id, s.created_at AS session_created_at, s.last_seen_at, s.password_confirmed_at, s.user_agent, s.ip, s.place`

// CreateSession implements auth.Store.
func (s *Store) CreateSession(ctx context.Context, ss authstore.Session) error {
	_, err := s.db.ExecContext(ctx, s.db.Rebind(`INSERT INTO auth_sessions (id_hash, user_id, created_at, last_seen_at, password_confirmed_at, user_agent, ip, place)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), ss.IDHash, ss.UserID, store.NewTime(ss.CreatedAt), store.NewTime(ss.LastSeenAt), store.NewTime(ss.PasswordConfirmedAt),
		ss.UserAgent, ss.IP, ss.Place)
	if err != nil {
		return fmt.Errorf("authsql: create session: %w", store.MapError(err))
	}
	return nil
}

// SessionByHash implements auth.Store: one read, the session joined to
// its user by primary keys.
func (s *Store) SessionByHash(ctx context.Context, idHash []byte) (authstore.Session, auth.User, error) {
	var row struct {
		sessionRow
		userRow
	}
	err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT `+sessionColumns+`, u.id, u.name, u.email, u.password_hash,
		u.email_verified_at, u.capabilities, u.two_factor_confirmed_at, u.disabled_at, u.created_at, u.updated_at
		FROM auth_sessions s JOIN auth_users u ON u.id = s.user_id WHERE s.id_hash = ?`), idHash)
	if err != nil {
		return authstore.Session{}, auth.User{}, notFound(err, "session")
	}
	return row.session(), row.user(), nil
}

// exec runs one statement, in the caller's transaction if ctx carries one.
func (s *Store) exec(ctx context.Context, what, query string, args ...any) error {
	if _, err := s.db.On(ctx).ExecContext(ctx, s.db.Rebind(query), args...); err != nil {
		return fmt.Errorf("authsql: %s: %w", what, err)
	}
	return nil
}

// TouchSession implements auth.Store.
func (s *Store) TouchSession(ctx context.Context, idHash []byte, at time.Time, confirmed bool) error {
	t := store.NewTime(at)
	if confirmed {
		return s.exec(ctx, "confirm password", `UPDATE auth_sessions SET password_confirmed_at = ?,
			last_seen_at = CASE WHEN last_seen_at < ? THEN ? ELSE last_seen_at END WHERE id_hash = ?`, t, t, t, idHash)
	}
	return s.exec(ctx, "touch session", `UPDATE auth_sessions SET last_seen_at = ? WHERE id_hash = ? AND last_seen_at < ?`, t, idHash, t)
}

// DeleteSession implements auth.Store.
func (s *Store) DeleteSession(ctx context.Context, idHash []byte) error {
	return s.exec(ctx, "delete session", `DELETE FROM auth_sessions WHERE id_hash = ?`, idHash)
}

// DeleteUserSessions implements auth.Store.
func (s *Store) DeleteUserSessions(ctx context.Context, userID int64) error {
	return s.exec(ctx, "delete sessions", `DELETE FROM auth_sessions WHERE user_id = ?`, userID)
}

// ListUserSessions implements auth.Store.
func (s *Store) ListUserSessions(ctx context.Context, userID int64) ([]authstore.Session, error) {
	var rows []sessionRow
	err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT `+sessionColumns+` FROM auth_sessions s
		WHERE s.user_id = ? ORDER BY s.last_seen_at DESC, s.created_at DESC`), userID)
	if err != nil {
		return nil, fmt.Errorf("authsql: list sessions of user %d: %w", userID, err)
	}
	out := make([]authstore.Session, len(rows))
	for i, r := range rows {
		out[i] = r.session()
	}
	return out, nil
}

// DeleteOtherSessions implements auth.Store.
func (s *Store) DeleteOtherSessions(ctx context.Context, userID int64, keep []byte) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM auth_sessions WHERE user_id = ? AND id_hash <> ?`), userID, keep)
	if err != nil {
		return 0, fmt.Errorf("authsql: sign out other sessions of user %d: %w", userID, err)
	}
	return res.RowsAffected()
}

// CreateRememberToken implements auth.Store.
func (s *Store) CreateRememberToken(ctx context.Context, t authstore.RememberToken) error {
	return s.exec(ctx, "create remember token", `INSERT INTO auth_remember_tokens (selector, validator_hash, user_id, expires_at, created_at)
		VALUES (?, ?, ?, ?, ?)`, t.Selector, t.ValidatorHash, t.UserID, store.NewTime(t.ExpiresAt), store.NewTime(t.CreatedAt))
}

// TakeRememberToken implements auth.Store.
func (s *Store) TakeRememberToken(ctx context.Context, selector string) (authstore.RememberToken, error) {
	var row struct {
		Selector      string     `db:"selector"`
		ValidatorHash []byte     `db:"validator_hash"`
		UserID        int64      `db:"user_id"`
		ExpiresAt     store.Time `db:"expires_at"`
		CreatedAt     store.Time `db:"created_at"`
	}
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`DELETE FROM auth_remember_tokens WHERE selector = ?
		RETURNING selector, validator_hash, user_id, expires_at, created_at`), selector).StructScan(&row)
	if err != nil {
		return authstore.RememberToken{}, notFound(err, "take remember token")
	}
	return authstore.RememberToken{Selector: row.Selector, ValidatorHash: row.ValidatorHash, UserID: row.UserID,
		ExpiresAt: row.ExpiresAt.Time, CreatedAt: row.CreatedAt.Time}, nil
}

// DeleteUserRememberTokens implements auth.Store.
func (s *Store) DeleteUserRememberTokens(ctx context.Context, userID int64) error {
	return s.exec(ctx, "delete remember tokens", `DELETE FROM auth_remember_tokens WHERE user_id = ?`, userID)
}

type resetRow struct {
	UserID    int64      `db:"user_id"`
	TokenHash []byte     `db:"token_hash"`
	CreatedAt store.Time `db:"created_at"`
}

func (r resetRow) reset() authstore.PasswordReset {
	return authstore.PasswordReset{UserID: r.UserID, TokenHash: r.TokenHash, CreatedAt: r.CreatedAt.Time}
}

// PutPasswordReset implements auth.Store.
func (s *Store) PutPasswordReset(ctx context.Context, r authstore.PasswordReset) error {
	return s.exec(ctx, "put password reset", `INSERT INTO auth_password_resets (user_id, token_hash, created_at) VALUES (?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at`,
		r.UserID, r.TokenHash, store.NewTime(r.CreatedAt))
}

// PasswordResetOf implements auth.Store.
func (s *Store) PasswordResetOf(ctx context.Context, userID int64) (authstore.PasswordReset, error) {
	var row resetRow
	err := s.db.GetContext(ctx, &row, s.db.Rebind(`SELECT user_id, token_hash, created_at FROM auth_password_resets WHERE user_id = ?`), userID)
	if err != nil {
		return authstore.PasswordReset{}, notFound(err, "password reset")
	}
	return row.reset(), nil
}

// TakePasswordReset implements auth.Store.
func (s *Store) TakePasswordReset(ctx context.Context, userID int64, tokenHash []byte) (authstore.PasswordReset, error) {
	var row resetRow
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`DELETE FROM auth_password_resets WHERE user_id = ? AND token_hash = ?
		RETURNING user_id, token_hash, created_at`), userID, tokenHash).StructScan(&row)
	if err != nil {
		return authstore.PasswordReset{}, notFound(err, "take password reset")
	}
	return row.reset(), nil
}

// Prune implements auth.Store.
func (s *Store) Prune(ctx context.Context, p authstore.Prune) (int64, error) {
	var total int64
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		for _, q := range []struct {
			query string
			args  []any
		}{
			{`DELETE FROM auth_sessions WHERE last_seen_at < ? OR created_at < ?`, []any{store.NewTime(p.IdleBefore), store.NewTime(p.CreatedBefore)}},
			{`DELETE FROM auth_remember_tokens WHERE expires_at <= ?`, []any{store.NewTime(p.Now)}},
			{`DELETE FROM auth_password_resets WHERE created_at < ?`, []any{store.NewTime(p.ResetsBefore)}},
		} {
			res, err := tx.ExecContext(ctx, tx.Rebind(q.query), q.args...)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			total += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("authsql: prune: %w", err)
	}
	return total, nil
}
