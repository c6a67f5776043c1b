package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/store"
)

// Open a database, migrate it, and write inside a transaction.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "groundwork-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "app.db")) // or "postgres://..."
	if err != nil {
		panic(err)
	}
	defer db.Close()
	// River's tables and the core tables; pass each domain's Migrations too.
	if err := store.Migrate(ctx, db); err != nil {
		panic(err)
	}

	err = db.InTx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, tx.Rebind(`CREATE TABLE notes (body TEXT UNIQUE)`))
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, tx.Rebind(`INSERT INTO notes (body) VALUES (?), (?)`), "a", "a")
		return err
	})
	fmt.Println(db.Dialect(), err != nil, store.IsUniqueViolation(err))
	// Output: sqlite true true
}

// A host that already has a pool hands it to groundwork, which migrates
// its own tables beside the host's and leaves the pool to the host.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "groundwork-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	pool, err := sql.Open("sqlite", store.SQLiteDSN(filepath.Join(dir, "app.db"))) // or sql.Open("pgx", url)
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	db, err := store.New(ctx, pool)
	if err != nil {
		panic(err)
	}
	// No queue in this host: no River tables either.
	if err := store.MigrateWithOptions(ctx, db, &store.MigrateOptions{WithoutQueue: true}); err != nil {
		panic(err)
	}
	versions, _ := store.AppliedVersions(ctx, db, "core")
	fmt.Println(db.Dialect(), len(versions) > 0)
	// Output: sqlite true
}
