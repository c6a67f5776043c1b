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

// A service begins the transaction its steps share; a store method called
// with the context it gives joins it (through InTx, in a savepoint, or
// On(ctx) for one statement), so the steps commit together or not at all.
func ExampleDB_RunInTx() {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite::memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT); CREATE TABLE outbox (order_id INTEGER)`); err != nil {
		panic(err)
	}
	// placeOrder is a store method: one statement, on the caller's
	// transaction when ctx carries one.
	placeOrder := func(ctx context.Context, item string) (int64, error) {
		res, err := db.On(ctx).ExecContext(ctx, `INSERT INTO orders (item) VALUES (?)`, item)
		if err != nil {
			return 0, err
		}
		return res.LastInsertId()
	}
	// The service: the order and its message, all or nothing.
	checkout := func(item string, fail bool) error {
		return db.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			id, err := placeOrder(ctx, item)
			if err != nil {
				return err
			}
			if fail {
				return fmt.Errorf("the outbox is full")
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO outbox (order_id) VALUES (?)`, id)
			return err
		})
	}
	fmt.Println(checkout("tea", false), checkout("cake", true))
	var orders, messages int
	_ = db.GetContext(ctx, &orders, `SELECT COUNT(*) FROM orders`)
	_ = db.GetContext(ctx, &messages, `SELECT COUNT(*) FROM outbox`)
	fmt.Println(orders, messages)
	// Output:
	// <nil> the outbox is full
	// 1 1
}
