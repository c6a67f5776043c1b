package bookings_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingsgoogle"
	"github.com/groundwork-go/groundwork/bookings/bookingsical"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/bookings/calendars/calendarssql"
	"github.com/groundwork-go/groundwork/bookings/calendars/calendarstest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// calendarsPage serves the calendar page of a service reading ICS
// addresses and Google (the double), and a client that keeps cookies,
// posts from the page's origin and does not follow redirects.
type calendarsPage struct {
	*httptest.Server
	b      *bundle
	svc    calendarsService
	google *calendarstest.Google
	client *http.Client
}

func newCalendarsPage(t *testing.T, opts *calendars.PageOptions) *calendarsPage {
	t.Helper()
	db := storetest.Open(t, store.SQLite, bookingssql.Migrations)
	b := setupOn(t, db)
	g := calendarstest.NewGoogle(t)
	p := &calendarsPage{b: b, google: g}
	p.Server = httptest.NewUnstartedServer(nil)
	p.Start()
	t.Cleanup(p.Close)
	src, err := bookingsgoogle.New(bookingsgoogle.Options{ClientID: "client", ClientSecret: "secret", Endpoint: g.Endpoint(),
		BaseURL: g.APIBase(), RedirectURL: p.URL + calendars.PagePrefixDefault + "/google/callback"})
	require.NoError(t, err)
	bs, err := bookings.NewService(bookingssql.New(db), &bookings.Options{Now: b.clock.Now, SecretKey: calendarKey})
	require.NoError(t, err)
	cal, err := calendars.New(calendarssql.New(db), bs, &calendars.Options{Now: b.clock.Now, SecretKey: calendarKey,
		Sources: map[calendars.Kind]calendars.Source{calendars.ICS: bookingsical.NewICS(&bookingsical.Options{AllowPrivateHosts: true}),
			calendars.Google: src}})
	require.NoError(t, err)
	p.svc = calendarsService{bs, cal}
	h, err := calendars.NewPageHandler(cal, opts)
	require.NoError(t, err)
	p.Config.Handler = h
	jar, _ := cookiejar.New(nil)
	p.client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return p
}

func (p *calendarsPage) do(t *testing.T, method, target, form string) (int, string, string) {
	t.Helper()
	if strings.HasPrefix(target, "/") {
		target = p.URL + target
	}
	req, err := http.NewRequest(method, target, strings.NewReader(form))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", p.URL)
	res, err := p.client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(body), res.Header.Get("Location")
}

func (p *calendarsPage) link(t *testing.T) string {
	t.Helper()
	link := p.svc.cal.PageLink(p.b.provider.ID, time.Hour)
	return calendars.PagePrefixDefault + "/" + link
}

