package bookings_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// tokens is a TokenVerifier: the token is "caller:ability,ability".
type tokens struct{}

func (tokens) VerifyToken(_ context.Context, token string) (string, []string, error) {
	caller, abilities, ok := strings.Cut(token, ":")
	if !ok {
		return "", nil, nil
	}
	return caller, strings.Split(abilities, ","), nil
}

type admin struct {
	*bundle
	srv    *httptest.Server
	mu     sync.Mutex
	events []bookings.Event
	inTx   []bookings.Event
}

func setupAdmin(t testing.TB, d store.Dialect) *admin {
	t.Helper()
	b := setup(t, d)
	h, err := bookings.NewAdminHandler(b.svc, tokens{}, nil)
	require.NoError(t, err)
	a := &admin{bundle: b, srv: httptest.NewServer(apitest.Of(t, h).Handler(h))}
	t.Cleanup(a.srv.Close)
	b.svc.OnEvent(func(_ context.Context, e bookings.Event) {
		a.mu.Lock()
		a.events = append(a.events, e)
		a.mu.Unlock()
	})
	b.svc.OnEventTx(func(_ context.Context, tx *sql.Tx, e bookings.Event) error {
		if tx == nil {
			return errors.New("no transaction")
		}
		a.mu.Lock()
		a.inTx = append(a.inTx, e)
		a.mu.Unlock()
		return nil
	})
	return a
}

func (a *admin) call(t testing.TB, token, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, a.srv.URL+"/api/bookings/admin"+path, strings.NewReader(body))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := a.srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(out)
}

// eventTypes are the types of the events delivered after commit, each
// recorded inside its change's transaction first.
func (a *admin) eventTypes(t *testing.T) []string {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	require.Equal(t, a.inTx, a.events, "each event delivered after commit was recorded in its transaction first")
	var out []string
	for _, e := range a.events {
		out = append(out, e.Type)
	}
	return out
}

const all = "admin:bookings:*"

