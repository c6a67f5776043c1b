package bookings_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// bookWithToken books start through the service and returns the booking
// and its manage token.
func bookWithToken(t *testing.T, b *bundle, start string) (bookings.Booking, string) {
	t.Helper()
	bk, token, err := b.svc.Create(context.Background(), bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime(start),
		CustomerName: "Grace", CustomerEmail: "grace@example.com"})
	require.NoError(t, err)
	return bk, token
}

// Every check of a managed reschedule, in order, with the change window's edges.
func TestManageLinks(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		bk, token := bookWithToken(t, b, "2026-06-03T14:00:00Z") // Wednesday 10:00 New York

		// Unknown, malformed and forged tokens: the same 404.
		for _, tok := range []string{strings.Repeat("0", 64), "short", strings.ToUpper(token), token + "0"} {
			code, body := b.do(t, "GET", "/api/bookings/manage/"+tok, "")
			require.Equal(t, 404, code, tok)
			require.JSONEq(t, `{"message":"That booking link is no longer valid. Please check your confirmation email."}`, body)
		}
		code, body := b.do(t, "GET", "/api/bookings/manage/"+token, "")
		require.Equal(t, 200, code, body)
		var got struct {
			Data struct {
				ID     int64
				Status string
				Start  string `json:"start_time"`
			}
			Meta struct {
				CanCancel     bool    `json:"can_cancel"`
				CanReschedule bool    `json:"can_reschedule"`
				Until         *string `json:"changes_allowed_until"`
			}
		}
		require.NoError(t, json.Unmarshal([]byte(body), &got))
		require.Equal(t, bk.ID, got.Data.ID)
		require.True(t, got.Meta.CanCancel)
		require.True(t, got.Meta.CanReschedule)
		require.Equal(t, "2026-06-02T14:00:00+00:00", *got.Meta.Until)
		require.NotContains(t, body, token, "the token is never in a body")

		// Reschedule: form rules first, then the checks in order.
		for _, c := range []struct {
			body   string
			status int
			text   string
		}{
			{`{}`, 422, "The start time field is required."},
			{`{"start_time":"2026-06-01T08:30:00Z"}`, 422, bookings.MsgTooSoon},
			{`{"start_time":"2026-12-01T15:00:00Z"}`, 422, bookings.MsgTooFar},
			{`{"start_time":"tomorrow"}`, 422, bookings.MsgTimeNotUnderstood},
			{`{"start_time":"2026-06-03T14:00:00Z"}`, 422, bookings.MsgAlreadyAtThatTime},
			{`{"start_time":"2026-06-03T14:05:00Z"}`, 422, bookings.MsgRescheduleNotOffered},
			{`{"start_time":"2026-06-06T14:00:00Z"}`, 422, bookings.MsgRescheduleNotOffered},
		} {
			code, body := b.do(t, "POST", "/api/bookings/manage/"+token+"/reschedule", c.body)
			require.Equal(t, c.status, code, c.body)
			require.Contains(t, body, c.text, c.body)
		}
		// Overlapping its own current time is allowed (the original refused it).
		code, body = b.do(t, "POST", "/api/bookings/manage/"+token+"/reschedule", `{"start_time":"2026-06-03T14:15:00Z"}`)
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"start_time":"2026-06-03T14:15:00+00:00"`)
		require.Contains(t, body, `"changes_allowed_until":"2026-06-02T14:15:00+00:00"`)
		// Onto another booking: not offered (the slot list already says so).
		bookWithToken(t, b, "2026-06-03T16:00:00Z")
		code, _ = b.do(t, "POST", "/api/bookings/manage/"+token+"/reschedule", `{"start_time":"2026-06-03T16:00:00Z"}`)
		require.Equal(t, 422, code)

		// The change window's edge: allowed at the deadline, refused after.
		b.clock.Set(time.Date(2026, 6, 2, 14, 15, 0, 0, time.UTC))
		code, body = b.do(t, "GET", "/api/bookings/manage/"+token, "")
		require.Equal(t, 200, code)
		require.Contains(t, body, `"can_cancel":true`)
		b.clock.Advance(time.Second)
		code, body = b.do(t, "GET", "/api/bookings/manage/"+token, "")
		require.Equal(t, 200, code)
		require.Contains(t, body, `"can_cancel":false,"can_reschedule":false`)
		code, body = b.do(t, "POST", "/api/bookings/manage/"+token+"/cancel", `{}`)
		require.Equal(t, 422, code)
		require.JSONEq(t, `{"message":"`+bookings.MsgTooLateToCancel+`"}`, body)
		code, body = b.do(t, "POST", "/api/bookings/manage/"+token+"/reschedule", `{"start_time":"2026-06-04T15:00:00Z"}`)
		require.Equal(t, 422, code)
		require.Contains(t, body, bookings.MsgTooLateToReschedule)
		b.clock.Set(now)

		// Cancel, then nothing more.
		code, body = b.do(t, "POST", "/api/bookings/manage/"+token+"/cancel", `{"reason":"`+strings.Repeat("x", 1001)+`"}`)
		require.Equal(t, 422, code, body)
		code, body = b.do(t, "POST", "/api/bookings/manage/"+token+"/cancel", `{"reason":"Ill"}`)
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"status":"cancelled"`)
		require.Contains(t, body, `"can_cancel":false`)
		code, body = b.do(t, "POST", "/api/bookings/manage/"+token+"/cancel", `{}`)
		require.Equal(t, 409, code)
		require.JSONEq(t, `{"message":"That booking can no longer be cancelled."}`, body)
		code, body = b.do(t, "POST", "/api/bookings/manage/"+token+"/reschedule", `{"start_time":"2026-06-04T15:00:00Z"}`)
		require.Equal(t, 409, code)
		require.JSONEq(t, `{"message":"That booking can no longer be rescheduled."}`, body)
		code, _ = b.do(t, "GET", "/api/bookings/manage/"+token, "")
		require.Equal(t, 200, code, "the link still shows a cancelled booking")

		// The service gone: 404 for a reschedule.
		other, token2 := bookWithToken(t, b, "2026-06-04T14:00:00Z")
		st := bookingssql.New(b.db)
		svc := b.service
		svc.IsActive = false
		_, err := st.UpdateService(context.Background(), svc)
		require.NoError(t, err)
		code, body = b.do(t, "POST", "/api/bookings/manage/"+token2+"/reschedule", `{"start_time":"2026-06-04T15:00:00Z"}`)
		require.Equal(t, 404, code)
		require.JSONEq(t, `{"message":"That service is no longer taking bookings."}`, body)

		// Re-issue: the old token is a 404, the new one works.
		fresh, err := b.svc.ReissueManageToken(context.Background(), other.ID)
		require.NoError(t, err)
		require.Regexp(t, `^[0-9a-f]{64}$`, fresh)
		code, _ = b.do(t, "GET", "/api/bookings/manage/"+token2, "")
		require.Equal(t, 404, code)
		code, _ = b.do(t, "GET", "/api/bookings/manage/"+fresh, "")
		require.Equal(t, 200, code)
	})
}

