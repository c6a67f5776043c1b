package calendarstest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// Google is a test double of Google's OAuth endpoint and Calendar API,
// speaking their wire format: the consent page (which consents at once
// and sends the browser back), the token endpoint (authorization code
// with PKCE S256, refresh token), calendarList, freeBusy and the events
// calls the bookings' Google source makes. Calendars are kept in memory.
type Google struct {
	*httptest.Server
	// RefreshToken is the one refresh token it accepts and gives.
	RefreshToken string

	mu        sync.Mutex
	calendars map[string]*GoogleCalendar
	order     []string
	access    map[string]bool   // access tokens given
	codes     map[string]string // code → PKCE challenge
	calls     []string
	refresh   int
	revoked   bool
}

// GoogleCalendar is one calendar of the double's account.
type GoogleCalendar struct {
	Summary string
	Primary bool
	Role    string
	// Events by id.
	Events map[string]GoogleEvent
}

// GoogleEvent is an event as the Calendar API answers it.
type GoogleEvent struct {
	ID           string         `json:"id"`
	ICalUID      string         `json:"iCalUID,omitempty"`
	Status       string         `json:"status,omitempty"`
	Transparency string         `json:"transparency,omitempty"`
	Summary      string         `json:"summary,omitempty"`
	Start        map[string]any `json:"start"`
	End          map[string]any `json:"end"`
}

// NewGoogle starts the double with a primary calendar, "primary@example.com".
func NewGoogle(t testing.TB) *Google {
	g := &Google{RefreshToken: "1//refresh-" + t.Name(), calendars: map[string]*GoogleCalendar{}, access: map[string]bool{},
		codes: map[string]string{}}
	g.AddCalendar("primary@example.com", "Ada Lovelace", true, "owner")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /o/oauth2/auth", g.consent)
	mux.HandleFunc("POST /token", g.token)
	mux.HandleFunc("GET /calendar/v3/users/me/calendarList", g.authorized(g.calendarList))
	mux.HandleFunc("POST /calendar/v3/freeBusy", g.authorized(g.freeBusy))
	mux.HandleFunc("GET /calendar/v3/calendars/{cal}/events", g.authorized(g.listEvents))
	mux.HandleFunc("POST /calendar/v3/calendars/{cal}/events", g.authorized(g.insertEvent))
	mux.HandleFunc("PUT /calendar/v3/calendars/{cal}/events/{id}", g.authorized(g.updateEvent))
	mux.HandleFunc("DELETE /calendar/v3/calendars/{cal}/events/{id}", g.authorized(g.deleteEvent))
	g.Server = httptest.NewServer(mux)
	t.Cleanup(g.Close)
	return g
}

// Endpoint is the double's OAuth endpoint.
func (g *Google) Endpoint() oauth2.Endpoint {
	return oauth2.Endpoint{AuthURL: g.URL + "/o/oauth2/auth", TokenURL: g.URL + "/token", AuthStyle: oauth2.AuthStyleInParams}
}

// APIBase is the double's Calendar API address.
func (g *Google) APIBase() string { return g.URL + "/calendar/v3" }

// AddCalendar adds a calendar to the account.
func (g *Google) AddCalendar(id, summary string, primary bool, role string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calendars[id] = &GoogleCalendar{Summary: summary, Primary: primary, Role: role, Events: map[string]GoogleEvent{}}
	g.order = append(g.order, id)
}

// Put stores an event in a calendar, between two RFC 3339 times (or two
// dates, for an all-day event).
func (g *Google) Put(cal string, e GoogleEvent) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calendars[cal].Events[e.ID] = e
}

// Event is an event of a calendar, and whether there is one.
func (g *Google) Event(cal, id string) (GoogleEvent, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.calendars[cal].Events[id]
	return e, ok
}

// Calls lists the API calls made so far, as "METHOD /path".
func (g *Google) Calls() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.calls)
}

// Revoke refuses the refresh token from now on (invalid_grant) and the
// access tokens given (401), as when the person takes the site's access
// away in their Google account.
func (g *Google) Revoke() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.revoked = true
	clear(g.access)
}

// Refreshes counts the access tokens given for the refresh token.
func (g *Google) Refreshes() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refresh
}

