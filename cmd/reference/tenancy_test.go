package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/orgs"
	"github.com/groundwork-go/groundwork/auth/orgs/orgssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/tenant"
)

// member is a signed-in browser of the reference server (a cookie jar)
// and the API token it made while working in its organization.
type member struct {
	t      *testing.T
	base   string
	client *http.Client
	token  string
}

func (m *member) do(method, path string, form url.Values) (int, string) {
	m.t.Helper()
	req, err := http.NewRequest(method, m.base+path, strings.NewReader(form.Encode()))
	require.NoError(m.t, err)
	if method != "GET" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", m.base)
	}
	res, err := m.client.Do(req)
	require.NoError(m.t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(m.t, err)
	return res.StatusCode, string(body)
}

var (
	csrfInput      = regexp.MustCompile(`name="_token" value="([^"]+)"`)
	plaintextToken = regexp.MustCompile(`[0-9]+\|gw_[A-Za-z0-9]{40}`)
)

// newMember signs email in, makes the organization org (and so works in
// it), and makes a token on the tokens page.
func newMember(t *testing.T, base, email, org string) *member {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	m := &member{t: t, base: base, client: &http.Client{Jar: jar}}
	code, body := m.do("POST", "/login", url.Values{"email": {email}, "password": {"correct horse"}})
	require.Equal(t, 200, code, body)
	code, body = m.do("POST", "/organizations", url.Values{"name": {org}})
	require.Equal(t, 200, code, body)
	require.Contains(t, body, "You are working in <strong>"+org+"</strong>")
	_, page := m.do("GET", "/settings/tokens", nil)
	csrf := csrfInput.FindStringSubmatch(page)
	require.NotNil(t, csrf, page)
	code, body = m.do("POST", "/settings/tokens", url.Values{"_token": {csrf[1]}, "name": {org + "'s deploys"},
		"abilities": {"forms:*", "bookings:*", "webhookSubscription.*", "emailmarketing:feeds", "reporting:*"}})
	require.Equal(t, 200, code, body)
	m.token = plaintextToken.FindString(body)
	require.NotEmpty(t, m.token, body)
	return m
}

// api calls the JSON API with the member's token.
func (m *member) api(method, path, body string) (int, string) {
	m.t.Helper()
	return request(m.t, method, m.base+path, m.token, body)
}

