package main

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
)

func TestHostApp(t *testing.T) {
	ctx := context.Background()
	pool, err := sql.Open("sqlite", store.SQLiteDSN(filepath.Join(t.TempDir(), "host.db")))
	require.NoError(t, err)
	t.Cleanup(func() { pool.Close() })
	_, err = pool.ExecContext(ctx, `CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)`)
	require.NoError(t, err)

	a, err := newApp(ctx, pool)
	require.NoError(t, err)
	_, err = newApp(ctx, pool) // a restart finds its form and tables
	require.NoError(t, err)
	srv := httptest.NewServer(a.mux)
	t.Cleanup(srv.Close)
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	res, body := do(t, client, "GET", srv.URL+"/", "", "")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "The host's own page.")

	res, body = do(t, client, "POST", srv.URL+"/api/a11y/contrast-check", "application/json", `{"foreground":"#767676","background":"#FFFFFF"}`)
	require.Equal(t, 200, res.StatusCode)
	require.JSONEq(t, `{"ratio":4.542224959605253,"is_accessible":true}`, body)

	res, body = do(t, client, "GET", srv.URL+"/forms/contact", "", "")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, `<form method="post" action="/forms/contact"`)

	form := url.Values{"name": {"Ann"}, "email": {"ann@example.test"}, "message": {"Hello"}}
	res, _ = do(t, client, "POST", srv.URL+"/forms/contact", "application/x-www-form-urlencoded", form.Encode())
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	contact, err := a.forms.Form(ctx, "contact")
	require.NoError(t, err)
	subs, total, err := a.forms.ListSubmissions(ctx, forms.SubmissionQuery{FormID: contact.ID, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	require.Equal(t, "Ann", *subs[0].Values[0].Value)

	var n int
	require.NoError(t, pool.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'river_job'`).Scan(&n))
	require.Zero(t, n, "no queue, no River tables")
	require.NoError(t, pool.QueryRowContext(ctx, `SELECT count(*) FROM customers`).Scan(&n), "the host's table stays")
}

func do(t *testing.T, c *http.Client, method, url, contentType, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(b)
}
