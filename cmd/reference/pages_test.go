package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// tour is a browser walking the reference server's pages.
type tour struct {
	t    *testing.T
	ctx  context.Context
	base string
	dsn  string
	// token is an API token with every ability, for seeding.
	token string
	shots string
}

func newTour(t *testing.T) *tour {
	t.Helper()
	ctx := browsertest.New(t, 4*time.Minute)
	dsn := storetest.DSN(t, store.SQLite)
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir(),
		"--bookings-post-limit", "off", "--forms-submit-limit", "off"},
		env{"GROUNDWORK_SECRET_KEY": testSecretKey, "GROUNDWORK_SITE_NAME": "Northwind Studio", "GROUNDWORK_ADMIN_EMAIL": "owner@example.com",
			"GROUNDWORK_BOOKINGS_CONTACT": "Call us on 020 7946 0000."}.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)
	c, out, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn}, "token", "create", "--name", "seed", "--ability", "*")
	require.Equal(t, 0, c, stderr)
	tr := &tour{t: t, ctx: ctx, base: base, dsn: dsn, token: strings.TrimSpace(out), shots: os.Getenv(browsertest.EnvScreenshots)}
	if tr.shots != "" {
		require.NoError(t, os.MkdirAll(tr.shots, 0o755))
	}
	return tr
}

// user makes an account (password "correct horse") with capabilities.
func (tr *tour) user(email, name string, capabilities ...string) {
	tr.t.Helper()
	withStdin("correct horse\n", func() {
		c, _, stderr := runCmd(tr.t, env{"GROUNDWORK_DB": tr.dsn}, "user", "create", "--email", email, "--name", name)
		require.Equal(tr.t, 0, c, stderr)
	})
	for _, capability := range capabilities {
		c, _, stderr := runCmd(tr.t, env{"GROUNDWORK_DB": tr.dsn}, "user", "grant", email, capability)
		require.Equal(tr.t, 0, c, stderr)
	}
}

// api calls the JSON API with the seeding token, expecting success.
func (tr *tour) api(method, path, body string) string {
	tr.t.Helper()
	code, out := request(tr.t, method, tr.base+path, tr.token, body)
	require.Less(tr.t, code, 300, "%s %s: %s", method, path, out)
	return out
}

// open navigates to path and waits for its main heading.
func (tr *tour) open(path string) {
	tr.t.Helper()
	browsertest.Do(tr.t, tr.ctx, chromedp.Navigate(tr.base+path), chromedp.WaitVisible(chromedp.CSS("h1")))
}

// submit clicks sel, which sends a form, and waits for the next page.
func (tr *tour) submit(sel string) {
	tr.t.Helper()
	browsertest.Submit(tr.t, tr.ctx, sel)
}

// fill types into the inputs by id.
func (tr *tour) fill(values map[string]string) {
	tr.t.Helper()
	for id, v := range values {
		browsertest.Do(tr.t, tr.ctx, chromedp.SetValue(chromedp.ID(id), v))
	}
}

func (tr *tour) location() string {
	tr.t.Helper()
	loc, err := chromedp.Run(tr.ctx, chromedp.Location())
	require.NoError(tr.t, err)
	return strings.TrimPrefix(loc, tr.base)
}

func (tr *tour) text(sel string) string {
	tr.t.Helper()
	return browsertest.Text(tr.t, tr.ctx, sel)
}

// check holds the page the tab shows to every page's bar (axe light and
// dark, 320 px reflow, 24 px targets) and, when screenshots are asked
// for, saves it as name at 390 and 1280 px in both schemes.
func (tr *tour) check(name string) {
	tr.t.Helper()
	browsertest.NoViolations(tr.t, tr.ctx, name)
	browsertest.Screenshots(tr.t, tr.ctx, tr.shots, name)
}

// seed makes the studio the tour walks: a contact form and a portrait
// session bookable on weekdays, 09:00-17:00 in London.
func (tr *tour) seed() {
	tr.t.Helper()
	c, _, stderr := runCmd(tr.t, env{"GROUNDWORK_DB": tr.dsn}, "analytics", "seed", "--days", "60", "--views", "300")
	require.Equal(tr.t, 0, c, stderr)
	tr.api("POST", "/api/v1/forms", `{"name":"Contact us","description":"Questions about a booking, or anything else.","success_message":"Thanks, we will write back within a day."}`)
	for _, f := range []string{`{"type":"text","label":"Your name","is_required":true}`, `{"type":"email","label":"Email","is_required":true}`,
		`{"type":"textarea","label":"Message","is_required":true}`} {
		tr.api("POST", "/api/v1/forms/contact-us/fields", f)
	}

	tr.api("POST", "/api/bookings/admin/services", `{"name":"Portrait session","slug":"portrait","description":"An hour in the studio, with ten edited photos.","duration":60,"price":"120.00","timezone":"Europe/London","min_advance_minutes":60,"max_advance_minutes":525600}`)
	tr.api("POST", "/api/bookings/admin/providers", `{"name":"Sam Rivera","timezone":"Europe/London"}`)
	tr.api("PUT", "/api/bookings/admin/services/portrait/providers/1", `{}`)
	for day := 1; day <= 5; day++ {
		tr.api("POST", "/api/bookings/admin/providers/1/hours", fmt.Sprintf(`{"day_of_week":%d,"start_time":"09:00","end_time":"17:00"}`, day))
	}
}