// Two organizations on one server, their members each working in their
// own: everything B makes (a form with an answer and a file, a service
// with a provider, hours, a blackout and a booking, a webhook
// subscription, its site's address, page views, goal, shared link and
// email report) is found by no route of A's, on the API with A's token
// (every GET of the API document, B's keys in its paths) and on the pages
// A's session reaches; A's lists hold A's alone. On both databases.
func TestOrganizationsKeepTheirDataApart(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir(),
			"--organizations", "on", "--form-tokens", "optional"}, env{"GROUNDWORK_SECRET_KEY": testSecretKey,
			"GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS": "true", "GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS": "true"}.get)
		require.NoError(t, err)
		base := startServeConfig(t, cfg)
		// The users, made on the server's database (the user command reads
		// the password from the process's stdin, which parallel tests
		// cannot share).
		users, err := auth.NewService(authsql.New(storetest.OpenDSN(t, dsn, authsql.Migrations)), nil)
		require.NoError(t, err)
		for _, u := range []string{"ann", "bo"} {
			made, err := users.CreateUser(context.Background(), auth.NewUser{Name: u, Email: u + "@example.com", Password: "correct horse"})
			require.NoError(t, err)
			_, err = users.Grant(context.Background(), made.ID, "*")
			require.NoError(t, err)
		}
		a, b := newMember(t, base, "ann@example.com", "Acme"), newMember(t, base, "bo@example.com", "Globex")

		// B's things, named so any answer that shows them is caught.
		mustB := func(method, path, body string) map[string]any {
			t.Helper()
			code, out := b.api(method, path, body)
			require.Less(t, code, 300, "%s %s: %s", method, path, out)
			var v map[string]any
			_ = json.Unmarshal([]byte(out), &v)
			return v
		}
		id := func(v map[string]any) string { return fmt.Sprint(v["data"].(map[string]any)["id"]) }
		mustB("POST", "/api/v1/forms", `{"name":"Globex secret form","slug":"globex-form"}`)
		mustB("POST", "/api/v1/forms/globex-form/fields", `{"type":"text","label":"Globex question","is_required":true}`)
		code, out := request(t, "POST", base+"/api/v1/forms/globex-form/submit", "", `{"globex_question":"Globex answer"}`)
		require.Equal(t, 201, code, out)
		sub := fmt.Sprint(mustB("GET", "/api/v1/forms/globex-form/submissions", "")["data"].([]any)[0].(map[string]any)["id"])
		mustB("POST", "/api/bookings/admin/services", `{"name":"Globex consult","slug":"globex-consult","duration":30,"timezone":"UTC"}`)
		provider := id(mustB("POST", "/api/bookings/admin/providers", `{"name":"Globex Gus","slug":"globex-gus","timezone":"UTC"}`))
		mustB("PUT", "/api/bookings/admin/services/globex-consult/providers/"+provider, `{}`)
		for day := range 7 {
			mustB("POST", "/api/bookings/admin/providers/"+provider+"/hours", fmt.Sprintf(`{"day_of_week":%d,"start_time":"00:00","end_time":"24:00"}`, day))
		}
		blackout := id(mustB("POST", "/api/bookings/admin/blackouts", `{"starts_on":"2030-01-01","ends_on":"2030-01-01","reason":"Globex holiday"}`))
		slots := mustB("GET", "/api/bookings/services/globex-consult/slots?date="+time.Now().AddDate(0, 1, 0).Format("2006-01"), "")["data"].([]any)
		require.NotEmpty(t, slots)
		code, out = request(t, "POST", base+"/api/bookings", "", fmt.Sprintf(`{"service":"globex-consult","start_time":%q,"customer_name":"Globex Gina","customer_email":"gina@globex.example"}`,
			slots[0].(map[string]any)["start"]))
		require.Equal(t, 201, code, out)
		var booked struct{ Data struct{ ID int64 } }
		require.NoError(t, json.Unmarshal([]byte(out), &booked))
		booking := fmt.Sprint(booked.Data.ID)
		subscription := id(mustB("POST", "/api/ecommerce/v1/admin/webhook-subscriptions", `{"name":"Globex hook","url":"http://127.0.0.1:9/globex-hook","events":["*"]}`))
		formID := fmt.Sprint(mustB("GET", "/api/v1/forms/globex-form", "")["data"].(map[string]any)["id"])
		feed := id(mustB("POST", "/admin/emailmarketing/feeds", `{"form_id":`+formID+`,"name":"Globex list","field_map":{"email_address":"globex_question"}}`))
		// B's site: its address, a view of one of its pages counted there,
		// a goal, a shared link and an email report.
		mustB("PUT", "/analytics-hosts", `{"hosts":["globex.example"]}`)
		view, err := http.NewRequest("POST", base+"/analytics/collect", strings.NewReader(`{"name":"pageview","url":"https://globex.example/globex-secret-page"}`))
		require.NoError(t, err)
		view.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0") // a robot's view is not counted
		res, err := http.DefaultClient.Do(view)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 202, res.StatusCode)
		require.Eventually(t, func() bool {
			_, out := b.api("GET", "/analytics-reporting/top-content?days=1", "")
			return strings.Contains(out, "/globex-secret-page")
		}, 15*time.Second, 100*time.Millisecond, "B's view is counted in B's reports")
		goal := id(mustB("POST", "/analytics-goals", `{"name":"Globex goal","page":"/globex-secret-page"}`))
		link := id(mustB("POST", "/analytics-shared-links", `{"name":"Globex board"}`))
		report := id(mustB("POST", "/analytics-email-reports", `{"email":"boss@globex.example","period":"weekly"}`))
		markers := []string{"globex-secret-page", "Globex goal", "Globex board", "boss@globex.example", "globex.example", "Globex list", "Globex secret form", "globex-form", "Globex question", "Globex answer", "globex-consult", "Globex consult", "Globex Gus",
			"Globex holiday", "Globex Gina", "gina@globex.example", "Globex hook", "127.0.0.1:9/globex-hook"}

		// A makes its own, then walks every GET route of the API document
		// with B's keys in the paths: not found, or B's nowhere in it.
		code, out = a.api("POST", "/api/v1/forms", `{"name":"Acme form"}`)
		require.Equal(t, 201, code, out)
		keys := map[string]string{"form": "globex-form", "slug": "globex-consult", "provider": provider, "id": booking, "submission": sub,
			"subscription": subscription, "blackout": blackout, "service": "globex-consult", "feed": feed}
		code, doc := get(t, base+"/openapi.json", "")
		require.Equal(t, 200, code)
		var api struct {
			Paths map[string]map[string]struct {
				Security []map[string]any `json:"security"`
			} `json:"paths"`
		}
		require.NoError(t, json.Unmarshal([]byte(doc), &api))
		param := regexp.MustCompile(`\{([a-z_]+)\}`)
		walked, seen := 0, []string{}
		for path, ops := range api.Paths {
			op, ok := ops["get"]
			if !ok || slices.ContainsFunc(op.Security, func(s map[string]any) bool { return len(s) == 0 }) {
				continue // a public route (a form to fill in, a service to book) serves anyone
			}
			if strings.Contains(path, "/a11y") {
				continue // the colour tools keep nothing (see docs/organizations.md)
			}
			filled := param.ReplaceAllStringFunc(path, func(p string) string {
				name := strings.Trim(p, "{}")
				switch {
				case name != "id":
				case strings.Contains(path, "/feeds/"):
					return feed
				case strings.Contains(path, "/blackouts/"):
					return blackout
				}
				if v, ok := keys[name]; ok {
					return v
				}
				return "1"
			})
			code, out := a.api("GET", filled, "")
			walked++
			seen = append(seen, path)
			if code == 404 || code >= 400 && code < 500 {
				continue
			}
			for _, mk := range markers {
				require.NotContains(t, out, mk, "GET %s as A (%d) shows B's", filled, code)
			}
		}
		require.Greater(t, walked, 30, "the walk reached the API's routes")
		require.Subset(t, seen, []string{"/analytics-hosts", "/analytics-goals", "/analytics-reporting/top-content", "/analytics-shared-links",
			"/analytics-email-reports"}, "and the analytics'")

		// Changes to B's: 404, nothing changed.
		for _, r := range []struct{ method, path, body string }{
			{"PUT", "/api/v1/forms/globex-form", `{"name":"Taken"}`}, {"DELETE", "/api/v1/forms/globex-form", ""},
			{"PATCH", "/api/bookings/admin/services/globex-consult", `{"name":"Taken"}`},
			{"POST", "/api/bookings/admin/bookings/" + booking + "/cancel", `{}`},
			{"DELETE", "/api/bookings/admin/blackouts/" + blackout, ""},
			{"DELETE", "/api/ecommerce/v1/admin/webhook-subscriptions/" + subscription, ""},
			{"DELETE", "/admin/emailmarketing/feeds/" + feed, ""},
			{"DELETE", "/analytics-goals/" + goal, ""}, {"DELETE", "/analytics-shared-links/" + link, ""},
			{"DELETE", "/analytics-email-reports/" + report, ""},
		} {
			code, out := a.api(r.method, r.path, r.body)
			require.Equal(t, 404, code, "%s %s: %s", r.method, r.path, out)
		}
		require.Contains(t, fmt.Sprint(mustB("GET", "/api/v1/forms/globex-form", "")), "Globex secret form", "B's form unchanged")
		code, out = a.api("PUT", "/analytics-hosts", `{"hosts":["globex.example"]}`)
		require.Equal(t, 409, code, "A cannot take B's address: %s", out)
		require.Contains(t, fmt.Sprint(mustB("GET", "/analytics-goals", "")), "Globex goal", "B's goal kept")

		// A's pages: the form answers, the bookings list.
		for _, p := range []string{"/form-answers/", "/form-answers/globex-form", "/form-answers/globex-form/submissions/", "/bookings-list/", "/bookings-list/" + booking,
			"/reporting", "/reporting/settings"} {
			_, out := a.do("GET", p, nil)
			for _, mk := range markers {
				require.NotContains(t, out, mk, "the page %s as A shows B's", p)
			}
		}
		_, out = b.do("GET", "/form-answers/", nil)
		require.Contains(t, out, "Globex secret form", "B sees its own")
		_, out = b.do("GET", "/reporting", nil)
		require.Contains(t, out, "/globex-secret-page", "B's dashboard shows its page")
		_, out = b.do("GET", "/reporting/settings", nil)
		require.Contains(t, out, "globex.example", "B's settings list its address")
	})
}

