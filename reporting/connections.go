package reporting

import (
	"context"
	"errors"

	"github.com/groundwork-go/groundwork/reporting/reportingstore"
)

// ErrNoConnection: the user never connected an account.
var ErrNoConnection = errors.New("reporting: no connection")

// ConnectionStore keeps the users' Google connections (reportingsql
// implements it beside Store).
type ConnectionStore interface {
	// GoogleConnection returns the user's connection, or ErrNoConnection.
	GoogleConnection(ctx context.Context, userID string) (reportingstore.GoogleConnection, error)
	// SaveGoogleConnection writes c, replacing the user's.
	SaveGoogleConnection(ctx context.Context, c reportingstore.GoogleConnection) error
}