// signIn signs in through the login page.
func (tr *tour) signIn(email string) {
	tr.t.Helper()
	tr.open("/login")
	tr.fill(map[string]string{"f-email": email, "f-password": "correct horse"})
	tr.submit("main button[type=submit]")
}

// signOut uses the header's button.
func (tr *tour) signOut() {
	tr.t.Helper()
	tr.submit("form.signout button")
}

// Every page of the reference server, as its users walk them, in a real
// browser: each one (and each error state) passes axe-core in the light
// and the dark scheme, reflows to 320 px and has 24 px targets.
func TestBrowserSitePages(t *testing.T) {
	t.Parallel()
	tr := newTour(t)
	tr.user("ada@example.com", "Ada Lovelace", "*")
	tr.user("bob@example.com", "Bob Guest")
	tr.seed()

	// The home page, for a guest; a page that is not there; sign-in.
	tr.open("/")
	require.Equal(t, "Northwind Studio", tr.text("h1"))
	tr.check("home")
	tr.open("/no-such-page")
	require.Equal(t, "Page not found", tr.text("h1"))
	tr.check("not-found")
	tr.open("/login")
	tr.check("login")
	tr.fill(map[string]string{"f-email": "ada@example.com", "f-password": "wrong horse"})
	tr.submit("main button[type=submit]")
	require.Contains(t, tr.text(".error-summary"), "The email address or password is not right")
	tr.check("login-error")
	// Too many tries for one address: the 429 page of the sign-in form.
	for range 6 {
		tr.fill(map[string]string{"f-email": "nobody@example.com", "f-password": "wrong horse"})
		tr.submit("main button[type=submit]")
	}
	require.Contains(t, tr.text("main"), "Too many sign-in attempts. Please try again in")
	tr.check("login-locked")

	// Booking, as a customer: the month, the confirmation, the steps.
	tr.open("/bookings/portrait")
	tr.check("booking")
	// A day the month after next, so the booking can still be changed
	// whatever today is (next month's first day is tomorrow on the 30th).
	tr.submit(".month-nav a:last-child")
	tr.submit(".month-nav a:last-child")
	tr.submit("table.month a")
	tr.submit("form[method=post] button[type=submit]")
	tr.check("booking-errors")
	browsertest.Do(t, tr.ctx, chromedp.Click(chromedp.CSS(`label[for="f-start_time-3"]`)))
	tr.fill(map[string]string{"f-customer_name": "Grace Hopper", "f-customer_email": "grace@example.com"})
	tr.submit("form[method=post] button[type=submit]")
	require.Equal(t, "You are booked", tr.text("h1"))
	tr.check("booking-confirmation")
	tr.submit(`a[href*="step=reschedule"]`)
	require.Contains(t, tr.text(".current-time"), "your time now", "the picker opens on the booked day, its time marked")
	tr.check("booking-reschedule")
	tr.submit("table.month a:not([aria-current])")
	tr.submit("a.keep")
	tr.submit(`a[href*="step=cancel"]`)
	tr.check("booking-cancel")
	tr.submit("button.danger")
	require.Equal(t, "Booking cancelled", tr.text("h1"))
	tr.check("booking-cancelled")

	// The signed-in user's pages.
	tr.signIn("ada@example.com")
	require.Equal(t, "/dashboard", tr.location())
	require.Equal(t, "Welcome, Ada Lovelace", tr.text("h1"))
	tr.check("dashboard")
	tr.open("/settings/tokens")
	tr.fill(map[string]string{"f-name": "Deploy script"})
	browsertest.Do(t, tr.ctx, chromedp.Click(chromedp.CSS(`input[name=abilities][value="forms:*"]`)))
	tr.submit(`main form[action="/settings/tokens"] button[type=submit]`)
	require.Equal(t, "/settings/tokens", tr.location())
	tr.check("tokens")
	tr.open("/reporting")
	tr.check("reports")
	tr.submit(`table a[href*="source="]`)
	require.Contains(t, tr.text(".notice.filter"), "Showing only visits from")
	tr.submit(`table a[href*="device="]`)
	require.Contains(t, tr.text(".notice.filter"), " and visits on ", "the second filter adds to the first")
	tr.check("reports-filtered")
	tr.open("/docs/api")
	require.Equal(t, "API reference", tr.text("h1"))
	tr.check("api-docs")
	tr.open("/admin/users")
	require.Contains(t, tr.text("header.site nav"), "Users")
	require.Contains(t, tr.text("table.stack"), "bob@example.com")
	tr.check("admin-users")

	// The form page, with the header for the signed-in user.
	tr.open("/forms/contact-us")
	require.Contains(t, tr.text("header.site nav"), "Reports")
	tr.check("form")
	tr.signOut()
	require.Equal(t, "/login", tr.location())
	require.Contains(t, tr.text(".notice"), "You have been signed out.")

	// A user without capabilities: the dashboard says whom to ask; the
	// reports are a 403 page with the header kept.
	tr.signIn("bob@example.com")
	require.Contains(t, tr.text("main"), "owner@example.com")
	tr.check("dashboard-no-access")
	tr.open("/reporting")
	require.Equal(t, "You do not have access to this page", tr.text("h1"))
	require.Contains(t, tr.text("main"), "Your account may not use Reports yet.", "the page named by its header link")
	require.Contains(t, tr.text("main"), "Write to owner@example.com", "and whom to ask")
	require.Contains(t, tr.text("header.site nav"), "Dashboard")
	tr.check("forbidden")
}

