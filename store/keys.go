package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrKeyMismatch: the key given is not the one the database was first used
// with.
var ErrKeyMismatch = errors.New("store: key mismatch")

// KeyFingerprint names key without revealing it: the hex HMAC-SHA256 of a
// fixed label under the key. Two keys share a fingerprint only if they
// are the same key.
func KeyFingerprint(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("groundwork key fingerprint"))
	return hex.EncodeToString(m.Sum(nil))
}

// KeyMismatchError says which key differs from the one recorded.
type KeyMismatchError struct {
	Name string
	// Recorded is when the database first saw its key.
	Recorded time.Time
	// Want and Got are the first characters of the fingerprints.
	Want, Got string
}

// Error implements error.
func (e *KeyMismatchError) Error() string {
	return fmt.Sprintf("store: the %s key is not the one this database has used since %s (fingerprint %s…, this instance has %s…); "+
		"every instance on a database must be given the same key", e.Name, e.Recorded.UTC().Format(time.RFC3339), e.Want, e.Got)
}

// Is matches ErrKeyMismatch.
func (e *KeyMismatchError) Is(target error) bool { return target == ErrKeyMismatch }

// CheckKey compares key with the fingerprint recorded under name, and
// fails with a *KeyMismatchError when they differ. A database that has
// recorded none (or has no table for them yet, before its first
// migration) passes: call it before Migrate, so an instance with the
// wrong key changes nothing, and RecordKey after.
func CheckKey(ctx context.Context, db *DB, name string, key []byte) error {
	var row struct {
		Fingerprint string `db:"fingerprint"`
		CreatedAt   Time   `db:"created_at"`
	}
	err := db.GetContext(ctx, &row, db.Rebind(`SELECT fingerprint, created_at FROM groundwork_keys WHERE name = ?`), name)
	switch {
	case errors.Is(MapError(err), ErrNotFound), isMissingTable(err):
		return nil
	case err != nil:
		return fmt.Errorf("store: check key %s: %w", name, err)
	}
	got := KeyFingerprint(key)
	if subtle.ConstantTimeCompare([]byte(got), []byte(row.Fingerprint)) != 1 {
		return &KeyMismatchError{Name: name, Recorded: row.CreatedAt.Time, Want: row.Fingerprint[:min(8, len(row.Fingerprint))], Got: got[:8]}
	}
	return nil
}

// RecordKey records key's fingerprint under name if none is, and then
// checks it as CheckKey does: of instances starting at once with different
// keys, the first to record wins and the others fail.
func RecordKey(ctx context.Context, db *DB, name string, key []byte) error {
	_, err := db.ExecContext(ctx, db.Rebind(`INSERT INTO groundwork_keys (name, fingerprint, created_at) VALUES (?, ?, ?)
		ON CONFLICT (name) DO NOTHING`), name, KeyFingerprint(key), NewTime(time.Now()))
	if err != nil {
		return fmt.Errorf("store: record key %s: %w", name, err)
	}
	return CheckKey(ctx, db, name, key)
}

// isMissingTable reports whether err says a table does not exist.
func isMissingTable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "42P01" // undefined_table
	}
	return err != nil && strings.Contains(err.Error(), "no such table")
}
