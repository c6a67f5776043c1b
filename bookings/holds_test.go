package bookings_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// A hold keeps a slot for its holder alone for five minutes: it leaves
// the slot list, others get 409, the holder books with the token; an
// expired hold frees the slot and its token no longer works.
func TestHolds(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		const slot = "2026-06-03T15:00:00Z"
		code, body := b.do(t, "POST", "/api/bookings/services/consultation/holds", `{"start_time":"`+slot+`"}`)
		require.Equal(t, 201, code, body)
		var held struct {
			Data struct {
				HoldToken  string `json:"hold_token"`
				ExpiresAt  string `json:"expires_at"`
				ProviderID int64  `json:"provider_id"`
			}
		}
		require.NoError(t, json.Unmarshal([]byte(body), &held))
		require.Regexp(t, `^[0-9a-f]{64}$`, held.Data.HoldToken)
		require.Equal(t, "2026-06-01T08:05:00+00:00", held.Data.ExpiresAt)

		_, list := b.do(t, "GET", "/api/bookings/services/consultation/slots?from=2026-06-03&to=2026-06-03", "")
		require.NotContains(t, list, `"start":"2026-06-03T15:00:00+00:00"`, "held slots leave the list")
		code, _ = b.do(t, "POST", "/api/bookings/services/consultation/holds", `{"start_time":"`+slot+`"}`)
		require.Equal(t, 409, code, "one hold per slot")
		code, _ = b.do(t, "POST", "/api/bookings", bookBody("consultation", slot))
		require.Equal(t, 409, code, "not bookable without the token")
		code, body = b.do(t, "POST", "/api/bookings", bookBody("consultation", slot, "hold_token", "0000000000000000000000000000000000000000000000000000000000000000"))
		require.Equal(t, 422, code)
		require.Contains(t, body, bookings.MsgHoldInvalid)
		code, body = b.do(t, "POST", "/api/bookings", bookBody("consultation", "2026-06-03T16:00:00Z", "hold_token", held.Data.HoldToken))
		require.Equal(t, 422, code, "a token for another time")
		code, body = b.do(t, "POST", "/api/bookings", bookBody("consultation", slot, "hold_token", held.Data.HoldToken))
		require.Equal(t, 201, code, body)
		code, _ = b.do(t, "POST", "/api/bookings", bookBody("consultation", slot, "hold_token", held.Data.HoldToken))
		require.Equal(t, 422, code, "a hold serves once")

		// Expiry.
		const other = "2026-06-04T15:00:00Z"
		code, body = b.do(t, "POST", "/api/bookings/services/consultation/holds", `{"start_time":"`+other+`"}`)
		require.Equal(t, 201, code, body)
		require.NoError(t, json.Unmarshal([]byte(body), &held))
		b.clock.Advance(5 * time.Minute)
		_, list = b.do(t, "GET", "/api/bookings/services/consultation/slots?from=2026-06-04&to=2026-06-04", "")
		require.Contains(t, list, `"start":"2026-06-04T15:00:00+00:00"`, "an expired hold frees its slot")
		code, _ = b.do(t, "POST", "/api/bookings", bookBody("consultation", other, "hold_token", held.Data.HoldToken))
		require.Equal(t, 422, code, "an expired token")
		code, _ = b.do(t, "POST", "/api/bookings", bookBody("consultation", other))
		require.Equal(t, 201, code)

		code, body = b.do(t, "POST", "/api/bookings/services/consultation/holds", `{}`)
		require.Equal(t, 422, code)
		require.Contains(t, body, "The start time field is required.")
	})
}

// Seats: a service with max_bookings_per_slot 3 takes three bookings at
// one start, even when 60 race for them, and the slot leaves the list
// once full.
func TestSeats(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		st := bookingssql.New(b.db)
		class := b.service
		class.Slug, class.MaxBookingsPerSlot = "class", 3
		class, err := st.CreateService(context.Background(), class)
		require.NoError(t, err)
		require.NoError(t, st.LinkProvider(context.Background(), class.ID, b.provider.ID, nil, nil))
		counts := race(t, []*bundle{b}, 60, func(int) string { return bookBody("class", "2026-06-03T15:00:00Z") })
		require.Equal(t, map[int]int{201: 3, 409: 57}, counts)
		_, list := b.do(t, "GET", "/api/bookings/services/class/slots?from=2026-06-03&to=2026-06-03", "")
		require.NotContains(t, list, `"start":"2026-06-03T15:00:00+00:00"`)
		require.Contains(t, list, `"start":"2026-06-03T15:30:00+00:00"`)
		// A class does not share its time with another service.
		code, _ := b.do(t, "POST", "/api/bookings", bookBody("consultation", "2026-06-03T15:15:00Z"))
		require.Equal(t, 409, code)
		// Places left: the slot is still listed, saying how many.
		code, _ = b.do(t, "POST", "/api/bookings", bookBody("class", "2026-06-05T15:00:00Z"))
		require.Equal(t, 201, code)
		_, list = b.do(t, "GET", "/api/bookings/services/class/slots?from=2026-06-05&to=2026-06-05", "")
		require.Contains(t, list, `"start":"2026-06-05T15:00:00+00:00","end":"2026-06-05T15:30:00+00:00","provider_id":null,"seats_left":2}`)
		require.Contains(t, list, `"start":"2026-06-05T15:30:00+00:00","end":"2026-06-05T16:00:00+00:00","provider_id":null,"seats_left":3}`)
		_, one := b.do(t, "GET", "/api/bookings/services/consultation/slots?from=2026-06-05&to=2026-06-05", "")
		require.NotContains(t, one, "seats_left", "a service booked one at a time says nothing of places")
		// The booking page says it beside each time.
		pages, err := bookings.NewPageHandler(b.svc, nil)
		require.NoError(t, err)
		w := httptest.NewRecorder()
		pages.ServeHTTP(w, httptest.NewRequest("GET", "/bookings/class?date=2026-06-05&tz=UTC", nil))
		require.Equal(t, 200, w.Code)
		require.Contains(t, w.Body.String(), `value="2026-06-05T15:00:00Z" form="book" required>15:00 <small>2 places left</small></label>`)
		require.Contains(t, w.Body.String(), `15:30 <small>3 places left</small></label>`)
	})
}
