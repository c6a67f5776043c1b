package store_test

import (
	"context"
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
