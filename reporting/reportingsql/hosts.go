package reportingsql

import (
	"context"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
)

// hosts is the reporting.HostStore on the analytics' database (Join
// hands it to the analytics), in reporting_hosts.
type hosts struct{ db *store.DB }

var _ reporting.HostStore = hosts{}

// Hosts implements reporting.HostStore.
func (s hosts) Hosts(ctx context.Context) ([]string, error) {
	var hosts []string
	if err := s.db.Reader().SelectContext(ctx, &hosts, s.db.Rebind(`SELECT host FROM reporting_hosts WHERE site = ? ORDER BY host`),
		siteOf(ctx)); err != nil {
		return nil, fmt.Errorf("reportingsql: hosts: %w", err)
	}
	return hosts, nil
}

// errTaken undoes a change of hosts that would take another site's.
var errTaken = errors.New("taken")

// SetHosts implements reporting.HostStore. A host another site holds,
// even uncommitted on another instance, is waited for, then kept by it;
// a site's changes are made one after another (on Postgres an advisory
// lock of the site's; SQLite has one writer at a time).
func (s hosts) SetHosts(ctx context.Context, names []string) (taken []string, err error) {
	site := siteOf(ctx)
	err = s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		taken = nil
		if s.db.Dialect() == store.Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('reporting_hosts ' || $1, 0))`, site); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM reporting_hosts WHERE site = ?`), site); err != nil {
			return err
		}
		for _, h := range names {
			// Another site's row is left as it is (no row changed).
			res, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO reporting_hosts (host, site) VALUES (?, ?)
				ON CONFLICT (host) DO UPDATE SET site = excluded.site WHERE reporting_hosts.site = excluded.site`), h, site)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				taken = append(taken, h)
			}
		}
		if len(taken) > 0 {
			return errTaken
		}
		return nil
	})
	if errors.Is(err, errTaken) {
		return taken, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reportingsql: set hosts: %w", err)
	}
	return nil, nil
}

// SitesOfHosts implements reporting.HostStore.
func (s hosts) SitesOfHosts(ctx context.Context) (map[string]string, error) {
	var rows []struct {
		Host string `db:"host"`
		Site string `db:"site"`
	}
	if err := s.db.Reader().SelectContext(ctx, &rows, `SELECT host, site FROM reporting_hosts`); err != nil {
		return nil, fmt.Errorf("reportingsql: sites of hosts: %w", err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.Host] = r.Site
	}
	return out, nil
}
