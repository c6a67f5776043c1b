// Package reportingstore holds types only an implementer of
// reporting.Store needs, off reporting's page (which is the host's): a
// row of the daily counts its reads return, and a user's Google
// connection as reporting.ConnectionStore keeps it. The others its
// methods name (a hit, a goal, a dimension) are the host's too and stay
// in reporting.
package reportingstore

import "time"

// DailyRow is a rollup row, or a sum of them.
type DailyRow struct {
	Key      string `db:"key"`
	Label    string `db:"label"`
	Views    int64  `db:"views"`
	Visitors int64  `db:"visitors"`
	Sessions int64  `db:"sessions"`
	Duration int64  `db:"duration_seconds"`
	// Bounces are the sessions of one page view and no event (kept in
	// the total and by entry page).
	Bounces int64 `db:"bounces"`
}

// ConnectionStatus is where a Google connection stands.
type ConnectionStatus string

// Statuses of a Google connection.
const (
	StatusConnected    ConnectionStatus = "connected"
	StatusDisconnected ConnectionStatus = "disconnected"
)

// GoogleConnection is a user's connected Google account: the tokens are
// sealed (encrypted) by the caller before they are stored.
type GoogleConnection struct {
	UserID              string
	SealedAccessToken   string
	SealedRefreshToken  string
	TokenType           string
	ExpiresAt           time.Time
	Scopes              []string
	Status              ConnectionStatus
	DisconnectionReason string
	UpdatedAt           time.Time
}
