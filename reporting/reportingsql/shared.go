package reportingsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
)

var _ reporting.SharedLinkStore = (*Store)(nil)

type sharedRow struct {
	ID           int64      `db:"id"`
	Name         string     `db:"name"`
	PasswordHash string     `db:"password_hash"`
	CreatedAt    store.Time `db:"created_at"`
	RevokedAt    store.Time `db:"revoked_at"`
	Site         string     `db:"site"`
}

func (r sharedRow) link() reporting.SharedLink {
	l := reporting.SharedLink{ID: r.ID, Name: r.Name, HasPassword: r.PasswordHash != "", CreatedAt: r.CreatedAt.Time, Site: r.Site}
	if !r.RevokedAt.IsZero() {
		at := r.RevokedAt.Time
		l.RevokedAt = &at
	}
	return l
}

// SharedLinks implements reporting.SharedLinkStore.
func (s *Store) SharedLinks(ctx context.Context) ([]reporting.SharedLink, error) {
	var rows []sharedRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT id, name, password_hash, created_at, revoked_at, site
		FROM reporting_shared_links WHERE site = ? ORDER BY id DESC`), siteOf(ctx)); err != nil {
		return nil, fmt.Errorf("reportingsql: shared links: %w", err)
	}
	out := make([]reporting.SharedLink, len(rows))
	for i, r := range rows {
		out[i] = r.link()
	}
	return out, nil
}

// CreateSharedLink implements reporting.SharedLinkStore.
func (s *Store) CreateSharedLink(ctx context.Context, l reporting.SharedLink, tokenHash []byte, passwordHash string) (reporting.SharedLink, error) {
	l.Site = siteOf(ctx)
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		var n int
		if err := tx.GetContext(ctx, &n, tx.Rebind(`SELECT COUNT(*) FROM reporting_shared_links WHERE site = ?`), l.Site); err != nil {
			return err
		}
		if n >= reporting.MaxSharedLinks {
			return fmt.Errorf("%w: at most %d links are kept", reporting.ErrBadSharedLink, reporting.MaxSharedLinks)
		}
		return tx.GetContext(ctx, &l.ID, tx.Rebind(`INSERT INTO reporting_shared_links (name, token_hash, password_hash, created_at, site)
			VALUES (?, ?, ?, ?, ?) RETURNING id`), l.Name, tokenHash, passwordHash, store.NewTime(l.CreatedAt), l.Site)
	})
	if err != nil {
		if errors.Is(err, reporting.ErrBadSharedLink) {
			return reporting.SharedLink{}, err
		}
		return reporting.SharedLink{}, fmt.Errorf("reportingsql: create shared link: %w", err)
	}
	l.RevokedAt = nil
	return l, nil
}

// SharedLinkByToken implements reporting.SharedLinkStore.
func (s *Store) SharedLinkByToken(ctx context.Context, tokenHash []byte) (reporting.SharedLink, string, error) {
	var r sharedRow
	err := s.db.Reader().GetContext(ctx, &r, s.db.Rebind(`SELECT id, name, password_hash, created_at, revoked_at, site
		FROM reporting_shared_links WHERE token_hash = ?`), tokenHash)
	if errors.Is(err, sql.ErrNoRows) {
		return reporting.SharedLink{}, "", reporting.ErrSharedLinkNotFound
	}
	if err != nil {
		return reporting.SharedLink{}, "", fmt.Errorf("reportingsql: shared link: %w", err)
	}
	return r.link(), r.PasswordHash, nil
}

// RevokeSharedLink implements reporting.SharedLinkStore. Revoking a link
// again keeps its first time.
func (s *Store) RevokeSharedLink(ctx context.Context, id int64) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE reporting_shared_links SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND site = ?`),
		store.NewTime(time.Now().UTC().Truncate(time.Second)), id, siteOf(ctx))
	if err != nil {
		return fmt.Errorf("reportingsql: revoke shared link: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return reporting.ErrSharedLinkNotFound
	}
	return nil
}
