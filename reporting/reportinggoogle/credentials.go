package reportinggoogle

import (
	"context"
	"fmt"
	"net/http"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// ServiceAccount is a client authorized by a service-account key (the
// JSON file Google hands out): the simple path for a server. base sends
// the requests (token and API); http.DefaultClient when nil.
func ServiceAccount(ctx context.Context, key []byte, base *http.Client, scopes ...string) (Static, error) {
	if base != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, base)
	}
	creds, err := google.CredentialsFromJSON(ctx, key, scopes...)
	if err != nil {
		return Static{}, fmt.Errorf("reportinggoogle: service account key: %w", err)
	}
	return Static{HTTP: oauth2.NewClient(ctx, creds.TokenSource)}, nil
}