func TestAdminTransitions(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		a := setupAdmin(t, d)
		book := func(start string) int64 {
			code, body := a.do(t, "POST", "/api/bookings", bookBody("consultation", start))
			require.Equal(t, 201, code, body)
			var out struct{ Data struct{ ID int64 } }
			require.NoError(t, json.Unmarshal([]byte(body), &out))
			return out.Data.ID
		}
		first := book("2026-06-02T14:00:00Z")
		require.Equal(t, []string{bookings.EventCreated}, a.eventTypes(t), "one event for a booking confirmed as it is made")
		a.mu.Lock()
		require.Equal(t, bookings.StatusConfirmed, a.events[0].Booking.Status, "with the status it was made with")
		a.mu.Unlock()

		code, _ := a.call(t, "", "GET", "/bookings", "")
		require.Equal(t, 401, code)
		code, body := a.call(t, "x:bookings:view", "POST", "/bookings/1/cancel", `{}`)
		require.Equal(t, 403, code, body)
		code, body = a.call(t, "x:bookings:view", "GET", "/bookings/1", "")
		require.Equal(t, 200, code)
		require.Contains(t, body, `"booking_number":"BK-`)
		require.NotContains(t, body, "manage")
		code, _ = a.call(t, all, "GET", "/bookings/999", "")
		require.Equal(t, 404, code)

		code, body = a.call(t, all, "POST", "/bookings/1/confirm", "")
		require.Equal(t, 409, code)
		require.JSONEq(t, `{"message":"This booking is confirmed, so it cannot be confirmed."}`, body)

		// Reschedule onto a time that overlaps its own: allowed (the
		// booking is left out of its own clash check).
		code, body = a.call(t, all, "POST", "/bookings/1/reschedule", `{"start_time":"2026-06-02T14:15:00Z"}`)
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"start_time":"2026-06-02T14:15:00+00:00"`)
		require.Contains(t, body, `"status":"confirmed"`)
		second := book("2026-06-02T15:00:00Z")
		code, body = a.call(t, all, "POST", "/bookings/1/reschedule", `{"start_time":"2026-06-02T15:00:00Z"}`)
		require.Equal(t, 409, code, "onto another booking")
		require.Contains(t, body, bookings.MsgTaken)
		code, _ = a.call(t, all, "POST", "/bookings/1/reschedule", `{"start_time":"soon"}`)
		require.Equal(t, 422, code)

		// Reassign to another provider at the same time.
		st := bookingssql.New(a.db)
		bo := newProvider(t, st, "bo", "America/New_York")
		weekdays(t, st, bo.ID, 9*60, 17*60)
		require.NoError(t, st.LinkProvider(context.Background(), a.service.ID, bo.ID, nil, nil))
		code, body = a.call(t, all, "POST", "/bookings/2/reassign", `{"provider_id":`+itoa(bo.ID)+`}`)
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"provider_id":`+itoa(bo.ID))
		code, _ = a.call(t, all, "POST", "/bookings/2/reassign", `{"provider_id":77}`)
		require.Equal(t, 422, code)

		// Final states are final.
		code, _ = a.call(t, all, "POST", "/bookings/1/cancel", `{"reason":"Ill"}`)
		require.Equal(t, 200, code)
		for _, c := range []struct{ path, text string }{
			{"/bookings/1/cancel", "This booking is cancelled, so it cannot be cancelled."},
			{"/bookings/1/complete", "This booking is cancelled, so it cannot be completed."},
			{"/bookings/1/no-show", "This booking is cancelled, so it cannot be marked as a no-show."},
			{"/bookings/1/reschedule", "This booking is cancelled, so it cannot be rescheduled."},
		} {
			code, body = a.call(t, all, "POST", c.path, `{"start_time":"2026-06-03T14:00:00Z"}`)
			require.Equal(t, 409, code, c.path)
			require.Contains(t, body, c.text)
		}
		code, _ = a.call(t, all, "POST", "/bookings/2/complete", "")
		require.Equal(t, 200, code)
		third := book("2026-06-04T14:00:00Z")
		code, _ = a.call(t, all, "POST", "/bookings/3/no-show", "")
		require.Equal(t, 200, code)
		code, _ = a.call(t, all, "POST", "/bookings/1/cancel", `{"reason":"`+strings.Repeat("x", 1001)+`"}`)
		require.Equal(t, 422, code)

		// Requested bookings wait for a confirmation.
		manual, err := bookings.NewService(bookingssql.New(a.db), &bookings.Options{Now: a.clock.Now, ManualConfirm: true})
		require.NoError(t, err)
		req, _, err := manual.Create(context.Background(), bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-05T14:00:00Z"),
			CustomerName: "G", CustomerEmail: "g@example.com"})
		require.NoError(t, err)
		require.Equal(t, bookings.StatusRequested, req.Status)
		code, body = a.call(t, all, "POST", "/bookings/"+itoa(req.ID)+"/confirm", "")
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"status":"confirmed"`)

		require.Equal(t, []string{bookings.EventCreated, bookings.EventRescheduled, bookings.EventCreated,
			bookings.EventReassigned, bookings.EventCancelled, bookings.EventCompleted, bookings.EventCreated,
			bookings.EventNoShow, bookings.EventConfirmed}, a.eventTypes(t))
		a.mu.Lock()
		require.Equal(t, "Ill", a.events[4].Reason)
		require.Equal(t, mustTime("2026-06-02T14:00:00Z"), a.events[1].PreviousStart)
		require.Equal(t, a.provider.ID, *a.events[3].PreviousProviderID)
		require.Regexp(t, `^[0-9a-f]{64}$`, a.events[0].ManageToken)
		a.mu.Unlock()

		// The list, filtered and paged.
		code, body = a.call(t, all, "GET", "/bookings?per_page=2", "")
		require.Equal(t, 200, code, body)
		var page struct {
			Data []struct{ ID int64 }
			Meta struct{ Total int }
		}
		require.NoError(t, json.Unmarshal([]byte(body), &page))
		require.Equal(t, 4, page.Meta.Total)
		require.Len(t, page.Data, 2)
		require.Equal(t, []int64{first, second}, []int64{page.Data[0].ID, page.Data[1].ID})
		code, body = a.call(t, all, "GET", "/bookings?status=no_show", "")
		require.Equal(t, 200, code)
		require.NoError(t, json.Unmarshal([]byte(body), &page))
		require.Equal(t, third, page.Data[0].ID)
		code, body = a.call(t, all, "GET", "/bookings?from=2026-06-04&to=2026-06-05", "")
		require.Equal(t, 200, code)
		require.NoError(t, json.Unmarshal([]byte(body), &page))
		require.Equal(t, 2, page.Meta.Total, "both dates included")
		code, body = a.call(t, all, "GET", "/bookings?provider_id="+itoa(bo.ID), "")
		require.Equal(t, 200, code)
		require.NoError(t, json.Unmarshal([]byte(body), &page))
		require.Equal(t, []int64{second, third}, []int64{page.Data[0].ID, page.Data[1].ID}, "the reassigned one, and round robin's next")
		code, _ = a.call(t, all, "GET", "/bookings?status=lost&from=soon", "")
		require.Equal(t, 422, code)

		// A new manage token goes to the hook, not the response.
		code, body = a.call(t, all, "POST", "/bookings/2/manage-token", "")
		require.Equal(t, 204, code, body)
		require.Empty(t, body)
		a.mu.Lock()
		last := a.events[len(a.events)-1]
		a.mu.Unlock()
		require.Equal(t, bookings.EventManageTokenReissued, last.Type)
		require.Regexp(t, `^[0-9a-f]{64}$`, last.ManageToken)
		code, _ = a.do(t, "GET", "/api/bookings/manage/"+last.ManageToken, "")
		require.Equal(t, 200, code)
		code, _ = a.call(t, all, "POST", "/bookings/999/manage-token", "")
		require.Equal(t, 404, code)
	})
}
