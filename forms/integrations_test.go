package forms_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/browsertest"
)

// slackFake is a Slack incoming webhook: it keeps each message posted,
// and answers with status (200 "ok" by default).
type slackFake struct {
	mu       sync.Mutex
	messages []map[string]any
	status   int
	srv      *httptest.Server
}

func newSlackFake(t testing.TB) *slackFake {
	t.Helper()
	s := &slackFake{status: 200}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.Method != "POST" || r.Header.Get("Content-Type") != "application/json" || r.URL.Path != "/services/T0/B0/secret" {
			w.WriteHeader(400)
			return
		}
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, "invalid_payload")
			return
		}
		s.messages = append(s.messages, m)
		w.WriteHeader(s.status)
		if s.status == 200 {
			_, _ = io.WriteString(w, "ok")
		} else {
			_, _ = io.WriteString(w, "no_service")
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *slackFake) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.messages)
}

// withIntegrations lets the service post to loopback test servers.
func withIntegrations(o *setupOptions) {
	o.queue = true
	o.service = func(so *forms.Options) {
		so.AllowInsecureURLs, so.IntegrationsClient = true, &http.Client{Timeout: 10 * time.Second}
	}
}

// A Slack notification posts each accepted submission to its incoming
// webhook, as the notification's job: a header, each answer a field (its
// label in bold, Slack's markup escaped), and the submission's number.
// Its address must be a URL; a webhook Slack says is gone cancels the
// job rather than trying it again.
func TestSlackNotification(t *testing.T) {
	t.Parallel()
	slack := newSlackFake(t)
	b := setup(t, withIntegrations)
	slug := b.contactForm(t)
	r := b.api(t, "POST", "/"+slug+"/notifications", map[string]any{"type": "slack", "recipients": "not an address"})
	require.Equal(t, 422, r.status, r.body)
	require.Equal(t, []string{"The recipients field must be the https address of a Slack incoming webhook."}, r.errors(t).Errors["recipients"])
	r = b.api(t, "POST", "/"+slug+"/notifications", map[string]any{"type": "slack", "recipients": slack.srv.URL + "/services/T0/B0/secret",
		"message": "Reply within a day."})
	require.Equal(t, 201, r.status, r.body)
	require.Equal(t, "New submission: {{form_name}}", r.data(t)["subject"])

	b.clock.Advance(20 * time.Second)
	sent := b.submit(t, slug, part{name: "name", content: "Ann <b>&</b>"}, part{name: "email", content: "ann@example.test"},
		part{name: "topic", content: "sales"}, part{name: "message", content: "Hello *there*"})
	require.Equal(t, 201, sent.status, sent.body)
	require.Eventually(t, func() bool { return slack.count() == 1 }, 10*time.Second, 20*time.Millisecond)
	m := slack.messages[0]
	blocks := m["blocks"].([]any)
	require.Equal(t, "New submission: Contact", blocks[0].(map[string]any)["text"].(map[string]any)["text"])
	require.Equal(t, "Reply within a day.", blocks[1].(map[string]any)["text"].(map[string]any)["text"])
	var fields []string
	for _, f := range blocks[2].(map[string]any)["fields"].([]any) {
		fields = append(fields, f.(map[string]any)["text"].(string))
	}
	require.Equal(t, []string{"*Name*\nAnn &lt;b&gt;&amp;&lt;/b&gt;", "*Email*\nann@example.test", "*Topic*\nSales", "*Message*\nHello *there*"}, fields)
	require.Contains(t, blocks[3].(map[string]any)["elements"].([]any)[0].(map[string]any)["text"], "Contact · FORM-2026-")
	require.Contains(t, m["text"], "Name: Ann <b>&</b>", "the plain text for notifications that show no blocks")

	// Slack says the webhook is gone: the job is cancelled, not retried.
	slack.mu.Lock()
	slack.status = 404
	slack.mu.Unlock()
	b.clock.Advance(20 * time.Second)
	sent = b.submit(t, slug, valid()...)
	require.Equal(t, 201, sent.status, sent.body)
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, b.db.Get(&n, `SELECT COUNT(*) FROM river_job WHERE kind = 'forms_notification' AND state = 'cancelled'`))
		return n == 1
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, 2, slack.count(), "tried once")
}

