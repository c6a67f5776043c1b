package reportingsql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/store"
)

// The statements that write a batch's rows: one a table on Postgres, one
// prepared statement a row on SQLite.

// values runs stmt ("INSERT ... VALUES %s ...") over rows whose columns
// have the Postgres types given ("text", "bigint", "timestamptz"). On
// Postgres, one statement with a parameter an array a column, joined with
// unnest (one round trip, and a plan that does not grow with the rows),
// collecting what it returns with scan. On SQLite, in the process, one
// row a statement prepared once: the driver looks each argument's
// parameter name up with a walk of the statement's names, so a statement
// of hundreds of rows costs the square of its parameters (BENCHMARKS,
// issue 50); scan must be nil there.
func values(ctx context.Context, tx *sqlx.Tx, stmt string, types []string, rows [][]any, scan func(*sqlx.Rows) error) error {
	if len(rows) == 0 {
		return nil
	}
	if tx.DriverName() == "pgx" {
		q, args, err := unnested(stmt, types, rows)
		if err != nil {
			return err
		}
		return run(ctx, tx, q, args, scan)
	}
	if scan != nil {
		return errors.New("reportingsql: a statement that returns rows runs on Postgres only")
	}
	st, err := tx.PreparexContext(ctx, fmt.Sprintf(stmt, "("+strings.TrimSuffix(strings.Repeat("?, ", len(types)), ", ")+")"))
	if err != nil {
		return err
	}
	defer st.Close()
	for _, r := range rows {
		if _, err := st.ExecContext(ctx, r...); err != nil {
			return err
		}
	}
	return nil
}

// unnested is stmt with its VALUES as a SELECT from unnest over one
// array a column, and the arrays.
func unnested(stmt string, types []string, rows [][]any) (string, []any, error) {
	params := make([]string, len(types))
	args := make([]any, len(types))
	for i, t := range types {
		params[i] = fmt.Sprintf("$%d::%s[]", i+1, t)
		switch t {
		case "text":
			a := make([]string, len(rows))
			for j, r := range rows {
				a[j] = r[i].(string)
			}
			args[i] = a
		case "bigint":
			a := make([]int64, len(rows))
			for j, r := range rows {
				switch v := r[i].(type) {
				case int64:
					a[j] = v
				case int:
					a[j] = int64(v)
				default:
					return "", nil, fmt.Errorf("reportingsql: column %d: %T is no bigint", i, r[i])
				}
			}
			args[i] = a
		case "timestamptz":
			a := make([]time.Time, len(rows))
			for j, r := range rows {
				a[j] = r[i].(store.Time).Time
			}
			args[i] = a
		default:
			return "", nil, fmt.Errorf("reportingsql: no arrays of %s", t)
		}
	}
	return strings.Replace(stmt, "VALUES %s", "SELECT * FROM unnest("+strings.Join(params, ", ")+")", 1), args, nil
}

// run executes q, scanning what it returns when scan is not nil.
func run(ctx context.Context, tx *sqlx.Tx, q string, args []any, scan func(*sqlx.Rows) error) error {
	if scan == nil {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}
	return scanAll(tx.QueryxContext(ctx, q, args...))(scan)
}

// scanAll is a query's rows each passed to scan, then closed.
func scanAll(res *sqlx.Rows, err error) func(scan func(*sqlx.Rows) error) error {
	return func(scan func(*sqlx.Rows) error) error {
		if err != nil {
			return err
		}
		for res.Next() {
			if err := scan(res); err != nil {
				res.Close()
				return err
			}
		}
		if err := res.Close(); err != nil {
			return err
		}
		return res.Err()
	}
}
