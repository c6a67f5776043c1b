package driverless

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
)

// The causes [Unavailable] names, as a log line or a readiness check
// says them.
const (
	CauseDiskFull    = "the disk is full"
	CauseReadOnly    = "the database is read-only"
	CauseBusy        = "the database is busy"
	CauseFile        = "the database file cannot be read or written"
	CauseNoAnswer    = "the database does not answer"
	CauseRestarting  = "the database is restarting"
	CauseConnections = "the database has no free connections"
)

// Unavailable reports whether err says the database cannot serve at the moment
// rather than that the request or the code is wrong: the connection
// refused, reset or closed, the server shutting down or starting, no
// connection slot free, the disk full, the file or the server read-only,
// a lock held past the busy timeout. Such a failure is worth answering
// 503 with a Retry-After, not 500: it passes by itself. cause says which,
// in words (one of the Cause constants). It reads the drivers' errors by
// the methods they have (SQLState for Postgres, Code for SQLite), so it
// links neither driver.
func Unavailable(err error) (cause string, ok bool) {
	if err == nil {
		return "", false
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		if c := pgCause(pg.SQLState()); c != "" {
			return c, true
		}
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		if c := sqliteCause(lite.Code()); c != "" {
			return c, true
		}
	}
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return CauseDiskFull, true
	case errors.Is(err, syscall.EROFS):
		return CauseReadOnly, true
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return CauseNoAnswer, true
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return CauseNoAnswer, true
	}
	// pgconn marks the failures of a connection that sent nothing (it
	// could not connect, or the connection was closed) as safe to retry.
	var retry interface{ SafeToRetry() bool }
	if errors.As(err, &retry) && retry.SafeToRetry() {
		return CauseNoAnswer, true
	}
	// pgx reports a connection it could not make in words only.
	if strings.Contains(err.Error(), "failed to connect to") {
		return CauseNoAnswer, true
	}
	return "", false
}

// pgCause names a Postgres SQLSTATE that says the server cannot serve at
// the moment; "" for any other.
func pgCause(state string) string {
	switch {
	case strings.HasPrefix(state, "08"): // connection exception
		return CauseNoAnswer
	case state == "57P01", state == "57P02", state == "57P03": // admin or crash shutdown, cannot connect now
		return CauseRestarting
	case state == "53300": // too_many_connections
		return CauseConnections
	case state == "53100": // disk_full
		return CauseDiskFull
	case state == "25006": // read_only_sql_transaction (a standby)
		return CauseReadOnly
	}
	return ""
}

// The SQLite primary result codes that say the database cannot serve at
// the moment.
const (
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteReadOnly = 8
	sqliteIOErr    = 10
	sqliteFull     = 13
	sqliteCantOpen = 14
)

// sqliteCause names an SQLite result code (extended or not) that says the
// database cannot serve at the moment; "" for any other.
func sqliteCause(code int) string {
	switch code & 0xff {
	case sqliteBusy, sqliteLocked:
		return CauseBusy
	case sqliteReadOnly:
		return CauseReadOnly
	case sqliteFull:
		return CauseDiskFull
	case sqliteIOErr, sqliteCantOpen:
		return CauseFile
	}
	return ""
}
