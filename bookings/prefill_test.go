package bookings_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// A booking made from a routing form's submission keeps it, and the admin
// API answers it (checked against the description); a prefilled address
// needs the service's pages' address and key.
func TestBookingFromForm(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		a := setupAdmin(t, d)
		from := &bookings.FromForm{Form: "demo", FormID: 3, SubmissionID: 42, Number: "FORM-2026-00042", URL: "/form-answers/demo/submissions/42"}
		b, _, err := a.svc.Create(context.Background(), bookings.NewBooking{ServiceSlug: "consultation", Start: time.Date(2026, 6, 2, 13, 0, 0, 0, time.UTC),
			CustomerName: "Ann", CustomerEmail: "ann@example.com", FromForm: from})
		require.NoError(t, err)
		require.Equal(t, from, b.FromForm)
		got, err := a.svc.Booking(context.Background(), b.ID)
		require.NoError(t, err)
		require.Equal(t, from, got.FromForm)
		code, body := a.call(t, "desk:bookings:view", "GET", "/bookings/"+strconv.FormatInt(b.ID, 10), "")
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"from_form":{"form":"demo","form_id":3,"submission_id":42,"number":"FORM-2026-00042","url":"/form-answers/demo/submissions/42"}`)

		_, err = a.svc.PrefillURL("consultation", bookings.Prefill{Name: "Ann"})
		require.ErrorContains(t, err, "PagesURL")
	})
}