// googleFake is Google's consent page, token endpoint and Sheets API:
// the consent page consents at once (back to the redirect address with
// a code), the token endpoint trades the code (with its PKCE verifier)
// and refreshes the refresh token, and values.append keeps the rows
// each sheet is sent, with the access token it came with.
type googleFake struct {
	mu   sync.Mutex
	rows map[string][][]string // "spreadsheet/range" → rows
	auth []string
	srv  *httptest.Server
}

func newGoogleFake(t testing.TB) *googleFake {
	t.Helper()
	g := &googleFake{rows: map[string][][]string{}}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/auth":
			q := r.URL.Query()
			if q.Get("code_challenge_method") != "S256" || q.Get("access_type") != "offline" || !strings.Contains(q.Get("scope"), "spreadsheets") {
				w.WriteHeader(400)
				return
			}
			back, _ := url.Parse(q.Get("redirect_uri"))
			back.RawQuery = url.Values{"code": {"good-code"}, "state": {q.Get("state")}}.Encode()
			http.Redirect(w, r, back.String(), http.StatusFound)
		case r.URL.Path == "/token":
			_ = r.ParseForm()
			switch {
			case r.Form.Get("grant_type") == "authorization_code" && r.Form.Get("code") == "good-code" && r.Form.Get("code_verifier") != "":
				_, _ = io.WriteString(w, `{"access_token":"at-1","refresh_token":"rt-1","token_type":"Bearer","expires_in":3600}`)
			case r.Form.Get("grant_type") == "refresh_token" && r.Form.Get("refresh_token") == "rt-1":
				_, _ = io.WriteString(w, `{"access_token":"at-2","token_type":"Bearer","expires_in":3600}`)
			default:
				w.WriteHeader(400)
				_, _ = io.WriteString(w, `{"error":"invalid_grant"}`)
			}
		case r.Method == "POST" && strings.HasPrefix(r.URL.Path, "/v4/spreadsheets/") && strings.HasSuffix(r.URL.Path, ":append"):
			if r.URL.Query().Get("valueInputOption") != "RAW" || r.URL.Query().Get("insertDataOption") != "INSERT_ROWS" {
				w.WriteHeader(400)
				return
			}
			var body struct {
				MajorDimension string     `json:"majorDimension"`
				Values         [][]string `json:"values"`
			}
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.MajorDimension != "ROWS" {
				w.WriteHeader(400)
				return
			}
			g.auth = append(g.auth, r.Header.Get("Authorization"))
			key := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v4/spreadsheets/"), ":append")
			g.rows[key] = append(g.rows[key], body.Values...)
			_, _ = fmt.Fprintf(w, `{"spreadsheetId":"x","updates":{"updatedRows":%d}}`, len(body.Values))
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *googleFake) sheet(key string) [][]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([][]string(nil), g.rows[key]...)
}

// withGoogle lets the service connect Google Sheets at the fake.
func withGoogle(g *googleFake) func(*setupOptions) {
	return func(o *setupOptions) {
		o.queue = true
		o.service = func(so *forms.Options) {
			so.GoogleClientID, so.GoogleClientSecret = "client-1", "secret-1"
			so.GoogleEndpoint = oauth2.Endpoint{AuthURL: g.srv.URL + "/auth", TokenURL: g.srv.URL + "/token", AuthStyle: oauth2.AuthStyleInParams}
			so.SheetsBaseURL, so.IntegrationsClient = g.srv.URL, &http.Client{Timeout: 10 * time.Second}
		}
	}
}

const spreadsheet = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"

