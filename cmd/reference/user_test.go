package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// withStdin runs f with the commands' stdin reading text. (Not parallel:
// stdin is the process's.)
func withStdin(text string, f func()) {
	old := stdin
	stdin = strings.NewReader(text)
	defer func() { stdin = old }()
	f()
}

// The user commands make a user who signs in to the served pages and sees
// the dashboard; the password comes from stdin, never a flag.
func TestUserCommandsAndDashboard(t *testing.T) {
	dsn := storetest.DSN(t, store.SQLite)
	e := env{"GROUNDWORK_DB": dsn}
	var c int
	var out, stderr string
	withStdin("correct horse\n", func() {
		c, out, stderr = runCmd(t, e, "user", "create", "--email", "Ada@Example.com", "--name", "Ada Lovelace", "--capability", "forms:*")
	})
	require.Equal(t, 0, c, stderr)
	require.Equal(t, "User 1 (ada@example.com) created with forms:*.\n", out)
	withStdin("", func() {
		c, _, stderr = runCmd(t, e, "user", "create", "--email", "bob@example.com", "--name", "Bob")
	})
	require.Equal(t, 2, c)
	require.Contains(t, stderr, "no password on stdin")
	withStdin("short\n", func() {
		c, _, stderr = runCmd(t, e, "user", "create", "--email", "bob@example.com", "--name", "Bob")
	})
	require.Equal(t, 2, c)
	require.Contains(t, stderr, "The password field must be at least 8 characters.")

	c, out, _ = runCmd(t, e, "user", "grant", "ADA@example.com", "view_search_reporting")
	require.Equal(t, 0, c)
	require.Equal(t, "User 1 (ada@example.com) now has forms:*, view_search_reporting.\n", out)
	c, out, _ = runCmd(t, e, "user", "revoke", "ada@example.com", "view_search_reporting")
	require.Equal(t, 0, c)
	require.Equal(t, "User 1 (ada@example.com) now has forms:*.\n", out)
	c, _, stderr = runCmd(t, e, "user", "grant", "nobody@example.com", "x")
	require.Equal(t, 1, c)
	require.Contains(t, stderr, `no user has the address "nobody@example.com"`)
	c, out, _ = runCmd(t, e, "user", "list")
	require.Equal(t, 0, c)
	require.Regexp(t, `(?m)^ID\s+EMAIL\s+NAME\s+VERIFIED\s+TWO-FACTOR\s+DISABLED\s+CAPABILITIES$`, out)
	require.Regexp(t, `(?m)^1\s+ada@example.com\s+Ada Lovelace\s+\d{4}-\d\d-\d\d\s+no\s+no\s+forms:\*$`, out, "two-factor sign-in: off")
	c, out, _ = runCmd(t, e, "user", "two-factor-off", "ada@example.com")
	require.Equal(t, 0, c)
	require.Contains(t, out, "Two-factor sign-in of user 1 (ada@example.com) is off")
	c, out, _ = runCmd(t, e, "user", "disable", "ada@example.com")
	require.Equal(t, 0, c)
	require.Contains(t, out, "User 1 (ada@example.com) is disabled")
	c, out, _ = runCmd(t, e, "user", "list")
	require.Equal(t, 0, c)
	require.Regexp(t, `(?m)^1\s+ada@example.com\s+Ada Lovelace\s+\d{4}-\d\d-\d\d\s+no\s+\d{4}-\d\d-\d\d\s+forms:\*$`, out, "disabled since today")
	c, out, _ = runCmd(t, e, "user", "enable", "ada@example.com")
	require.Equal(t, 0, c)
	require.Contains(t, out, "User 1 (ada@example.com) is enabled")
	withStdin("new horse!\n", func() { c, out, stderr = runCmd(t, e, "user", "password", "ada@example.com") })
	require.Equal(t, 0, c, stderr)
	require.Contains(t, out, "signed out everywhere")

	base := startServe(t, dsn)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	client := &http.Client{Jar: jar}
	post := func(path string, form url.Values) (int, string) {
		req, err := http.NewRequest("POST", base+path, strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base)
		res, err := client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	res, err := client.Get(base + "/dashboard")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, base+"/login", res.Request.URL.String(), "a guest is sent to sign in")
	code, body := post("/login", url.Values{"email": {"ada@example.com"}, "password": {"new horse!"}})
	require.Equal(t, 200, code, body)
	require.Contains(t, body, "<h1>Welcome, Ada Lovelace</h1>")
	require.Contains(t, body, `<a href="/docs/api">Developers</a>`, "the API behind one Developers link")
	require.Contains(t, body, "which may use forms.", "naming the areas the user's tokens may use")
	require.NotContains(t, body, "AI colour reviews", "an area the user may not use is not named")
	require.NotContains(t, body, "no access yet")

	// The email-list feeds take a signed-in user with the capability.
	feeds := func() int {
		res, err := client.Get(base + "/admin/emailmarketing/feeds")
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	require.Equal(t, 403, feeds(), "forms:* is not enough")
	c, _, _ = runCmd(t, e, "user", "grant", "ada@example.com", "manage-emailmarketing-feeds")
	require.Equal(t, 0, c)
	require.Equal(t, 200, feeds())
	// A feed is for one of the server's forms: make form 1 first.
	c, out, _ = runCmd(t, e, "token", "create", "--name", "forms", "--ability", "forms:*")
	require.Equal(t, 0, c)
	formReq, err := http.NewRequest("POST", base+"/api/v1/forms", strings.NewReader(`{"name":"Hello"}`))
	require.NoError(t, err)
	formReq.Header.Set("Content-Type", "application/json")
	formReq.Header.Set("Authorization", "Bearer "+strings.TrimSpace(out))
	res, err = http.DefaultClient.Do(formReq)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 201, res.StatusCode)
	// A form that takes one response a person: the page knows the
	// signed-in user from the session; a guest is asked to sign in.
	patch, err := http.NewRequest("PATCH", base+"/api/v1/forms/hello", strings.NewReader(`{"one_per_person":true}`))
	require.NoError(t, err)
	patch.Header.Set("Content-Type", "application/json")
	patch.Header.Set("Authorization", "Bearer "+strings.TrimSpace(out))
	res, err = http.DefaultClient.Do(patch)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	page := func(c *http.Client) string {
		res, err := c.Get(base + "/forms/hello")
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	require.Contains(t, page(http.DefaultClient), "Sign in to respond to this form")
	require.Contains(t, page(client), `<form method="post"`, "the signed-in user gets the form")
	req, err := http.NewRequest("POST", base+"/admin/emailmarketing/feeds", strings.NewReader(`{"form_id":1,"name":"N","field_map":{"email_address":"e"}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://evil.example")
	res, err = client.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 403, res.StatusCode, "a cross-site request with the session is refused")
	req.Header.Set("Origin", base)
	req.Body = io.NopCloser(strings.NewReader(`{"form_id":1,"name":"N","field_map":{"email_address":"e"}}`))
	res, err = client.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 201, res.StatusCode)

	// The reports and their dashboard take a user with view_search_reporting.
	getStatus := func(path string) (int, string) {
		res, err := client.Get(base + path)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body = getStatus("/analytics-reporting/overview")
	require.Equal(t, 403, code, body)
	require.JSONEq(t, `{"error":"forbidden","message":"You may not view these reports."}`, body)
	code, _ = getStatus("/reporting")
	require.Equal(t, 403, code)
	c, _, _ = runCmd(t, e, "user", "grant", "ada@example.com", "view_search_reporting")
	require.Equal(t, 0, c)
	code, body = getStatus("/analytics-reporting/overview?days=7")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"totals":`)
	code, body = getStatus("/reporting?days=7")
	require.Equal(t, 200, code)
	require.Contains(t, body, "<h1>Reports</h1>")

	// The forms' answers take a user with view_form_answers, or with the
	// forms API's reading ability (ada's forms:* covers it).
	code, _ = getStatus("/form-answers/")
	require.Equal(t, 200, code, "forms:* reads the answers")
	c, _, _ = runCmd(t, e, "user", "revoke", "ada@example.com", "forms:*")
	require.Equal(t, 0, c)
	code, _ = getStatus("/form-answers/")
	require.Equal(t, 403, code)
	// forms:viewAny alone lists the forms, as the API lets it, and reads,
	// exports and deletes no answer.
	c, _, _ = runCmd(t, e, "user", "grant", "ada@example.com", "forms:viewAny")
	require.Equal(t, 0, c)
	code, _ = getStatus("/form-answers/")
	require.Equal(t, 200, code)
	for _, path := range []string{"/form-answers/hello", "/form-answers/hello/submissions/", "/form-answers/hello/submissions/export.csv"} {
		code, _ = getStatus(path)
		require.Equal(t, 403, code, path)
	}
	code, _ = post("/form-answers/hello/submissions/", url.Values{"action": {"delete"}, "confirm": {"yes"}, "ids": {"1"}})
	require.Equal(t, 403, code)
	c, _, _ = runCmd(t, e, "user", "revoke", "ada@example.com", "forms:viewAny")
	require.Equal(t, 0, c)
	c, _, _ = runCmd(t, e, "user", "grant", "ada@example.com", "view_form_answers")
	require.Equal(t, 0, c)
	code, body = getStatus("/form-answers/")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, "<h1>Form answers</h1>")
	require.Contains(t, body, `<a href="/form-answers/hello">Hello</a>`, "the form made above")
	code, body = getStatus("/form-answers/hello")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, "Answers: ")
	require.Contains(t, body, "Saw the form", "the funnel, its views from the analytics")

	code, body = post("/logout", url.Values{})
	require.Equal(t, 200, code)
	require.Contains(t, body, "<h1>Sign in to your account</h1>", "signing out leads to the login page")
}

