package reportingsql

import (
	"context"
	"errors"
	"fmt"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
	"github.com/groundwork-go/groundwork/store"
)

type connectionRow struct {
	UserID    string               `db:"user_id"`
	Access    string               `db:"access_token"`
	Refresh   string               `db:"refresh_token"`
	Type      string               `db:"token_type"`
	ExpiresAt store.Time           `db:"expires_at"`
	Scopes    store.JSON[[]string] `db:"scopes"`
	Status    string               `db:"status"`
	Reason    string               `db:"disconnect_reason"`
	UpdatedAt store.Time           `db:"updated_at"`
}

var _ reporting.ConnectionStore = (*Store)(nil)

// GoogleConnection implements reporting.ConnectionStore.
func (s *Store) GoogleConnection(ctx context.Context, userID string) (reportingstore.GoogleConnection, error) {
	var r connectionRow
	err := s.db.Reader().GetContext(ctx, &r, s.db.Rebind(`SELECT user_id, access_token, refresh_token, token_type, expires_at, scopes,
		status, disconnect_reason, updated_at FROM reporting_google_connections WHERE user_id = ?`), userID)
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		return reportingstore.GoogleConnection{}, reporting.ErrNoConnection
	}
	if err != nil {
		return reportingstore.GoogleConnection{}, fmt.Errorf("reportingsql: google connection: %w", err)
	}
	return reportingstore.GoogleConnection{UserID: r.UserID, SealedAccessToken: r.Access, SealedRefreshToken: r.Refresh, TokenType: r.Type,
		ExpiresAt: r.ExpiresAt.Time, Scopes: r.Scopes.V, Status: reportingstore.ConnectionStatus(r.Status), DisconnectionReason: r.Reason, UpdatedAt: r.UpdatedAt.Time}, nil
}

// SaveGoogleConnection implements reporting.ConnectionStore.
func (s *Store) SaveGoogleConnection(ctx context.Context, c reportingstore.GoogleConnection) error {
	var expires store.Time
	if !c.ExpiresAt.IsZero() {
		expires = store.NewTime(c.ExpiresAt)
	}
	scopes := c.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	_, err := s.db.ExecContext(ctx, s.db.Rebind(`INSERT INTO reporting_google_connections (user_id, access_token, refresh_token, token_type,
		expires_at, scopes, status, disconnect_reason, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET access_token = excluded.access_token, refresh_token = excluded.refresh_token,
		token_type = excluded.token_type, expires_at = excluded.expires_at, scopes = excluded.scopes, status = excluded.status,
		disconnect_reason = excluded.disconnect_reason, updated_at = excluded.updated_at`),
		c.UserID, c.SealedAccessToken, c.SealedRefreshToken, c.TokenType, expires, store.JSON[[]string]{V: scopes}, c.Status,
		c.DisconnectionReason, store.NewTime(c.UpdatedAt))
	if err != nil {
		return fmt.Errorf("reportingsql: save google connection: %w", err)
	}
	return nil
}
