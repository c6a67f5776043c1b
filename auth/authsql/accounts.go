package authsql

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authstore"
	"github.com/groundwork-go/groundwork/store"
)

// SetName implements auth.Store.
func (s *Store) SetName(ctx context.Context, userID int64, name string, at time.Time) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE auth_users SET name = ?, updated_at = ? WHERE id = ?`), name, store.NewTime(at), userID)
	return oneRow(res, err, "set name of user %d", userID)
}

// SetEmail implements auth.Store.
func (s *Store) SetEmail(ctx context.Context, userID int64, email string, verifiedAt *time.Time, at time.Time) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE auth_users SET email = ?, email_verified_at = ?, updated_at = ? WHERE id = ?`),
		email, fromOptional(verifiedAt), store.NewTime(at), userID)
	if err != nil && store.IsUniqueViolation(err) {
		return auth.ErrEmailTaken
	}
	return oneRow(res, err, "set email of user %d", userID)
}

// DeleteUser implements auth.Store: one statement; the user's rows in the
// other auth tables go with theirs (ON DELETE CASCADE).
func (s *Store) DeleteUser(ctx context.Context, userID int64) error {
	res, err := s.db.On(ctx).ExecContext(ctx, s.db.Rebind(`DELETE FROM auth_users WHERE id = ?`), userID)
	return oneRow(res, err, "delete user %d", userID)
}

// TwoFactorOf implements auth.Store.
func (s *Store) TwoFactorOf(ctx context.Context, userID int64) (authstore.TwoFactorState, error) {
	var row struct {
		Secret      sql.NullString `db:"two_factor_secret"`
		ConfirmedAt store.Time     `db:"two_factor_confirmed_at"`
		LastStep    int64          `db:"two_factor_last_step"`
	}
	err := s.db.GetContext(ctx, &row, s.db.Rebind(`SELECT two_factor_secret, two_factor_confirmed_at, two_factor_last_step
		FROM auth_users WHERE id = ?`), userID)
	if err != nil {
		return authstore.TwoFactorState{}, notFound(err, "two-factor state of user %d", userID)
	}
	if !row.Secret.Valid {
		return authstore.TwoFactorState{}, auth.ErrNotFound
	}
	return authstore.TwoFactorState{SealedSecret: row.Secret.String, ConfirmedAt: optional(row.ConfirmedAt), LastStep: row.LastStep}, nil
}

// BeginTwoFactor implements auth.Store.
func (s *Store) BeginTwoFactor(ctx context.Context, userID int64, sealedSecret string, at time.Time) error {
	return s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE auth_users SET two_factor_secret = ?, two_factor_confirmed_at = NULL,
			two_factor_last_step = 0, updated_at = ? WHERE id = ?`), sealedSecret, store.NewTime(at), userID)
		if err := oneRow(res, err, "begin two-factor of user %d", userID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, tx.Rebind(`DELETE FROM auth_recovery_codes WHERE user_id = ?`), userID)
		return err
	})
}

// ConfirmTwoFactor implements auth.Store.
func (s *Store) ConfirmTwoFactor(ctx context.Context, userID int64, step int64, codeHashes [][]byte, at time.Time) error {
	return s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE auth_users SET two_factor_confirmed_at = ?, two_factor_last_step = ?, updated_at = ?
			WHERE id = ? AND two_factor_secret IS NOT NULL AND two_factor_confirmed_at IS NULL`), store.NewTime(at), step, store.NewTime(at), userID)
		if err := oneRow(res, err, "confirm two-factor of user %d", userID); err != nil {
			return err
		}
		return replaceCodes(ctx, tx, userID, codeHashes)
	})
}

func replaceCodes(ctx context.Context, tx *sqlx.Tx, userID int64, codeHashes [][]byte) error {
	if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM auth_recovery_codes WHERE user_id = ?`), userID); err != nil {
		return err
	}
	for _, h := range codeHashes {
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO auth_recovery_codes (user_id, code_hash) VALUES (?, ?)`), userID, h); err != nil {
			return err
		}
	}
	return nil
}

// UseTwoFactorStep implements auth.Store: one conditional UPDATE, which
// a second instance with the same step finds already done.
func (s *Store) UseTwoFactorStep(ctx context.Context, userID int64, step int64) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE auth_users SET two_factor_last_step = ?
		WHERE id = ? AND two_factor_confirmed_at IS NOT NULL AND two_factor_last_step < ?`), step, userID, step)
	return affected(res, err, "use two-factor code of user %d", userID)
}

func affected(res sql.Result, err error, format string, args ...any) (bool, error) {
	if err != nil {
		return false, fmt.Errorf("authsql: "+format+": %w", append(args, store.MapError(err))...)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("authsql: "+format+": %w", append(args, err)...)
	}
	return n == 1, nil
}

// ReplaceRecoveryCodes implements auth.Store.
func (s *Store) ReplaceRecoveryCodes(ctx context.Context, userID int64, codeHashes [][]byte) error {
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error { return replaceCodes(ctx, tx, userID, codeHashes) })
	if err != nil {
		return fmt.Errorf("authsql: replace recovery codes of user %d: %w", userID, err)
	}
	return nil
}

// UseRecoveryCode implements auth.Store.
func (s *Store) UseRecoveryCode(ctx context.Context, userID int64, codeHash []byte) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM auth_recovery_codes WHERE user_id = ? AND code_hash = ?`), userID, codeHash)
	return affected(res, err, "use recovery code of user %d", userID)
}

