package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/rawclient"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

var pathParam = regexp.MustCompile(`\{[a-z]+\}`)

// Every route of every handler the server mounts, sent NUL and invalid
// UTF-8 in each path value and in the query, as a client with every
// ability: a path that carries them names nothing (404), a query value
// that does is a 422 naming it, a malformed query a 400. Nothing reaches
// the database, which on Postgres would refuse it with a 500.
func TestHostileBytesOnEveryRoute(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		cfg, err := parseServeFlags(nil, env{}.get)
		require.NoError(t, err)
		cfg.uploads = t.TempDir()
		cfg.webhooks.secretKey = testSecretKey
		cfg.webhooks.stripe.WebhookSecrets = []string{"whsec_test"}
		db := storetest.Open(t, d, migrations...)
		var logs syncBuffer
		key, err := parseKey(testSecretKey)
		require.NoError(t, err)
		a, err := newApp(cfg, db, key, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})))
		require.NoError(t, err)
		token, _, err := a.tokens.CreateToken(context.Background(), auth.NewToken{Name: "all", Abilities: []string{"*"}})
		require.NoError(t, err)
		srv := httptest.NewServer(a.handler)
		t.Cleanup(srv.Close)
		require.Greater(t, len(a.routes), 30, "every handler's routes")

		send := func(method, path string, header ...string) (int, string) {
			req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(`{}`))
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(header); i += 2 {
				req.Header.Set(header[i], header[i+1])
			}
			res, err := srv.Client().Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			return res.StatusCode, string(body)
		}
		for _, route := range a.routes {
			method, pattern, _ := strings.Cut(route, " ")
			pattern = strings.TrimSuffix(pattern, "{$}")
			if pathParam.MatchString(pattern) {
				for _, bad := range []string{"%00", "%FF", "a%00b", "%C3%28", "1%00"} {
					path := pathParam.ReplaceAllString(pattern, bad)
					code, body := send(method, path)
					require.Equal(t, http.StatusNotFound, code, "%s %s: %s", method, path, body)
				}
			}
			path := pathParam.ReplaceAllString(pattern, "1")
			for query, want := range map[string]int{"?page=%00": 422, "?per_page=%FF": 422, "?q=ok&filter%5Bevent%5D=a%00": 422,
				"?%FF=1": 400, "?a=%zz": 400} {
				code, body := send(method, path+query)
				require.Equal(t, want, code, "%s %s%s: %s", method, path, query, body)
				if want == 422 && method != http.MethodHead && !strings.HasPrefix(body, "<!doctype html>") { // pages answer with a page
					require.Contains(t, body, `"errors":{`, "the usual envelope")
				}
			}
		}
		// A header that reaches the database is held to the same rule.
		code, body := send("POST", "/api/ecommerce/v1/admin/webhook-subscriptions", "Idempotency-Key", "key-\xff")
		require.Equal(t, http.StatusBadRequest, code, body)
		require.NotContains(t, logs.String(), "level=ERROR", "nothing failed inside")
	})
}

// A client that sends a whole oversized body before reading sees the
// documented 413, on every size-limited route of the server, and the 401
// of a route it may not use.
func TestOversizedBodiesSee413(t *testing.T) {
	t.Parallel()
	cfg, err := parseServeFlags(nil, env{}.get)
	require.NoError(t, err)
	cfg.uploads = t.TempDir()
	cfg.webhooks.stripe.WebhookSecrets = []string{"whsec_test"}
	db := storetest.Open(t, store.SQLite, migrations...)
	a, err := newApp(cfg, db, webhooks.GenerateSecretKey(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	srv := httptest.NewServer(a.handler)
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")
	for _, c := range []struct {
		path string
		n    int
		want int
	}{
		{"/ecommerce/webhooks/stripe", 600 << 10, 413},                  // over 512 KiB
		{"/api/a11y/contrast-check", 3 << 20 / 2, 413},                  // over 1 MiB
		{"/api/v1/a11y/audit-palette", 2 << 20, 413},                    // over 1 MiB
		{"/api/ecommerce/v1/admin/webhook-subscriptions", 2 << 20, 401}, // refused before the body is read
	} {
		for range 2 {
			status, err := rawclient.SendWhole(addr, c.path, http.Header{"Content-Type": {"application/json"}}, c.n)
			require.NoError(t, err, c.path)
			require.Equal(t, c.want, status, c.path)
		}
	}
}

// Every GET route answers HEAD as it answers GET (with no body): never a
// 405. A calendar client asks with HEAD first.
func TestHeadOnEveryGetRoute(t *testing.T) {
	t.Parallel()
	cfg, err := parseServeFlags(nil, env{}.get)
	require.NoError(t, err)
	cfg.uploads = t.TempDir()
	db := storetest.Open(t, store.SQLite, migrations...)
	a, err := newApp(cfg, db, webhooks.GenerateSecretKey(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	token, _, err := a.tokens.CreateToken(context.Background(), auth.NewToken{Name: "all", Abilities: []string{"*"}})
	require.NoError(t, err)
	srv := httptest.NewServer(a.handler)
	t.Cleanup(srv.Close)
	for _, route := range a.routes {
		method, pattern, _ := strings.Cut(route, " ")
		if method != http.MethodGet {
			continue
		}
		path := pathParam.ReplaceAllString(strings.TrimSuffix(pattern, "{$}"), "1")
		var codes [2]int
		for i, m := range []string{http.MethodGet, http.MethodHead} {
			req, err := http.NewRequest(m, srv.URL+path, nil)
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+token)
			res, err := srv.Client().Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			codes[i] = res.StatusCode
			if m == http.MethodHead {
				require.Empty(t, body, "HEAD %s has no body", path)
			}
		}
		require.NotEqual(t, http.StatusMethodNotAllowed, codes[1], "HEAD %s", path)
		require.Equal(t, codes[0], codes[1], "HEAD %s answers as GET does", path)
	}
}

// Clients that send their headers and never the body are dropped when
// the body's deadline passes (answered 4xx, a 408 where the body is read
// first, and the connection closed), on JSON and form routes alike: none
// holds a connection, not even while a refused body is drained.
func TestSlowBodiesAreDropped(t *testing.T) {
	t.Parallel()
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--log-level", "warn", "--uploads", t.TempDir(),
		"--db", "sqlite:" + filepath.Join(t.TempDir(), "slow.db")}, env{"GROUNDWORK_SECRET_KEY": testSecretKey}.get)
	require.NoError(t, err)
	cfg.bodyTimeout, cfg.uploadTimeout = 300*time.Millisecond, 600*time.Millisecond
	base := startServeConfig(t, cfg)
	addr := strings.TrimPrefix(base, "http://")
	paths := []string{"/api/a11y/contrast-check", "/login", "/analytics/collect", "/api/v1/forms/contact/submit"}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", addr)
			if !assert.NoError(t, err) {
				return
			}
			defer conn.Close()
			ct := "application/json"
			if i%5 == 0 {
				ct = "multipart/form-data; boundary=x"
			}
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: 100\r\n\r\n{", paths[i%len(paths)], addr, ct)
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			reply, err := io.ReadAll(conn)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Errorf("client %d still held after 5 s: %q", i, reply)
				return
			}
			if len(reply) > 0 { // answered (a 408, or the route's own refusal of what little came), then closed
				assert.Regexp(t, `^HTTP/1.1 4\d\d `, string(reply), "client %d", i)
				assert.Contains(t, string(reply), "Connection: close", "client %d", i)
			}
		}()
	}
	wg.Wait()
}
