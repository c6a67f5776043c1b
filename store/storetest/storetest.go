// Package storetest gives each test a database of its own: a SQLite file
// under t.TempDir(), and, when the environment variable TEST_DATABASE_URL
// names a Postgres database, a fresh schema in it that is dropped when the
// test ends. Store suites run on every dialect with [ForEach].
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/store"
)

// EnvPostgres is the variable that names the Postgres database tests may
// use, e.g. postgres://postgres@127.0.0.1:5432/groundwork_test.
const EnvPostgres = "TEST_DATABASE_URL"

// TestMaxOpenConns caps each test's pool, so that many tests at once stay
// under Postgres's connection limit.
const TestMaxOpenConns = 8

// Dialects lists SQLite, and Postgres when TEST_DATABASE_URL is set.
func Dialects() []store.Dialect {
	if os.Getenv(EnvPostgres) == "" {
		return []store.Dialect{store.SQLite}
	}
	return []store.Dialect{store.SQLite, store.Postgres}
}

// ForEach runs fn as a parallel subtest, named after the dialect, for
// each of [Dialects].
func ForEach(t *testing.T, fn func(t *testing.T, d store.Dialect)) {
	t.Helper()
	for _, d := range Dialects() {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			fn(t, d)
		})
	}
}

// DSN returns the address of a fresh, empty database of dialect d, which
// lives until the test ends. Open it as often as the test likes: every
// opening reaches the same database. A Postgres DSN without
// TEST_DATABASE_URL skips the test.
func DSN(t testing.TB, d store.Dialect) string {
	t.Helper()
	if d == store.SQLite {
		return "sqlite:" + filepath.Join(t.TempDir(), "test.db")
	}
	base := os.Getenv(EnvPostgres)
	if base == "" {
		t.Skip(EnvPostgres + " is not set")
	}
	admin := adminDB(t, base)
	schema := "gwtest_" + strings.ToLower(rand.Text())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("storetest: create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// A process the test stopped may leave a session behind for a
		// moment, mid-transaction; Postgres then picks the drop as a
		// deadlock's victim. Once it is gone the drop goes through.
		var err error
		for attempt := 0; attempt < 5; attempt++ {
			if _, err = admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err == nil || !strings.Contains(err.Error(), "40P01") {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			t.Errorf("storetest: drop schema: %v", err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("storetest: %s does not parse", EnvPostgres)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// OpenDSN opens dsn, migrates it with lines, and closes it when the test
// ends.
func OpenDSN(t testing.TB, dsn string, lines ...store.Migrations) *store.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("storetest: open: %v", err)
	}
	if db.Dialect() == store.Postgres {
		db.SetMaxOpenConns(TestMaxOpenConns)
		db.SetMaxIdleConns(TestMaxOpenConns)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := store.Migrate(ctx, db, lines...); err != nil {
		t.Fatalf("storetest: migrate: %v", err)
	}
	return db
}

// Open returns a fresh database of dialect d, migrated with lines (River's
// and the core tables always), closed when the test ends. A SQLite one is
// a copy of a database migrated once per test binary and set of lines, so
// a test pays for a file copy rather than for every migration.
func Open(t testing.TB, d store.Dialect, lines ...store.Migrations) *store.DB {
	t.Helper()
	if d != store.SQLite {
		return OpenDSN(t, DSN(t, d), lines...)
	}
	image, err := migratedImage(lines)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	path := filepath.Join(t.TempDir(), "test.db")
	if err := os.WriteFile(path, image, 0o600); err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return OpenDSN(t, "sqlite:"+path, lines...)
}

// images are the migrated SQLite files, by their lines' names.
var images sync.Map // string → *image

type image struct {
	once  sync.Once
	bytes []byte
	err   error
}

// migratedImage is the bytes of a SQLite database migrated with lines,
// made once per test binary and set of lines.
func migratedImage(lines []store.Migrations) ([]byte, error) {
	names := make([]string, len(lines))
	for i, l := range lines {
		names[i] = l.Line
	}
	v, _ := images.LoadOrStore(strings.Join(names, ","), &image{})
	img := v.(*image)
	img.once.Do(func() {
		dir, err := os.MkdirTemp("", "groundwork-storetest-")
		if err != nil {
			img.err = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "image.db")
		ctx := context.Background()
		db, err := store.Open(ctx, "sqlite:"+path)
		if err != nil {
			img.err = err
			return
		}
		err = store.Migrate(ctx, db, lines...)
		// Closing the last connection checkpoints the WAL into the file.
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			img.bytes, err = os.ReadFile(path)
		}
		img.err = err
	})
	return img.bytes, img.err
}

var admin struct {
	once sync.Once
	db   *sql.DB
	err  error
}

// adminDB is one pool per test binary for creating and dropping schemas.
func adminDB(t testing.TB, base string) *sql.DB {
	admin.once.Do(func() {
		var db *store.DB
		db, admin.err = store.Open(context.Background(), base)
		if admin.err == nil {
			db.SetMaxOpenConns(2)
			admin.db = db.DB.DB
		}
	})
	if admin.err != nil {
		t.Fatalf("storetest: connect to %s: %v", EnvPostgres, admin.err)
	}
	return admin.db
}

// Page cuts the window [offset, offset+limit) out of items, as LIMIT and
// OFFSET do, for the in-memory fakes of the stores.
func Page[T any](items []T, offset, limit int) []T {
	if offset >= len(items) {
		return []T{}
	}
	return items[offset:min(len(items), offset+limit)]
}

// Temp is a fresh SQLite database in a new temporary directory, migrated
// with lines, for an Example or a program without a testing.T; done
// closes it and removes the directory. It panics when SQLite cannot be
// opened there.
func Temp(lines ...store.Migrations) (db *store.DB, done func()) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "groundwork-")
	if err != nil {
		panic(fmt.Sprintf("storetest: temp: %v", err))
	}
	db, err = store.Open(ctx, "sqlite:"+filepath.Join(dir, "app.db"))
	if err == nil {
		err = store.Migrate(ctx, db, lines...)
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		panic(fmt.Sprintf("storetest: temp: %v", err))
	}
	return db, func() {
		_ = db.Close()
		_ = os.RemoveAll(dir)
	}
}
