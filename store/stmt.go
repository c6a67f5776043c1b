package store

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
)

// stmtCacheMax caps the statements a StmtCache keeps: queries built with a
// varying number of placeholders past it are run unprepared.
const stmtCacheMax = 256

// StmtCache prepares each query once and reuses it, for the statements a
// hot path runs again and again. On SQLite database/sql would otherwise
// have the driver compile the SQL on every call, a good share of a short
// statement's cost; the cache prepares it once on the write pool, and in a
// transaction binds the prepared statement to it. On Postgres pgx caches
// prepared statements per connection by itself, and the cache runs queries
// as they are.
//
// Queries are given as the database takes them (after Rebind).
type StmtCache struct {
	db     *DB
	wg     sync.WaitGroup
	mu     sync.Mutex
	stmts  map[string]*sqlx.Stmt // nil while being prepared
	closed bool
}

// NewStmtCache returns a cache on db's write pool.
func NewStmtCache(db *DB) *StmtCache {
	return &StmtCache{db: db, stmts: map[string]*sqlx.Stmt{}}
}

// stmt returns query prepared on the write pool, or nil to run it as it
// is. A query seen for the first time runs unprepared while it is prepared
// in the background: preparing needs a connection of the write pool, which
// a transaction in progress may be holding (on SQLite it has one).
func (c *StmtCache) stmt(query string) *sqlx.Stmt {
	if c.db.dialect != SQLite {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.stmts[query]; ok {
		return st // nil while being prepared or when it would not prepare
	}
	if len(c.stmts) >= stmtCacheMax || c.closed {
		return nil
	}
	c.stmts[query] = nil
	c.wg.Add(1)
	go c.prepare(query)
	return nil
}

// prepare prepares query on the write pool and keeps it.
func (c *StmtCache) prepare(query string) {
	defer c.wg.Done()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := c.db.PreparexContext(ctx, query)
	if err != nil {
		return // left as nil: the plain call reports the error
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		_ = st.Close()
		return
	}
	c.stmts[query] = st
}

// on is the prepared query bound to tx (or on the pool when tx is nil),
// or nil.
func (c *StmtCache) on(ctx context.Context, tx *sqlx.Tx, query string) *sqlx.Stmt {
	st := c.stmt(query)
	tx = c.joined(ctx, tx)
	if st == nil || tx == nil {
		return st
	}
	return tx.StmtxContext(ctx, st)
}

// joined is tx, or when it is nil the transaction of the cache's DB that
// ctx carries (see [DB.RunInTx]), or nil.
func (c *StmtCache) joined(ctx context.Context, tx *sqlx.Tx) *sqlx.Tx {
	if tx == nil {
		tx, _ = ctx.Value(txKey{c.db}).(*sqlx.Tx)
	}
	return tx
}

// ExecContext runs query in tx; when tx is nil, in the transaction ctx
// carries (see [DB.RunInTx]), or else on the write pool.
func (c *StmtCache) ExecContext(ctx context.Context, tx *sqlx.Tx, query string, args ...any) (sql.Result, error) {
	if st := c.on(ctx, tx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	if tx = c.joined(ctx, tx); tx != nil {
		return tx.ExecContext(ctx, query, args...)
	}
	return c.db.ExecContext(ctx, query, args...)
}

// QueryContext runs query as ExecContext does.
func (c *StmtCache) QueryContext(ctx context.Context, tx *sqlx.Tx, query string, args ...any) (*sql.Rows, error) {
	if st := c.on(ctx, tx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	if tx = c.joined(ctx, tx); tx != nil {
		return tx.QueryContext(ctx, query, args...)
	}
	return c.db.QueryContext(ctx, query, args...)
}

// QueryRowContext runs query as ExecContext does.
func (c *StmtCache) QueryRowContext(ctx context.Context, tx *sqlx.Tx, query string, args ...any) *sqlx.Row {
	if st := c.on(ctx, tx, query); st != nil {
		return st.QueryRowxContext(ctx, args...)
	}
	if tx = c.joined(ctx, tx); tx != nil {
		return tx.QueryRowxContext(ctx, query, args...)
	}
	return c.db.QueryRowxContext(ctx, query, args...)
}

// Close closes the prepared statements, waiting for those being prepared.
// Queries run afterwards run unprepared.
func (c *StmtCache) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.stmts {
		if st != nil {
			_ = st.Close()
		}
		delete(c.stmts, q)
	}
	return nil
}
