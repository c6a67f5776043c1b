package reporting

import (
	"context"
	"errors"
	"time"
)

// ConnectionStatus is where a Google connection stands.
type ConnectionStatus string

// Statuses of a Google connection.
const (
	StatusConnected    ConnectionStatus = "connected"
	StatusDisconnected ConnectionStatus = "disconnected"
)

// ErrNoConnection: the user never connected an account.
var ErrNoConnection = errors.New("reporting: no connection")

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

// ConnectionStore keeps the users' Google connections (reportingsql
// implements it beside Store).
type ConnectionStore interface {
	// GoogleConnection returns the user's connection, or ErrNoConnection.
	GoogleConnection(ctx context.Context, userID string) (GoogleConnection, error)
	// SaveGoogleConnection writes c, replacing the user's.
	SaveGoogleConnection(ctx context.Context, c GoogleConnection) error
}