// --organizations is on or off, and off unless asked for.
func TestOrganizationsFlag(t *testing.T) {
	t.Parallel()
	cfg, err := parseServeFlags([]string{"--db", "sqlite:" + t.TempDir() + "/x.db"}, env{}.get)
	require.NoError(t, err)
	require.False(t, cfg.organizations)
	cfg, err = parseServeFlags([]string{"--db", "sqlite:" + t.TempDir() + "/x.db"}, env{"GROUNDWORK_ORGANIZATIONS": "on"}.get)
	require.NoError(t, err)
	require.True(t, cfg.organizations)
	_, err = parseServeFlags([]string{"--db", "sqlite:" + t.TempDir() + "/x.db", "--organizations", "yes"}, env{}.get)
	require.ErrorContains(t, err, "--organizations must be on or off")
}

// Who leaves an organization takes none of its data along: their live
// tokens bound to it are revoked, their others kept.
func TestLeaversTokensAreRevoked(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, authsql.Migrations)
	tokens, err := auth.NewService(authsql.New(db), nil)
	require.NoError(t, err)
	ctx := context.Background()
	u, err := tokens.CreateUser(ctx, auth.NewUser{Name: "Bo", Email: "bo@example.com", Password: "correct horse battery"})
	require.NoError(t, err)
	u, err = tokens.Grant(ctx, u.ID, "*")
	require.NoError(t, err)
	_, bound, err := tokens.CreateUserToken(tenant.With(ctx, "org:1"), u, auth.NewToken{Name: "acme", Abilities: []string{"forms:*"}})
	require.NoError(t, err)
	_, other, err := tokens.CreateUserToken(tenant.With(ctx, "org:2"), u, auth.NewToken{Name: "globex", Abilities: []string{"forms:*"}})
	require.NoError(t, err)
	revokeTokensOf(ctx, tokens, u.ID, "tenant:org:1", slog.New(slog.DiscardHandler))
	got, err := tokens.Token(ctx, bound.ID)
	require.NoError(t, err)
	require.NotNil(t, got.RevokedAt)
	got, err = tokens.Token(ctx, other.ID)
	require.NoError(t, err)
	require.Nil(t, got.RevokedAt)
}