// RecoveryCodesLeft implements auth.Store.
func (s *Store) RecoveryCodesLeft(ctx context.Context, userID int64) (int, error) {
	var n int
	if err := s.db.GetContext(ctx, &n, s.db.Rebind(`SELECT COUNT(*) FROM auth_recovery_codes WHERE user_id = ?`), userID); err != nil {
		return 0, fmt.Errorf("authsql: count recovery codes of user %d: %w", userID, err)
	}
	return n, nil
}

// DisableTwoFactor implements auth.Store.
func (s *Store) DisableTwoFactor(ctx context.Context, userID int64, at time.Time) error {
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE auth_users SET two_factor_secret = NULL, two_factor_confirmed_at = NULL,
			two_factor_last_step = 0, updated_at = ? WHERE id = ?`), store.NewTime(at), userID); err != nil {
			return err
		}
		return replaceCodes(ctx, tx, userID, nil)
	})
	if err != nil {
		return fmt.Errorf("authsql: disable two-factor of user %d: %w", userID, err)
	}
	return nil
}

type passkeyRow struct {
	ID           int64      `db:"id"`
	UserID       int64      `db:"user_id"`
	CredentialID []byte     `db:"credential_id"`
	Credential   string     `db:"credential"`
	Name         string     `db:"name"`
	CreatedAt    store.Time `db:"created_at"`
	LastUsedAt   store.Time `db:"last_used_at"`
}

const passkeyColumns = `id, user_id, credential_id, credential, name, created_at, last_used_at`

func (r passkeyRow) passkey() auth.Passkey {
	return auth.Passkey{ID: r.ID, UserID: r.UserID, CredentialID: r.CredentialID, Credential: []byte(r.Credential), Name: r.Name,
		CreatedAt: r.CreatedAt.Time, LastUsedAt: optional(r.LastUsedAt)}
}

// AddPasskey implements auth.Store.
func (s *Store) AddPasskey(ctx context.Context, p auth.Passkey) (auth.Passkey, error) {
	var row passkeyRow
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`INSERT INTO auth_passkeys (user_id, credential_id, credential, name, created_at)
		VALUES (?, ?, ?, ?, ?) RETURNING `+passkeyColumns), p.UserID, p.CredentialID, string(p.Credential), p.Name, store.NewTime(p.CreatedAt)).StructScan(&row)
	if err != nil {
		if store.IsUniqueViolation(err) {
			return auth.Passkey{}, auth.ErrPasskeyTaken
		}
		return auth.Passkey{}, fmt.Errorf("authsql: add passkey: %w", store.MapError(err))
	}
	return row.passkey(), nil
}

// UserPasskeys implements auth.Store.
func (s *Store) UserPasskeys(ctx context.Context, userID int64) ([]auth.Passkey, error) {
	var rows []passkeyRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT `+passkeyColumns+` FROM auth_passkeys WHERE user_id = ? ORDER BY id`), userID); err != nil {
		return nil, fmt.Errorf("authsql: passkeys of user %d: %w", userID, err)
	}
	out := make([]auth.Passkey, len(rows))
	for i, r := range rows {
		out[i] = r.passkey()
	}
	return out, nil
}

// PasskeyByCredential implements auth.Store.
func (s *Store) PasskeyByCredential(ctx context.Context, credentialID []byte) (auth.Passkey, error) {
	var row passkeyRow
	if err := s.db.GetContext(ctx, &row, s.db.Rebind(`SELECT `+passkeyColumns+` FROM auth_passkeys WHERE credential_id = ?`), credentialID); err != nil {
		return auth.Passkey{}, notFound(err, "passkey")
	}
	return row.passkey(), nil
}

// UsePasskey implements auth.Store.
func (s *Store) UsePasskey(ctx context.Context, id int64, credential []byte, at time.Time) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE auth_passkeys SET credential = ?, last_used_at = ? WHERE id = ?`),
		string(credential), store.NewTime(at), id)
	return oneRow(res, err, "use passkey %d", id)
}

// DeletePasskey implements auth.Store.
func (s *Store) DeletePasskey(ctx context.Context, userID, id int64) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM auth_passkeys WHERE id = ? AND user_id = ?`), id, userID)
	return oneRow(res, err, "delete passkey %d", id)
}