// Cancelling can be turned off (403), checked after "not active".
func TestManageCancelDisabled(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	svc, err := bookings.NewService(bookingssql.New(b.db), &bookings.Options{Now: b.clock.Now, DisableSelfCancel: true})
	require.NoError(t, err)
	b2 := serveBundle(t, b.db, svc, b.clock)
	_, token := bookWithToken(t, b, "2026-06-03T14:00:00Z")
	code, body := b2.do(t, "POST", "/api/bookings/manage/"+token+"/cancel", `{}`)
	require.Equal(t, 403, code)
	require.JSONEq(t, `{"message":"`+bookings.MsgCancelDisabled+`"}`, body)
	code, body = b2.do(t, "GET", "/api/bookings/manage/"+token, "")
	require.Equal(t, 200, code)
	require.Contains(t, body, `"can_cancel":false,"can_reschedule":true`)
}

// The manage buckets run before the token is looked up: per IP for GET,
// per token for every route.
func TestManageBuckets(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	h, err := bookings.NewHandler(b.svc, &bookings.HandlerOptions{ManageGetLimit: 2, ManageTokenLimit: 3, PostLimit: -1})
	require.NoError(t, err)
	limited := serveHandler(t, h)
	forged := strings.Repeat("a", 64)
	for range 2 {
		code, _ := limited.do(t, "GET", "/api/bookings/manage/"+forged, "")
		require.Equal(t, 404, code)
	}
	code, body := limited.do(t, "GET", "/api/bookings/manage/"+forged, "")
	require.Equal(t, 429, code, "the IP bucket, even for a token that does not exist")
	require.Contains(t, body, bookings.MsgTooMany)
	// The token bucket: a third POST on one token passes, a fourth is refused.
	for range 1 {
		code, _ = limited.do(t, "POST", "/api/bookings/manage/"+forged+"/cancel", `{}`)
		require.Equal(t, 404, code)
	}
	code, _ = limited.do(t, "POST", "/api/bookings/manage/"+forged+"/cancel", `{}`)
	require.Equal(t, 429, code, "two GETs and two POSTs on one token, three allowed")
}

