package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/webhooks"
)

// A backup made while the server serves restores into a fresh server that
// reads every domain's data back: a sign-in, an API token, a form's
// answers, a booking's manage link issued before the backup, a webhook
// subscription's sealed secret (a delivery after the restore is signed
// with the secret given before it), the page views counted, an email-list
// feed, and a calendar connection's sealed app password (a read after the
// restore logs in with it).
func TestBackupRestores(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	live := "sqlite:" + filepath.Join(dir, "live.db")
	settings := env{"GROUNDWORK_FORM_TOKENS": "optional", "GROUNDWORK_FORMS_SUBMIT_LIMIT": "off",
		"GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS": "1", "GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS": "1",
		"GROUNDWORK_CALENDAR_ALLOW_PRIVATE_HOSTS": "1", "GROUNDWORK_ANALYTICS_COLLECT_LIMIT": "off"}
	serveOn := func(dsn string) string {
		t.Helper()
		cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir()}, settings.get)
		require.NoError(t, err)
		return startServeConfig(t, cfg) // no GROUNDWORK_SECRET_KEY: the key file beside the database
	}
	code, _, stderr := runCmd(t, env{}, "backup", "--db", live, filepath.Join(dir, "none.db"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "no database at "+filepath.Join(dir, "live.db"), "nothing made where there was nothing")
	_, err := os.Stat(filepath.Join(dir, "live.db"))
	require.ErrorIs(t, err, os.ErrNotExist)
	base := serveOn(live)
	_, err = os.Stat(filepath.Join(dir, "live.key"))
	require.NoError(t, err, "the server made its key file")
	code, out, stderr := runCmd(t, env{}, "token", "create", "--db", live, "--name", "admin", "--ability", "*")
	require.Equal(t, 0, code, stderr)
	token := strings.TrimSpace(out)
	withStdin("correct horse\n", func() {
		code, _, stderr = runCmd(t, env{}, "user", "create", "--db", live, "--email", "ada@example.com", "--name", "Ada")
	})
	require.Equal(t, 0, code, stderr)

	// A receiver that checks each delivery's signature with the secret the
	// subscription was given.
	var mu sync.Mutex
	var secret string
	var signed []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if webhooks.Verify(secret, r.Header.Get(webhooks.HeaderSignature), body, time.Now(), 5*time.Minute) == nil {
			signed = append(signed, string(body))
		}
	}))
	t.Cleanup(hook.Close)
	code, body := postJSON(t, base+"/api/ecommerce/v1/admin/webhook-subscriptions", token,
		`{"name":"local","url":"`+hook.URL+`/hook","events":["form.submitted"],"secret":"whsec_backup_test_secret_0123456789"}`)
	require.Equal(t, 201, code, body)
	mu.Lock()
	secret = "whsec_backup_test_secret_0123456789"
	mu.Unlock()
	code, body = postJSON(t, base+"/api/v1/forms", token, `{"name":"Saved","min_fill_seconds":0}`)
	require.Equal(t, 201, code, body)
	code, body = postJSON(t, base+"/api/v1/forms/saved/fields", token, `{"type":"text","label":"N","name":"n"}`)
	require.Equal(t, 201, code, body)
	submit := func(base, n string) {
		t.Helper()
		res, err := http.PostForm(base+"/api/v1/forms/saved/submit", url.Values{"n": {n}})
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 201, res.StatusCode)
	}
	submit(base, "before")
	bookableService(t, base, token, "kept")
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(48 * time.Hour).Format(time.RFC3339)
	code, body = postJSON(t, base+"/api/bookings", "", `{"service":"kept","start_time":"`+start+`","customer_name":"Grace","customer_email":"grace@example.com"}`)
	require.Equal(t, 201, code, body)
	code, out, stderr = runCmd(t, env{}, "bookings", "reissue", "--db", live, "1")
	require.Equal(t, 0, code, stderr)
	manage := bookings.PagePrefixDefault + "/manage/" + strings.TrimSpace(out)

	// Page views, counted.
	for _, page := range []string{"/pricing", "/about", "/pricing"} {
		req, err := http.NewRequest("POST", base+"/analytics/collect", strings.NewReader(`{"name":"pageview","url":"`+base+page+`"}`))
		require.NoError(t, err)
		req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.Equal(t, 202, status(res))
	}
	views := func(base string) string {
		code, body := get(t, base+"/analytics-reporting/overview?days=1", token)
		require.Equal(t, 200, code, body)
		return body
	}
	require.Eventually(t, func() bool { return strings.Contains(views(base), `"page_views":3`) }, 10*time.Second, 50*time.Millisecond)
	// An email-list feed.
	code, body = postJSON(t, base+"/admin/emailmarketing/feeds", token, `{"form_id":1,"name":"Kept feed","field_map":{"email_address":"n"}}`)
	require.Equal(t, 201, code, body)
	// A calendar's secret address, kept sealed (as an app password or a
	// refresh token is); the calendar's server records what is asked of it.
	var asked []string
	calendar := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/calendar")
		io.WriteString(w, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:busy-1\r\nDTSTAMP:20261126T000000Z\r\n"+
			"DTSTART:20261201T100000Z\r\nDTEND:20261201T110000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
	}))
	t.Cleanup(calendar.Close)
	code, out, stderr = runCmd(t, settings, "bookings", "calendar", "add", "--db", live, "1", "--kind", "ics", "--name", "Work",
		"--url", calendar.URL+"/private-7f3a9c/basic.ics")
	require.Equal(t, 0, code, stderr)
	connection := strings.Fields(out)[0]

	// The backup, while the server serves; never over a file.
	backup := filepath.Join(dir, "copy.db")
	code, out, stderr = runCmd(t, env{}, "backup", "--db", live, backup)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Backed up to "+backup)
	require.Contains(t, out, filepath.Join(dir, "copy.key"))
	code, _, stderr = runCmd(t, env{}, "backup", "--db", live, backup)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "never writes over a file")
	submit(base, "after") // not in the backup

	restored := serveOn("sqlite:" + backup)
	code, body = get(t, restored+"/api/v1/forms/saved/submissions", token)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"before"`)
	require.NotContains(t, body, `"after"`, "the backup is the database at one moment")
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar}
	res, err := browser.Get(restored + "/login")
	require.NoError(t, err)
	res.Body.Close()
	req, err := http.NewRequest("POST", restored+"/login", strings.NewReader(url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", restored)
	res, err = browser.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode, "signed in (and sent to the dashboard)")
	require.Equal(t, "/dashboard", res.Request.URL.Path)
	code, body = get(t, restored+manage, "")
	require.Equal(t, 200, code, "a manage link issued before the backup still opens its booking")
	require.Contains(t, body, "<h1>Your booking</h1>")
	require.Contains(t, body, "<dd>Confirmed</dd>")
	require.Contains(t, views(restored), `"page_views":3`, "the views counted before the backup")
	code, body = get(t, restored+"/admin/emailmarketing/feeds", token)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"name":"Kept feed"`)
	mu.Lock()
	asked = nil
	mu.Unlock()
	code, _, stderr = runCmd(t, settings, "bookings", "calendar", "sync", "--db", "sqlite:"+backup, connection)
	require.Equal(t, 0, code, stderr)
	mu.Lock()
	require.Equal(t, []string{"/private-7f3a9c/basic.ics"}, asked, "the secret address sealed before the backup, opened after it")
	mu.Unlock()

	mu.Lock()
	before := len(signed)
	mu.Unlock()
	submit(restored, "restored")
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(signed) > before && strings.Contains(signed[len(signed)-1], "restored")
	}, 30*time.Second, 50*time.Millisecond, "a delivery signed with the secret sealed before the backup")
}