// The page by its link: an address connected with its errors in the
// labels' words, read, disconnected after asking; a link tampered with,
// expired or naming another provider's connection opens nothing.
func TestCalendarsPageConnectsAnAddress(t *testing.T) {
	t.Parallel()
	p := newCalendarsPage(t, nil)
	cs := newCalendarServer(t)
	cs.event("lunch", "2026-06-02T16:00", "2026-06-02T17:00")
	page := p.link(t)

	code, body, _ := p.do(t, "GET", page, "")
	require.Equal(t, 200, code)
	require.Contains(t, body, "No calendar is connected yet.")
	require.Contains(t, body, `<button type="submit" class="secondary">Google Calendar</button>`, "a button for each provider")
	require.Contains(t, body, "?connect=ics#connect\">A calendar&#39;s address</a>")
	require.NotContains(t, body, "iCloud", "no CalDAV source, no CalDAV providers")
	require.NotContains(t, body, `name="ics_url"`, "no form before a provider is chosen")
	code, body, _ = p.do(t, "GET", page+"?connect=ics", "")
	require.Equal(t, 200, code)
	require.Contains(t, body, `<h3 id="connect-form-title">A calendar&#39;s address</h3>`)
	require.Contains(t, body, `name="ics_url"`)
	require.Contains(t, body, `aria-current="true">A calendar&#39;s address</a>`)

	code, body, _ = p.do(t, "POST", page+"/connect", "kind=ics&ics_name=&ics_url=")
	require.Equal(t, 422, code)
	require.Contains(t, body, "The name is required.")
	require.Contains(t, body, "The address is required.")
	code, body, _ = p.do(t, "POST", page+"/connect", url.Values{"kind": {"ics"}, "ics_name": {"Diary"}, "ics_url": {cs.URL + "/nope.ics"}}.Encode())
	require.Equal(t, 422, code)
	require.Contains(t, body, "The calendar could not be read. There is no calendar at that address. Check it and try again.")
	require.NotContains(t, body, "Not Found", "nothing of the server's answer")
	require.Contains(t, body, `value="Diary"`, "what was typed is kept")

	code, _, loc := p.do(t, "POST", page+"/connect", url.Values{"kind": {"ics"}, "ics_name": {"Diary"}, "ics_url": {cs.address()}}.Encode())
	require.Equal(t, 303, code)
	require.Equal(t, page, loc)
	code, body, _ = p.do(t, "GET", loc, "")
	require.Equal(t, 200, code)
	require.Contains(t, body, "Diary is connected: its busy times will keep you from being booked.")
	require.Contains(t, body, "<dt>Last read</dt><dd>1 June 2026, 04:00 EDT</dd>", "read at once")
	require.NotContains(t, body, "s3cr3t", "the secret address is never shown")
	require.NotContains(t, dayStarts(t, p.svc, p.b, "2026-06-02"), "16:00", "its busy time counts at once")
	conns, err := p.svc.cal.Connections(context.Background(), p.b.provider.ID)
	require.NoError(t, err)
	require.Len(t, conns, 1)
	id := itoa(conns[0].ID)

	cs.fail(http.StatusInternalServerError)
	code, _, loc = p.do(t, "POST", page+"/"+id+"/sync", "")
	require.Equal(t, 303, code)
	_, body, _ = p.do(t, "GET", loc, "")
	require.Contains(t, body, "Diary could not be read. The calendar&#39;s server is not answering properly just now. It will be read again shortly.")
	require.Contains(t, body, "The last read failed. The calendar&#39;s server is not answering properly just now. It will be read again shortly.")
	require.NotContains(t, body, "Internal Server Error")

	code, body, _ = p.do(t, "GET", page+"?disconnect="+id, "")
	require.Equal(t, 200, code)
	require.Contains(t, body, "Disconnect Diary?")
	code, _, _ = p.do(t, "POST", page+"/"+id+"/disconnect", "")
	require.Equal(t, 303, code)
	_, body, _ = p.do(t, "GET", page, "")
	require.Contains(t, body, "Diary is disconnected")
	require.Contains(t, dayStarts(t, p.svc, p.b, "2026-06-02"), "16:00", "its busy time no longer counts")

	for _, bad := range []string{page + "x", calendars.PagePrefixDefault + "/1.99999999999.AAAA", calendars.PagePrefixDefault + "/me"} {
		code, body, _ = p.do(t, "GET", bad, "")
		require.Equal(t, 404, code, bad)
		require.Contains(t, body, "This calendar settings link has expired or is not complete.")
	}
	p.b.clock.Set(p.b.clock.Now().Add(time.Hour))
	code, _, _ = p.do(t, "GET", page, "")
	require.Equal(t, 404, code, "expired")
	code, _, _ = p.do(t, "POST", page+"/connect", "kind=ics")
	require.Equal(t, 404, code, "expired for posts too")

	slug, name := "ben", "Ben"
	other, err := p.svc.CreateProvider(context.Background(), bookings.ProviderInput{Slug: &slug, Name: &name})
	require.NoError(t, err)
	c, _, err := p.svc.cal.Connect(context.Background(), calendars.Input{ProviderID: other.ID, Kind: calendars.ICS,
		Name: "Ben's", URL: func() string { cs.fail(0); return cs.address() }()})
	require.NoError(t, err)
	page = p.link(t)
	for _, path := range []string{page + "?edit=" + itoa(c.ID), page + "?disconnect=" + itoa(c.ID)} {
		code, _, _ = p.do(t, "GET", path, "")
		require.Equal(t, 404, code, "another provider's connection: %s", path)
	}
	code, _, _ = p.do(t, "POST", page+"/"+itoa(c.ID)+"/disconnect", "")
	require.Equal(t, 404, code)
	_, err = p.svc.cal.Connection(context.Background(), c.ID)
	require.NoError(t, err, "still there")
}

