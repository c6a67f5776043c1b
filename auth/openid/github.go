package openid

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/oauth2"
)

// githubEndpoint is the OAuth endpoint of GitHub at issuer (github.com,
// or a GitHub Enterprise Server).
func githubEndpoint(issuer string) oauth2.Endpoint {
	base := strings.TrimSuffix(issuer, "/")
	return oauth2.Endpoint{AuthURL: base + "/login/oauth/authorize", TokenURL: base + "/login/oauth/access_token"}
}

// githubAPI is the REST API of GitHub at issuer: api.github.com for
// github.com, a server's own /api/v3 otherwise.
func githubAPI(issuer string) string {
	if u, err := url.Parse(issuer); err == nil && u.Host == "github.com" {
		return "https://api.github.com"
	}
	return strings.TrimSuffix(issuer, "/") + "/api/v3"
}

// githubAccount reads the signed-in GitHub account: its ID (the
// subject, which never changes; the login may), its name, and its
// primary address with whether GitHub verified it.
func (h *Handler) githubAccount(ctx context.Context, p *provider, tok *oauth2.Token) (claims, error) {
	var user struct {
		ID    int64  `json:"id"`
		Login string `json:"login"`
		Name  string `json:"name"`
	}
	if err := h.githubGet(ctx, p, tok, "/user", &user); err != nil {
		return claims{}, err
	}
	if user.ID <= 0 {
		return claims{}, fmt.Errorf("%w: GitHub gave no account ID", errRefused)
	}
	var emails []struct {
		Email    string `json:"email"`
		Primary  bool   `json:"primary"`
		Verified bool   `json:"verified"`
	}
	if err := h.githubGet(ctx, p, tok, "/user/emails", &emails); err != nil {
		return claims{}, err
	}
	c := claims{Subject: strconv.FormatInt(user.ID, 10), Name: user.Name}
	if c.Name == "" {
		c.Name = user.Login
	}
	for _, e := range emails {
		if e.Primary {
			verified := e.Verified
			c.Email, c.EmailVerified = e.Email, &verified
		}
	}
	return c, nil
}

func (h *Handler) githubGet(ctx context.Context, p *provider, tok *oauth2.Token, path string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, githubAPI(p.Issuer)+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	tok.SetAuthHeader(req)
	res, err := h.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: GitHub %s: %w", errProvider, path, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	switch {
	case err != nil:
		return fmt.Errorf("%w: GitHub %s: %w", errProvider, path, err)
	case res.StatusCode >= 500:
		return fmt.Errorf("%w: GitHub %s: %s", errProvider, path, res.Status)
	case res.StatusCode != http.StatusOK:
		return fmt.Errorf("%w: GitHub %s: %s", errRefused, path, res.Status)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("%w: GitHub %s: %w", errRefused, path, err)
	}
	return nil
}
