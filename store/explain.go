package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/store/driverless"
)

// openExplained opens a pool of driverName's driver on dsn whose
// connections explain a missing table (see [ErrNotMigrated]) in every
// error they return, so any store, read or write, in or out of a
// transaction, says which Migrate call is missing.
func openExplained(driverName, dsn string) (*sqlx.DB, error) {
	probe, err := sql.Open(driverName, dsn)
	if err != nil {
		return nil, err
	}
	d := probe.Driver()
	_ = probe.Close()
	var c driver.Connector = dsnConnector{dsn: dsn, d: d}
	if dc, ok := d.(driver.DriverContext); ok {
		if c, err = dc.OpenConnector(dsn); err != nil {
			return nil, err
		}
	}
	return sqlx.NewDb(sql.OpenDB(explainingConnector{c}), driverName), nil
}

// dsnConnector opens a driver without a Connector of its own.
type dsnConnector struct {
	dsn string
	d   driver.Driver
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.d }

type explainingConnector struct{ driver.Connector }

func (c explainingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &explainingConn{Conn: conn}, nil
}

// explainingConn passes every call to the driver's connection, and its
// errors through driverless.ExplainMissingTable; what the connection does not
// offer is answered as database/sql expects of a driver without it.
type explainingConn struct{ driver.Conn }

var (
	_ driver.ConnBeginTx        = (*explainingConn)(nil)
	_ driver.ConnPrepareContext = (*explainingConn)(nil)
	_ driver.ExecerContext      = (*explainingConn)(nil)
	_ driver.QueryerContext     = (*explainingConn)(nil)
	_ driver.Pinger             = (*explainingConn)(nil)
	_ driver.SessionResetter    = (*explainingConn)(nil)
	_ driver.Validator          = (*explainingConn)(nil)
	_ driver.NamedValueChecker  = (*explainingConn)(nil)
)

func explain(err error) error {
	if err == nil || errors.Is(err, driver.ErrSkip) || errors.Is(err, driver.ErrBadConn) {
		return err
	}
	return driverless.ExplainMissingTable(err)
}

func (c *explainingConn) Prepare(query string) (driver.Stmt, error) {
	s, err := c.Conn.Prepare(query)
	return s, explain(err)
}

func (c *explainingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		s, err := p.PrepareContext(ctx, query)
		return s, explain(err)
	}
	return c.Prepare(query)
}

func (c *explainingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if b, ok := c.Conn.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, opts)
	}
	return c.Conn.Begin() //nolint:staticcheck // the fallback database/sql itself uses
}

func (c *explainingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	r, err := e.ExecContext(ctx, query, args)
	return r, explain(err)
}

func (c *explainingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	r, err := q.QueryContext(ctx, query, args)
	return r, explain(err)
}

func (c *explainingConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *explainingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *explainingConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *explainingConn) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := c.Conn.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}