func googleError(w http.ResponseWriter, status int, reason, message string) {
	writeJSONStatus(w, status, map[string]any{"error": map[string]any{"code": status, "message": message,
		"errors": []map[string]string{{"domain": "global", "reason": reason, "message": message}}}})
}

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// consent agrees at once: back to the redirect URI with a code bound to
// the PKCE challenge.
func (g *Google) consent(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("access_type") != "offline" || q.Get("response_type") != "code" {
		http.Error(w, "bad consent request", http.StatusBadRequest)
		return
	}
	code := fmt.Sprintf("4/code-%d", len(g.codes)+1)
	g.mu.Lock()
	g.codes[code] = q.Get("code_challenge")
	g.mu.Unlock()
	back, _ := url.Parse(q.Get("redirect_uri"))
	bq := back.Query()
	bq.Set("code", code)
	bq.Set("state", q.Get("state"))
	bq.Set("scope", q.Get("scope"))
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (g *Google) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("client_id") == "" || r.PostForm.Get("client_secret") == "" {
		writeJSONStatus(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	f := r.PostForm
	switch f.Get("grant_type") {
	case "authorization_code":
		challenge, ok := g.codes[f.Get("code")]
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
			writeJSONStatus(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "Bad code or verifier."})
			return
		}
		delete(g.codes, f.Get("code"))
	case "refresh_token":
		if f.Get("refresh_token") != g.RefreshToken || g.revoked {
			writeJSONStatus(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "Token has been expired or revoked."})
			return
		}
		g.refresh++
	default:
		writeJSONStatus(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access := fmt.Sprintf("ya29.access-%d", len(g.access)+1)
	g.access[access] = true
	out := map[string]any{"access_token": access, "expires_in": 3599, "token_type": "Bearer",
		"scope": "https://www.googleapis.com/auth/calendar.readonly https://www.googleapis.com/auth/calendar.events"}
	if f.Get("grant_type") == "authorization_code" {
		out["refresh_token"] = g.RefreshToken
	}
	writeJSON(w, out)
}

func (g *Google) authorized(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		ok := g.access[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		g.calls = append(g.calls, r.Method+" "+r.URL.Path)
		g.mu.Unlock()
		if !ok {
			googleError(w, http.StatusUnauthorized, "authError", "Invalid Credentials")
			return
		}
		h(w, r)
	}
}

func (g *Google) calendarList(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	items := []map[string]any{}
	for _, id := range g.order {
		c := g.calendars[id]
		if r.URL.Query().Get("minAccessRole") == "writer" && c.Role != "owner" && c.Role != "writer" {
			continue
		}
		items = append(items, map[string]any{"kind": "calendar#calendarListEntry", "id": id, "summary": c.Summary,
			"accessRole": c.Role, "primary": c.Primary, "timeZone": "Europe/London"})
	}
	writeJSON(w, map[string]any{"kind": "calendar#calendarList", "etag": `"p33"`, "items": items})
}

// span is an event's start and end as instants (a date as UTC midnight).
func span(e GoogleEvent) (time.Time, time.Time) {
	at := func(m map[string]any) time.Time {
		if s, ok := m["dateTime"].(string); ok {
			t, _ := time.Parse(time.RFC3339, s)
			return t
		}
		s, _ := m["date"].(string)
		t, _ := time.Parse(time.DateOnly, s)
		return t
	}
	return at(e.Start), at(e.End)
}

func (g *Google) freeBusy(w http.ResponseWriter, r *http.Request) {
	var in struct {
		TimeMin, TimeMax time.Time
		Items            []struct{ ID string }
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || !in.TimeMax.After(in.TimeMin) {
		googleError(w, http.StatusBadRequest, "timeRangeEmpty", "The specified time range is empty.")
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	cals := map[string]any{}
	for _, it := range in.Items {
		c, ok := g.calendars[it.ID]
		if !ok {
			cals[it.ID] = map[string]any{"busy": []any{}, "errors": []map[string]string{{"domain": "global", "reason": "notFound"}}}
			continue
		}
		busy := []map[string]string{}
		for _, e := range sortedEvents(c) {
			s, end := span(e)
			if e.Status == "cancelled" || e.Transparency == "transparent" || !s.Before(in.TimeMax) || !end.After(in.TimeMin) {
				continue
			}
			busy = append(busy, map[string]string{"start": maxTime(s, in.TimeMin).UTC().Format(time.RFC3339),
				"end": minTime(end, in.TimeMax).UTC().Format(time.RFC3339)})
		}
		cals[it.ID] = map[string]any{"busy": busy}
	}
	writeJSON(w, map[string]any{"kind": "calendar#freeBusy", "timeMin": in.TimeMin.Format(time.RFC3339),
		"timeMax": in.TimeMax.Format(time.RFC3339), "calendars": cals})
}

func sortedEvents(c *GoogleCalendar) []GoogleEvent {
	out := make([]GoogleEvent, 0, len(c.Events))
	for _, e := range c.Events {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func (g *Google) calendar(w http.ResponseWriter, r *http.Request) (*GoogleCalendar, bool) {
	c, ok := g.calendars[r.PathValue("cal")]
	if !ok {
		googleError(w, http.StatusNotFound, "notFound", "Not Found")
	}
	return c, ok
}

func (g *Google) listEvents(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.calendar(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	from, err1 := time.Parse(time.RFC3339, q.Get("timeMin"))
	to, err2 := time.Parse(time.RFC3339, q.Get("timeMax"))
	if err1 != nil || err2 != nil || q.Get("singleEvents") != "true" {
		googleError(w, http.StatusBadRequest, "badRequest", "Bad Request")
		return
	}
	items := []GoogleEvent{}
	for _, e := range sortedEvents(c) {
		if s, end := span(e); s.Before(to) && end.After(from) {
			items = append(items, e)
		}
	}
	// One event a page, so that paging is used.
	page := 0
	fmt.Sscan(q.Get("pageToken"), &page)
	out := map[string]any{"kind": "calendar#events", "items": []GoogleEvent{}}
	if page < len(items) {
		out["items"] = items[page : page+1]
	}
	if page+1 < len(items) {
		out["nextPageToken"] = fmt.Sprint(page + 1)
	}
	writeJSON(w, out)
}

func (g *Google) readEvent(w http.ResponseWriter, r *http.Request) (GoogleEvent, bool) {
	var e GoogleEvent
	if err := json.NewDecoder(r.Body).Decode(&e); err != nil || e.Start == nil || e.End == nil {
		googleError(w, http.StatusBadRequest, "required", "Missing end time.")
		return e, false
	}
	if e.Status == "" {
		e.Status = "confirmed"
	}
	return e, true
}

// writeEvent reads an event from the body and stores it with put, which
// answers false after writing an error.
func (g *Google) writeEvent(w http.ResponseWriter, r *http.Request, put func(c *GoogleCalendar, e *GoogleEvent) bool) {
	e, ok := g.readEvent(w, r)
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.calendar(w, r)
	if !ok || !put(c, &e) {
		return
	}
	c.Events[e.ID] = e
	writeJSON(w, e)
}

func (g *Google) insertEvent(w http.ResponseWriter, r *http.Request) {
	g.writeEvent(w, r, func(c *GoogleCalendar, e *GoogleEvent) bool {
		if _, dup := c.Events[e.ID]; dup {
			googleError(w, http.StatusConflict, "duplicate", "The requested identifier already exists.")
			return false
		}
		e.ICalUID = e.ID + "@google.com"
		return true
	})
}

func (g *Google) updateEvent(w http.ResponseWriter, r *http.Request) {
	g.writeEvent(w, r, func(c *GoogleCalendar, e *GoogleEvent) bool {
		old, ok := c.Events[r.PathValue("id")]
		if !ok {
			googleError(w, http.StatusNotFound, "notFound", "Not Found")
			return false
		}
		e.ID, e.ICalUID = old.ID, old.ICalUID
		return true
	})
}

// deleteEvent keeps the event as cancelled, as Google does; a second
// delete is 410 Gone.
func (g *Google) deleteEvent(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.calendar(w, r)
	if !ok {
		return
	}
	e, ok := c.Events[r.PathValue("id")]
	switch {
	case !ok:
		googleError(w, http.StatusNotFound, "notFound", "Not Found")
	case e.Status == "cancelled":
		googleError(w, http.StatusGone, "deleted", "Resource has been deleted")
	default:
		e.Status = "cancelled"
		c.Events[e.ID] = e
		w.WriteHeader(http.StatusNoContent)
	}
}
