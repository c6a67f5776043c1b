package reportinggoogle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"

	"github.com/groundwork-go/groundwork/internal/oauthflow"
)

// Endpoint is Google's OAuth 2.0 endpoint for a person's consent (the
// values of golang.org/x/oauth2/google.Endpoint, without linking that
// package's machinery for cloud credentials).
var Endpoint = oauthflow.GoogleEndpoint

// serviceAccountKey is the part of a service-account key file a token
// needs.
type serviceAccountKey struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	PrivateKeyID string `json:"private_key_id"`
	PrivateKey   string `json:"private_key"`
	TokenURI     string `json:"token_uri"`
}

// ServiceAccount is a client authorized by a service-account key (the
// JSON file Google hands out): the simple path for a server. It signs a
// JWT with the key and trades it for an access token at the key's
// token_uri (Google's when the key names none), again before each token
// expires. base sends the requests (token and API); http.DefaultClient
// when nil. Another kind of key (a user's, or workload identity) is an
// error.
func ServiceAccount(ctx context.Context, key []byte, base *http.Client, scopes ...string) (Static, error) {
	var k serviceAccountKey
	if err := json.Unmarshal(key, &k); err != nil {
		return Static{}, fmt.Errorf("reportinggoogle: service account key: %w", err)
	}
	if k.Type != "service_account" {
		return Static{}, fmt.Errorf("reportinggoogle: service account key: the key's type is %q, not \"service_account\"", k.Type)
	}
	if k.ClientEmail == "" || k.PrivateKey == "" {
		return Static{}, errors.New("reportinggoogle: service account key: client_email and private_key are required")
	}
	if base != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, base)
	}
	cfg := &jwt.Config{Email: k.ClientEmail, PrivateKey: []byte(k.PrivateKey), PrivateKeyID: k.PrivateKeyID, Scopes: scopes,
		TokenURL: k.TokenURI}
	if cfg.TokenURL == "" {
		cfg.TokenURL = Endpoint.TokenURL
	}
	return Static{HTTP: oauth2.NewClient(ctx, cfg.TokenSource(ctx))}, nil
}