// A Google Sheets notification: made with the spreadsheet's id, it is
// connected by an admin's consent (the API's link, good once, to the
// consent page and back); the sheet gets its header row, and each
// accepted submission a row in the header's order, sent with an access
// token refreshed from the kept one. The refresh token is never shown.
func TestGoogleSheetsNotification(t *testing.T) {
	t.Parallel()
	g := newGoogleFake(t)
	b := setup(t, withGoogle(g))
	slug := b.contactForm(t)
	r := b.api(t, "POST", "/"+slug+"/notifications", map[string]any{"type": "google_sheets", "recipients": "not/an/id"})
	require.Equal(t, 422, r.status, r.body)
	require.Equal(t, []string{"The recipients field must be a spreadsheet's id, the part of its address after /d/."}, r.errors(t).Errors["recipients"])
	r = b.api(t, "POST", "/"+slug+"/notifications", map[string]any{"type": "google_sheets", "recipients": spreadsheet, "subject": "Leads"})
	require.Equal(t, 201, r.status, r.body)
	require.Equal(t, false, r.data(t)["connected"])
	id := num(r.data(t)["id"])
	mail := b.api(t, "POST", "/"+slug+"/notifications", map[string]any{"type": "admin"})
	require.Equal(t, 201, mail.status, mail.body)
	r = b.api(t, "POST", "/"+slug+"/notifications/"+num(mail.data(t)["id"])+"/connect", nil)
	require.Equal(t, 422, r.status, "only a sheet's notification connects: %s", r.body)

	r = b.api(t, "POST", "/"+slug+"/notifications/"+id+"/connect", nil)
	require.Equal(t, 201, r.status, r.body)
	link := r.data(t)["connect_url"].(string)
	require.True(t, strings.HasPrefix(link, b.server.URL+"/forms/_google/connect?ticket="), link)

	// The admin's browser: to Google and back.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	res, err := browser.Get(link)
	require.NoError(t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode, string(page))
	require.Contains(t, string(page), "Google Sheets is connected: each answer to Contact is added as a row of the sheet “Leads”.")
	n := b.api(t, "GET", "/"+slug+"/notifications", nil)
	require.Contains(t, n.body, `"connected":true`)
	require.NotContains(t, n.body, "rt-1", "the refresh token is never shown")
	var stored string
	require.NoError(t, b.db.Get(&stored, `SELECT secret FROM forms_notifications WHERE type = 'google_sheets'`))
	require.NotContains(t, stored, "rt-1", "kept sealed")
	key := spreadsheet + "/values/'Leads'!A1"
	require.Equal(t, [][]string{{"Submitted at", "Submission", "Name", "Email", "Topic", "Message", "CV"}}, g.sheet(key))

	res, err = browser.Get(link)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 400, res.StatusCode, "the link works once")

	b.clock.Advance(20 * time.Second)
	sent := b.submit(t, slug, part{name: "name", content: "Ann"}, part{name: "email", content: "ann@example.test"}, part{name: "topic", content: "sales"})
	require.Equal(t, 201, sent.status, sent.body)
	require.Eventually(t, func() bool { return len(g.sheet(key)) == 2 }, 10*time.Second, 20*time.Millisecond)
	row := g.sheet(key)[1]
	require.Equal(t, []string{"Ann", "ann@example.test", "Sales", "", ""}, row[2:])
	require.Regexp(t, `^FORM-2026-`, row[1])
	g.mu.Lock()
	require.Equal(t, []string{"Bearer at-2", "Bearer at-2"}, g.auth, "each append with a token refreshed from the kept one")
	g.mu.Unlock()
}

// The connection's pages in a browser: the consent given, the page says
// the sheet is connected; the link used again, it says why not. axe-core
// finds nothing on either.
func TestBrowserGoogleSheetsConnect(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 60*time.Second)
	g := newGoogleFake(t)
	b := setup(t, withGoogle(g))
	slug := b.contactForm(t)
	r := b.api(t, "POST", "/"+slug+"/notifications", map[string]any{"type": "google_sheets", "recipients": spreadsheet})
	require.Equal(t, 201, r.status, r.body)
	r = b.api(t, "POST", "/"+slug+"/notifications/"+num(r.data(t)["id"])+"/connect", nil)
	require.Equal(t, 201, r.status, r.body)
	link := r.data(t)["connect_url"].(string)
	shots := os.Getenv(browsertest.EnvScreenshots)
	browsertest.Do(t, ctx, chromedp.EmulateViewport(390, 800), chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(".notice")))
	require.Equal(t, `Google Sheets is connected: each answer to Contact is added as a row of the sheet “Sheet1”.`, browsertest.Text(t, ctx, ".notice"))
	browsertest.NoViolations(t, ctx, "the sheet connected")
	browsertest.Screenshots(t, ctx, shots, "form-sheets-connected")
	browsertest.Do(t, ctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "Google Sheets not connected", browsertest.Text(t, ctx, "h1"))
	require.Contains(t, browsertest.Text(t, ctx, "main"), "This link is no longer good")
	browsertest.NoViolations(t, ctx, "the link used twice")
	browsertest.Screenshots(t, ctx, shots, "form-sheets-not-connected")
}
