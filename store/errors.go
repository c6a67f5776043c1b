package store

import (
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/groundwork-go/groundwork/store/driverless"
)

// Sentinels that store code returns whatever the database. Test with
// errors.Is.
var (
	// ErrConflict reports a unique or primary-key violation.
	ErrConflict = errors.New("store: conflict")
	// ErrNotFound reports that a row asked for does not exist.
	ErrNotFound = errors.New("store: not found")
	// ErrNotMigrated reports a table that does not exist: the Migrate
	// call that makes it has not run (the error's text names it).
	ErrNotMigrated = driverless.ErrNotMigrated
)

// MapError turns what the drivers report into this package's sentinels:
// sql.ErrNoRows becomes [ErrNotFound], and a unique or primary-key
// violation from SQLite or Postgres becomes [ErrConflict], and a missing
// table [ErrNotMigrated] with the Migrate call that makes it. The original
// error stays in the chain for logs. Any other error is returned as is,
// and nil stays nil.
func MapError(err error) error {
	switch {
	case err == nil, errors.Is(err, ErrConflict), errors.Is(err, ErrNotFound):
		return err
	case errors.Is(err, sql.ErrNoRows):
		return &mappedError{kind: ErrNotFound, err: err}
	case isUniqueViolation(err):
		return &mappedError{kind: ErrConflict, err: err}
	}
	return driverless.ExplainMissingTable(err)
}

// IsUniqueViolation reports whether err is a unique or primary-key
// violation from either database, mapped or not.
func IsUniqueViolation(err error) bool {
	return errors.Is(err, ErrConflict) || isUniqueViolation(err)
}

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505" // unique_violation
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		code := liteErr.Code()
		return code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// IsForeignKeyViolation reports whether err is a foreign-key violation
// from either database: a row refers to one that does not exist (or
// still has rows referring to it).
func IsForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23503" // foreign_key_violation
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		return liteErr.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
	}
	return false
}

type mappedError struct {
	kind error
	err  error
}

func (e *mappedError) Error() string   { return e.err.Error() }
func (e *mappedError) Unwrap() []error { return []error{e.kind, e.err} }
