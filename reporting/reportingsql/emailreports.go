package reportingsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
)

var _ reporting.EmailReportStore = (*Store)(nil)

type emailReportRow struct {
	ID        int64      `db:"id"`
	Email     string     `db:"email"`
	Period    string     `db:"period"`
	LastSent  string     `db:"last_sent"`
	CreatedAt store.Time `db:"created_at"`
	Site      string     `db:"site"`
}

func (r emailReportRow) report() reporting.EmailReport {
	return reporting.EmailReport{ID: r.ID, Email: r.Email, Period: reporting.ReportPeriod(r.Period), LastSent: r.LastSent, CreatedAt: r.CreatedAt.Time,
		Site: r.Site}
}

// EmailReports implements reporting.EmailReportStore.
func (s *Store) EmailReports(ctx context.Context) ([]reporting.EmailReport, error) {
	var rows []emailReportRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT id, email, period, last_sent, created_at, site FROM reporting_email_reports WHERE site = ? ORDER BY id`),
		siteOf(ctx)); err != nil {
		return nil, fmt.Errorf("reportingsql: email reports: %w", err)
	}
	out := make([]reporting.EmailReport, len(rows))
	for i, r := range rows {
		out[i] = r.report()
	}
	return out, nil
}

// AddEmailReport implements reporting.EmailReportStore.
func (s *Store) AddEmailReport(ctx context.Context, r reporting.EmailReport) (reporting.EmailReport, error) {
	r.Site = siteOf(ctx)
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		var n, same int
		if err := tx.GetContext(ctx, &n, tx.Rebind(`SELECT COUNT(*) FROM reporting_email_reports WHERE site = ?`), r.Site); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &same, tx.Rebind(`SELECT COUNT(*) FROM reporting_email_reports WHERE site = ? AND email = ? AND period = ?`),
			r.Site, r.Email, r.Period); err != nil {
			return err
		}
		switch {
		case same > 0:
			return fmt.Errorf("%w: email: %s gets the %s report already", reporting.ErrBadEmailReport, r.Email, r.Period)
		case n >= reporting.MaxEmailReports:
			return fmt.Errorf("%w: at most %d reports are sent; remove one first", reporting.ErrBadEmailReport, reporting.MaxEmailReports)
		}
		return tx.GetContext(ctx, &r.ID, tx.Rebind(`INSERT INTO reporting_email_reports (email, period, last_sent, created_at, site)
			VALUES (?, ?, '', ?, ?) RETURNING id`), r.Email, r.Period, store.NewTime(r.CreatedAt), r.Site)
	})
	if err != nil {
		if errors.Is(err, reporting.ErrBadEmailReport) {
			return reporting.EmailReport{}, err
		}
		if errors.Is(err, store.ErrConflict) {
			return reporting.EmailReport{}, fmt.Errorf("%w: email: %s gets the %s report already", reporting.ErrBadEmailReport, r.Email, r.Period)
		}
		return reporting.EmailReport{}, fmt.Errorf("reportingsql: add email report: %w", err)
	}
	return r, nil
}

// DeleteEmailReport implements reporting.EmailReportStore.
func (s *Store) DeleteEmailReport(ctx context.Context, id int64) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM reporting_email_reports WHERE id = ? AND site = ?`), id, siteOf(ctx))
	if err != nil {
		return fmt.Errorf("reportingsql: delete email report: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return reporting.ErrEmailReportNotFound
	}
	return nil
}

// ClaimEmailReports implements reporting.EmailReportStore: each report is
// claimed by an update that only one transaction can make.
func (s *Store) ClaimEmailReports(ctx context.Context, period reporting.ReportPeriod, key string, enqueue func(ctx context.Context, tx *sql.Tx, r reporting.EmailReport) error) (int, error) {
	var rows []emailReportRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT id, email, period, last_sent, created_at, site
		FROM reporting_email_reports WHERE period = ? AND last_sent <> ? ORDER BY id`), string(period), key); err != nil {
		return 0, fmt.Errorf("reportingsql: claim email reports: %w", err)
	}
	claimed := 0
	for _, r := range rows {
		won := false
		err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
			res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE reporting_email_reports SET last_sent = ? WHERE id = ? AND last_sent <> ?`), key, r.ID, key)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return err // another instance claimed it
			}
			r.LastSent = key
			won = true
			return enqueue(ctx, tx.Tx, r.report())
		})
		if err != nil {
			return claimed, fmt.Errorf("reportingsql: claim email report %d: %w", r.ID, err)
		}
		if won {
			claimed++
		}
	}
	return claimed, nil
}