// The flows walked with the keyboard alone: skip to the content, book a
// time the month after next, cancel it (asked first), book again; sign in, make an
// API token, sign out. Every step is a Tab, Enter, Space or typed text.
func TestBrowserKeyboardOnly(t *testing.T) {
	t.Parallel()
	tr := newTour(t)
	tr.user("ada@example.com", "Ada Lovelace", "*")
	tr.seed()
	ctx := tr.ctx
	key := func(keys string) { t.Helper(); browsertest.Press(t, ctx, keys, false) }
	follow := func(sel string) { t.Helper(); browsertest.TabTo(t, ctx, sel); browsertest.Press(t, ctx, "\r", true) }
	typeInto := func(sel, text string) { t.Helper(); browsertest.TabTo(t, ctx, sel); key(text) }
	active := func() string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id || document.activeElement.className`))
		require.NoError(t, err)
		return s
	}

	tr.open("/bookings/portrait?tz=Europe/London")
	key("\t")
	require.Equal(t, "skip", active(), "the first Tab reaches the skip link")
	key("\r")
	require.Equal(t, "main", active(), "which moves focus to the content")
	follow(".month-nav a:last-child")
	follow(".month-nav a:last-child")
	follow("table.month a")
	browsertest.TabTo(t, ctx, "input[name=start_time]")
	key(" ")
	typeInto("#f-customer_name", "Grace Hopper")
	typeInto("#f-customer_email", "grace@example.com")
	follow("form[method=post] button[type=submit]")
	require.Equal(t, "You are booked", tr.text("h1"))
	follow(`a[href*="step=cancel"]`)
	typeInto("#f-reason", "Plans changed")
	follow("button.danger")
	require.Equal(t, "Booking cancelled", tr.text("h1"))
	follow(`main a[href^="/bookings/portrait"]`)
	require.Equal(t, "Portrait session", tr.text("h1"))

	tr.open("/login")
	typeInto("#f-email", "ada@example.com")
	typeInto("#f-password", "correct horse")
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "/dashboard", tr.location())
	follow(`header.site a[href="/settings/profile"]`)
	follow(`main a[href="/settings/tokens"]`)
	typeInto("#f-name", "Keyboard")
	browsertest.TabTo(t, ctx, `input[name=abilities]`)
	key(" ")
	follow(`main form[action="/settings/tokens"] button[type=submit]`)
	require.NotEmpty(t, tr.text("#new-token"))
	// The reports narrowed to a source and widened again; the API
	// reference's areas.
	follow(`header.site a[href="/reporting"]`)
	follow(`table a[href*="source="]`)
	require.Contains(t, tr.text(".notice.filter"), "Showing only visits from")
	follow(".notice.filter a")
	require.Equal(t, "/reporting?days=28", tr.location(), "the same range, unfiltered")
	tr.open("/docs/api")
	browsertest.TabTo(t, ctx, `nav[aria-label=Areas] a[href="#tag-forms"]`)
	browsertest.Press(t, ctx, "\r", false) // the same page: no load to wait for
	hash, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash`))
	require.NoError(t, err)
	require.Equal(t, "#tag-forms", hash)
	follow("form.signout button")
	require.Contains(t, tr.text(".notice"), "You have been signed out.")
}