// An invitation's link on the server, its users signed in for real: a
// user of another address who opens it is told whose it is, with no way
// to join; the invitee joins with it.
func TestInvitationJoinsItsAddressAlone(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.SQLite)
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--organizations", "on"},
		env{"GROUNDWORK_SECRET_KEY": testSecretKey}.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)
	users, err := auth.NewService(authsql.New(storetest.OpenDSN(t, dsn, authsql.Migrations)), nil)
	require.NoError(t, err)
	for _, u := range []string{"ann", "bo", "cy"} {
		_, err := users.CreateUser(context.Background(), auth.NewUser{Name: u, Email: u + "@example.com", Password: "correct horse"})
		require.NoError(t, err)
	}
	signIn := func(email string) *member {
		jar, err := cookiejar.New(nil)
		require.NoError(t, err)
		m := &member{t: t, base: base, client: &http.Client{Jar: jar}}
		code, body := m.do("POST", "/login", url.Values{"email": {email}, "password": {"correct horse"}})
		require.Equal(t, 200, code, body)
		return m
	}
	owner := signIn("ann@example.com")
	code, body := owner.do("POST", "/organizations", url.Values{"name": {"Acme"}})
	require.Equal(t, 200, code, body)
	// The invitation made on the server's database (its mail, with the
	// link, goes to the server's log).
	ann, err := users.UserByEmail(context.Background(), "ann@example.com")
	require.NoError(t, err)
	invitations, err := orgs.New(orgssql.New(storetest.OpenDSN(t, dsn, authsql.Migrations)), nil)
	require.NoError(t, err)
	acme, err := invitations.Organizations(context.Background(), ann.ID)
	require.NoError(t, err)
	inv, token, err := invitations.Invite(context.Background(), acme[0].ID, ann.ID, "Bo@Example.com", orgs.RoleMember)
	require.NoError(t, err)
	require.Equal(t, "bo@example.com", inv.Email, "kept as an address is")

	code, body = signIn("cy@example.com").do("GET", "/organizations/join?invitation="+token, nil)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, "This invitation is for another address")
	require.Contains(t, body, "was sent to <strong>bo@example.com</strong>; you are signed in as <strong>cy@example.com</strong>.")
	require.NotContains(t, body, `name="invitation"`, "no way to join")

	invitee := signIn("bo@example.com")
	code, body = invitee.do("GET", "/organizations/join?invitation="+token, nil)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, "<h1>Join Acme</h1>")
	csrf := csrfInput.FindStringSubmatch(body)
	require.NotNil(t, csrf)
	code, body = invitee.do("POST", "/organizations/join", url.Values{"_token": {csrf[1]}, "invitation": {token}})
	require.Equal(t, 200, code, body)
	require.Contains(t, body, "You have joined Acme, as member")
}