// Connect Google: the consent page and back (state and PKCE checked by
// the double), the calendars chosen with a destination, a booking then
// written to it; a callback this browser did not begin connects nothing.
func TestCalendarsPageConnectsGoogle(t *testing.T) {
	t.Parallel()
	p := newCalendarsPage(t, nil)
	p.google.AddCalendar("work@group.calendar.google.com", "Work", false, "writer")
	p.google.Put("primary@example.com", calendarstest.GoogleEvent{ID: "lunch", Start: map[string]any{"dateTime": "2026-06-02T16:00:00Z"},
		End: map[string]any{"dateTime": "2026-06-02T17:00:00Z"}})
	page := p.link(t)

	code, _, consent := p.do(t, "POST", page+"/google", "")
	require.Equal(t, 302, code)
	require.True(t, strings.HasPrefix(consent, p.google.URL+"/o/oauth2/auth?"), consent)
	require.Contains(t, consent, "calendar.readonly")
	code, _, callback := p.do(t, "GET", consent, "")
	require.Equal(t, 302, code)

	forged := regexp.MustCompile(`state=[^&]+`).ReplaceAllString(callback, "state=forged")
	code, _, back := p.do(t, "GET", forged, "")
	require.Equal(t, 303, code)
	_, body, _ := p.do(t, "GET", back, "")
	require.Contains(t, body, "Google Calendar was not connected")

	// A second flow, followed honestly.
	_, _, consent = p.do(t, "POST", page+"/google", "")
	_, _, callback = p.do(t, "GET", consent, "")
	code, _, back = p.do(t, "GET", callback, "")
	require.Equal(t, 303, code)
	require.Contains(t, back, "?edit=")
	code, body, _ = p.do(t, "GET", back, "")
	require.Equal(t, 200, code)
	require.Contains(t, body, "Google Calendar is connected. Choose the calendars to read, and where bookings go.")
	require.Contains(t, body, `value="work@group.calendar.google.com"`)
	require.Contains(t, body, "Add bookings to none of them")
	require.Contains(t, body, `<span class="calendar-name">Work</span>`, "each calendar by its name")
	require.Contains(t, body, `Check for conflicts<span class="visually-hidden"> in Work</span>`)
	require.Contains(t, body, `Add bookings here<span class="visually-hidden">: Work</span>`)
	require.NotContains(t, body, p.google.RefreshToken)
	require.NotContains(t, dayStarts(t, p.svc, p.b, "2026-06-02"), "16:00", "read at once")

	id := back[strings.Index(back, "?edit=")+6:]
	code, body, _ = p.do(t, "POST", page+"/"+id+"/choose", "calendars=nobody%40example.com")
	require.Equal(t, 422, code)
	require.Contains(t, body, "The calendar nobody@example.com is not one this connection lists.")
	require.Contains(t, body, `<a href="#f-calendars">`, "in the summary, linked to the group")
	code, _, _ = p.do(t, "POST", page+"/"+id+"/choose",
		"calendars=primary%40example.com&calendars=work%40group.calendar.google.com&destination=work%40group.calendar.google.com")
	require.Equal(t, 303, code)
	_, body, _ = p.do(t, "GET", page, "")
	require.Contains(t, body, "<dt>Reads</dt><dd>Ada Lovelace, Work</dd>", "by their names")
	require.Contains(t, body, "<dt>Bookings added to</dt><dd>Work</dd>")
	require.NotContains(t, body, "<dd>work@group.calendar.google.com</dd>")

	ids := map[string]bool{}
	for _, c := range p.google.Calls() {
		ids[c] = true
	}
	require.True(t, ids["POST /calendar/v3/freeBusy"])
	require.True(t, ids["GET /calendar/v3/calendars/work@group.calendar.google.com/events"], "the destination is read by its events")
}

// With the host's session (calendars.PageOptions.Provider) the page is at
// {prefix}/me for the provider it names; without a session, or for a
// provider that is not there, it opens nothing. A post naming a kind of
// calendar no form offers is told so.
func TestCalendarsPageForTheSignedInProvider(t *testing.T) {
	t.Parallel()
	var provider atomic.Int64
	p := newCalendarsPage(t, &calendars.PageOptions{Provider: func(r *http.Request) (int64, bool) {
		return provider.Load(), r.URL.Query().Get("signed-in") == "1"
	}})
	provider.Store(p.b.provider.ID)
	me := calendars.PagePrefixDefault + "/me"
	code, body, _ := p.do(t, "GET", me+"?signed-in=1", "")
	require.Equal(t, 200, code)
	require.Contains(t, body, "Ada: times that are busy")
	code, _, _ = p.do(t, "GET", me, "")
	require.Equal(t, 404, code, "no session")
	provider.Store(999)
	code, _, _ = p.do(t, "GET", me+"?signed-in=1", "")
	require.Equal(t, 404, code, "no such provider")
	provider.Store(p.b.provider.ID)
	code, body, _ = p.do(t, "POST", me+"/connect?signed-in=1", "kind=caldav&caldav_name=x&caldav_url=https%3A%2F%2Fexample.com%2F&caldav_password=x")
	require.Equal(t, 422, code)
	require.Contains(t, body, "There is a problem")
	require.Contains(t, body, "The selected kind is invalid: it is one of google, ics.", "the kinds this site takes are named")
}