// The page's bucket of bookings a minute counts only attempts that could
// book: a customer's mistakes do not spend it, and a manage link's
// changes have buckets of their own, so a customer who spent the bookings
// bucket can still cancel; a refusal says when to try again.
func TestPageBucketsSpareCustomers(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	pages, err := bookings.NewPageHandler(b.svc, &bookings.PageOptions{PostLimit: 2})
	require.NoError(t, err)
	srv := httptest.NewServer(pages)
	t.Cleanup(srv.Close)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path, form string) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", srv.URL)
		res, err := client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	book := func(start, email string) (int, string) {
		return post("/bookings/consultation", "start_time="+url.QueryEscape(start)+"&customer_name=Grace&customer_email="+url.QueryEscape(email))
	}
	for range 5 {
		code, _ := book("2026-06-02T13:00:00Z", "not an address")
		require.Equal(t, http.StatusUnprocessableEntity, code, "a mistake is answered, and not counted")
	}
	code, _ := book("2026-06-02T13:00:00Z", "grace@example.com")
	require.Equal(t, http.StatusSeeOther, code)
	code, _ = book("2026-06-02T14:00:00Z", "grace@example.com")
	require.Equal(t, http.StatusSeeOther, code)
	code, body := book("2026-06-02T15:00:00Z", "grace@example.com")
	require.Equal(t, http.StatusTooManyRequests, code, "the third booking in a minute")
	require.Regexp(t, `Please wait \d+ seconds`, body)

	_, token := bookWithToken(t, b, "2026-06-03T14:00:00Z")
	code, _ = post("/bookings/manage/"+token+"/cancel", "reason=changed+plans")
	require.Equal(t, http.StatusSeeOther, code, "the manage link has buckets of its own")
}

// Every failure of the pages is an error page from the one error path:
// a link's bucket spent (429, with the way back), a link that names no
// booking, a body past the limit, an address that is not text, a store
// that fails (500, with nothing of the cause shown).
func TestPageErrorPaths(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	pages, err := bookings.NewPageHandler(b.svc, &bookings.PageOptions{ManageTokenLimit: 2})
	require.NoError(t, err)
	srv := httptest.NewServer(pages)
	t.Cleanup(srv.Close)
	do := func(method, path, form string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", srv.URL)
		res, err := http.DefaultTransport.RoundTrip(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, string(body)
	}
	_, token := bookWithToken(t, b, "2026-06-03T14:00:00Z")
	for range 2 {
		code, _, _ := do("GET", "/bookings/manage/"+token, "")
		require.Equal(t, http.StatusOK, code)
	}
	code, h, body := do("GET", "/bookings/manage/"+token, "")
	require.Equal(t, http.StatusTooManyRequests, code)
	require.NotEmpty(t, h.Get("Retry-After"))
	require.Contains(t, body, "<h1>Too many requests</h1>")
	require.Regexp(t, `Please wait \d+ seconds`, body)
	require.Contains(t, body, `href="/bookings/manage/`+token+`"`)

	code, _, body = do("GET", "/bookings/manage/"+strings.Repeat("0", 64), "")
	require.Equal(t, http.StatusNotFound, code)
	require.Contains(t, body, "<h1>Booking link not valid</h1>")
	code, _, body = do("POST", "/bookings/consultation", "notes="+strings.Repeat("x", 70<<10))
	require.Equal(t, http.StatusRequestEntityTooLarge, code)
	require.Contains(t, body, "<h1>Form not understood</h1>")
	code, _, body = do("GET", "/bookings/consul%00tation", "")
	require.Equal(t, http.StatusNotFound, code)
	require.Contains(t, body, "<h1>Page not found</h1>")

	require.NoError(t, b.db.Close())
	code, _, body = do("GET", "/bookings/consultation", "")
	require.Equal(t, http.StatusInternalServerError, code)
	require.Contains(t, body, "<h1>Something went wrong</h1>")
	require.NotContains(t, body, "closed")
}