// The dashboard in a real browser, after signing in: no axe-core
// violations.
func TestBrowserDashboard(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 60*time.Second)
	dsn := storetest.DSN(t, store.SQLite)
	base := startServe(t, dsn)
	// A user made through the app's own service, as the CLI does.
	cfg, err := parseServeFlags([]string{"--db", dsn}, env{}.get)
	require.NoError(t, err)
	db, err := openDB(context.Background(), cfg.db, nil, nil)
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, createTestUser(db, "ada@example.com", "correct horse"))

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/dashboard"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), "ada@example.com"), chromedp.SendKeys(chromedp.ID("f-password"), "correct horse"),
		chromedp.Click(chromedp.CSS("main button[type=submit]")), chromedp.WaitVisible(chromedp.CSS("form.signout"))))
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1")))
	require.NoError(t, err)
	require.Equal(t, "Welcome, Ada", text)
	browsertest.NoViolations(t, ctx, "the dashboard")
}

func createTestUser(db *store.DB, email, password string) error {
	svc, err := auth.NewService(authsql.New(db), &auth.Options{Password: auth.PasswordParams{Memory: 64, Time: 1, Threads: 1}})
	if err != nil {
		return err
	}
	_, err = svc.CreateUser(context.Background(), auth.NewUser{Name: "Ada", Email: email, Password: password, Capabilities: []string{"*"}})
	return err
}
