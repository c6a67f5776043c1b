package bookings_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

const manager = "desk:bookings:manage"

// The catalog over the admin API: what the original let through is
// refused at write time, and what is written shows in the slots.
func TestAdminCatalog(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		a := setupAdmin(t, d)
		code, _ := a.call(t, "x:bookings:view", "GET", "/services", "")
		require.Equal(t, 403, code)
		for _, c := range []struct{ body, field string }{
			{`{"name":"Zero","duration":0}`, "duration"},
			{`{"name":"NoLength"}`, "duration"},
			{`{"duration":30}`, "name"},
			{`{"name":"Mars","duration":30,"timezone":"Mars/Base"}`, "timezone"},
			{`{"name":"RR","duration":30,"assignment_strategy":"lottery"}`, "assignment_strategy"},
			{`{"name":"Pricey","duration":30,"price":"12.345"}`, "price"},
			{`{"name":"Slug","duration":30,"slug":"Not A Slug"}`, "slug"},
			{`{"name":"Dup","duration":30,"slug":"consultation"}`, "slug"},
			{`{"name":"Intake","duration":30,"intake_schema":{"fields":[{"name":"Topic","type":"select"}]}}`, "intake_schema.fields.0.name"},
			{`{"name":"Seats","duration":30,"max_bookings_per_slot":0}`, "max_bookings_per_slot"},
			{`{"name":"Def","duration":30,"default_provider_id":99}`, "default_provider_id"},
		} {
			code, body := a.call(t, manager, "POST", "/services", c.body)
			require.Equal(t, 422, code, c.body)
			require.Contains(t, body, `"`+c.field+`"`, c.body)
		}
		_, body := a.call(t, manager, "POST", "/services", `{"name":"Dup","duration":30,"slug":"consultation"}`)
		require.Contains(t, body, `The slug \"consultation\" has already been taken by another service.`, "the message names what took it")
		code, body = a.call(t, manager, "POST", "/services", `{"name":"Hair Cut","duration":45,"buffer_after":15,"price":"20",
			"timezone":"Europe/Berlin","intake_schema":{"fields":[{"name":"length","type":"select","options":["short","long"],"required":true}]}}`)
		require.Equal(t, 201, code, body)
		var svc struct {
			Data struct {
				ID            int64
				Slug          string
				Price         string
				IntakeVersion int `json:"intake_schema_version"`
			}
		}
		require.NoError(t, json.Unmarshal([]byte(body), &svc))
		require.Equal(t, "hair-cut", svc.Data.Slug)
		require.Equal(t, "20.00", svc.Data.Price)
		require.Equal(t, 1, svc.Data.IntakeVersion)
		code, body = a.call(t, manager, "PATCH", "/services/hair-cut", `{"intake_schema":{"fields":[{"name":"length","type":"text"}]},"description":"Short or long"}`)
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"intake_schema_version":2`)
		require.Contains(t, body, `"description":"Short or long"`)
		code, _ = a.call(t, manager, "PATCH", "/services/nope", `{}`)
		require.Equal(t, 404, code)

		code, body = a.call(t, manager, "POST", "/providers", `{"name":"Bea","timezone":"Nowhere/City"}`)
		require.Equal(t, 422, code)
		require.Contains(t, body, "The timezone field must be a valid timezone.")
		code, body = a.call(t, manager, "POST", "/providers", `{"name":"Bea Berlin","timezone":"Europe/Berlin","email":"bea@example.com"}`)
		require.Equal(t, 201, code, body)
		require.Contains(t, body, `"slug":"bea-berlin"`)
		require.Contains(t, body, `"email":"bea@example.com"`)
		code, _ = a.call(t, manager, "PUT", "/services/hair-cut/providers/2", `{}`)
		require.Equal(t, 204, code)
		code, _ = a.call(t, manager, "PUT", "/services/hair-cut/providers/77", `{}`)
		require.Equal(t, 404, code)

		for _, c := range []struct{ body, field string }{
			{`{"day_of_week":7,"start_time":"09:00","end_time":"17:00"}`, "day_of_week"},
			{`{"day_of_week":1,"start_time":"17:00","end_time":"09:00"}`, "end_time"},
			{`{"day_of_week":1,"start_time":"9am","end_time":"17:00"}`, "start_time"},
			{`{"day_of_week":1,"start_time":"09:00","end_time":"17:00","effective_from":"2026-07-01","effective_until":"2026-06-01"}`, "effective_until"},
		} {
			code, body := a.call(t, manager, "POST", "/providers/2/hours", c.body)
			require.Equal(t, 422, code, c.body)
			require.Contains(t, body, `"`+c.field+`"`, c.body)
		}
		// Hours that cross midnight: refused, naming the rule and how to
		// write them.
		code, body = a.call(t, manager, "POST", "/providers/2/hours", `{"day_of_week":1,"start_time":"20:00","end_time":"02:00"}`)
		require.Equal(t, 422, code)
		require.Contains(t, body, `"The end time field must be after the start time: hours end on the day they start. `+
			`For 20:00 to 02:00, add 20:00 to 24:00 on this day and 00:00 to 02:00 on the next."`)
		code, body = a.call(t, manager, "POST", "/providers/2/overrides", `{"date":"2026-06-02","type":"custom_hours","start_time":"20:00","end_time":"02:00"}`)
		require.Equal(t, 422, code)
		require.Contains(t, body, `For 20:00 to 02:00, give this date 20:00 to 24:00 and the next date 00:00 to 02:00.`)
		code, body = a.call(t, manager, "POST", "/providers/2/hours", `{"day_of_week":2,"start_time":"09:00","end_time":"10:00"}`)
		require.Equal(t, 201, code, body)
		require.Contains(t, body, `"start_time":"09:00"`)
		code, _ = a.call(t, manager, "POST", "/providers/2/hours", `{"day_of_week":3,"start_time":"09:00","end_time":"24:00"}`)
		require.Equal(t, 201, code)
		code, body = a.call(t, manager, "GET", "/providers/2/hours", "")
		require.Equal(t, 200, code)
		require.Contains(t, body, `"end_time":"24:00"`)
		_, list := a.do(t, "GET", "/api/bookings/services/hair-cut/slots?from=2026-06-02&to=2026-06-02", "")
		require.Contains(t, list, `"start":"2026-06-02T07:00:00+00:00"`, "09:00 Berlin time")
		require.Contains(t, list, `"start":"2026-06-02T07:15:00+00:00"`)
		require.NotContains(t, list, `"start":"2026-06-02T07:30:00+00:00"`, "45 minutes fit until 10:00 only from 09:15")

		code, body = a.call(t, manager, "POST", "/providers/2/overrides", `{"date":"2026-06-02","type":"holiday"}`)
		require.Equal(t, 422, code)
		require.Contains(t, body, `"type"`)
		code, body = a.call(t, manager, "POST", "/providers/2/overrides", `{"date":"2026-06-02","type":"unavailable","reason":"Dentist"}`)
		require.Equal(t, 201, code, body)
		_, list = a.do(t, "GET", "/api/bookings/services/hair-cut/slots?from=2026-06-02&to=2026-06-02", "")
		require.JSONEq(t, `{"data":[]}`, list)
		code, _ = a.call(t, manager, "DELETE", "/providers/2/overrides/1", "")
		require.Equal(t, 204, code)
		code, _ = a.call(t, manager, "DELETE", "/providers/2/overrides/1", "")
		require.Equal(t, 404, code)

		code, body = a.call(t, manager, "POST", "/blackouts", `{"service_id":`+itoa(svc.Data.ID)+`,"starts_on":"2026-06-02","ends_on":"2026-06-01"}`)
		require.Equal(t, 422, code)
		require.Contains(t, body, `"ends_on"`)
		code, _ = a.call(t, manager, "POST", "/blackouts", `{"service_id":`+itoa(svc.Data.ID)+`,"starts_on":"2026-06-02","ends_on":"2026-06-02"}`)
		require.Equal(t, 201, code)
		_, list = a.do(t, "GET", "/api/bookings/services/hair-cut/slots?from=2026-06-02&to=2026-06-02", "")
		require.JSONEq(t, `{"data":[]}`, list)
		code, body = a.call(t, manager, "GET", "/blackouts", "")
		require.Equal(t, 200, code)
		require.Contains(t, body, `"starts_on":"2026-06-02"`)
		code, _ = a.call(t, manager, "DELETE", "/blackouts/1", "")
		require.Equal(t, 204, code)

		// Deactivating the service takes it off the public API.
		code, _ = a.call(t, manager, "PATCH", "/services/hair-cut", `{"is_active":false}`)
		require.Equal(t, 200, code)
		code, _ = a.do(t, "GET", "/api/bookings/services/hair-cut/slots?date=2026-06", "")
		require.Equal(t, 404, code)
		code, _ = a.call(t, manager, "DELETE", "/services/hair-cut/providers/2", "")
		require.Equal(t, 204, code)
		code, body = a.call(t, manager, "GET", "/providers", "")
		require.Equal(t, 200, code)
		require.Contains(t, body, `"round_robin_weight":1`)
	})
}

// Feed tokens over the admin API: minted (shown once), rotated, revoked.
func TestAdminFeedTokens(t *testing.T) {
	t.Parallel()
	a := setupAdmin(t, store.SQLite)
	path := "/providers/" + itoa(a.provider.ID) + "/feed-token"
	code, _ := a.call(t, "x:bookings:view", "POST", path, "")
	require.Equal(t, 403, code)
	code, body := a.call(t, manager, "POST", path, "")
	require.Equal(t, 201, code, body)
	var got struct{ Data struct{ Token string } }
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	require.Regexp(t, `^[0-9a-f]{64}$`, got.Data.Token)
	feed, err := a.svc.ProviderFeed(context.Background(), got.Data.Token, "")
	require.NoError(t, err)
	require.Contains(t, string(feed.Body), "X-WR-CALNAME:Ada")
	code, body = a.call(t, manager, "POST", path, "")
	require.Equal(t, 201, code)
	require.NotContains(t, body, got.Data.Token)
	_, err = a.svc.ProviderFeed(context.Background(), got.Data.Token, "")
	require.ErrorIs(t, err, bookings.ErrNoCalendar, "rotated")
	code, _ = a.call(t, manager, "DELETE", path, "")
	require.Equal(t, 204, code)
	code, _ = a.call(t, manager, "POST", "/providers/999/feed-token", "")
	require.Equal(t, 404, code)
	code, _ = a.call(t, manager, "DELETE", "/providers/999/feed-token", "")
	require.Equal(t, 404, code)
}

// A service is free unless it has a price; an explicit is_free wins; a
// price given later makes it not free.
func TestFreeFollowsThePrice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, err := bookings.NewService(bookingssql.New(storetest.Open(t, store.SQLite, bookingssql.Migrations)), nil)
	require.NoError(t, err)
	free, err := svc.CreateService(ctx, bookings.OfferingInput{Name: bookings.Given("Chat"), Duration: bookings.Given(15)})
	require.NoError(t, err)
	require.True(t, free.IsFree)
	require.Nil(t, free.Price)
	paid, err := svc.CreateService(ctx, bookings.OfferingInput{Name: bookings.Given("Cut"), Duration: bookings.Given(45), Price: bookings.Given("25")})
	require.NoError(t, err)
	require.False(t, paid.IsFree)
	told, err := svc.CreateService(ctx, bookings.OfferingInput{Name: bookings.Given("Trial"), Duration: bookings.Given(45), Price: bookings.Given("25"),
		IsFree: bookings.Given(true)})
	require.NoError(t, err)
	require.True(t, told.IsFree)
	priced, err := svc.UpdateService(ctx, free.Slug, bookings.OfferingInput{Price: bookings.Given("10")})
	require.NoError(t, err)
	require.False(t, priced.IsFree)
	renamed, err := svc.UpdateService(ctx, told.Slug, bookings.OfferingInput{Name: bookings.Given("Trial cut")})
	require.NoError(t, err)
	require.True(t, renamed.IsFree, "an update that does not touch the price keeps is_free")
}

// Calendar connections over the admin API: made after a first read (the
// address never answered), listed, chosen, read now (a failure is a 422
// that says why), disconnected; each answer checked against the
// description.
func TestAdminCalendars(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	svc := calendarService(t, b.db, b.clock)
	h, err := calendars.NewAdminHandler(svc.cal, tokens{}, nil)
	require.NoError(t, err)
	a := &admin{bundle: b, srv: httptest.NewServer(apitest.Of(t, h).Handler(h))}
	t.Cleanup(a.srv.Close)
	cs := newCalendarServer(t)
	cs.event("dentist", "2026-06-02T14:00", "2026-06-02T15:00")
	p := "/providers/" + itoa(b.provider.ID) + "/calendars"

	code, _ := a.call(t, "x:bookings:view", "GET", p, "")
	require.Equal(t, 403, code)
	code, body := a.call(t, manager, "POST", p, `{"kind":"ics","name":"Diary","url":"`+cs.URL+`/nope.ics"}`)
	require.Equal(t, 422, code, body)
	require.JSONEq(t, `{"message":"The calendar could not be read. There is no calendar at that address. Check it and try again."}`, body)
	code, body = a.call(t, manager, "POST", p, `{"kind":"ics","name":"Diary","url":"`+cs.address()+`","colour":"red"}`)
	require.Equal(t, 422, code, body)
	code, body = a.call(t, manager, "POST", p, `{"kind":"ics","name":"Diary","url":"`+cs.address()+`"}`)
	require.Equal(t, 201, code, body)
	require.NotContains(t, body, "s3cr3t")
	require.Contains(t, body, `"available_calendars":[{"id":"","name":"Ada's diary"}]`)
	var made struct{ Data calendars.Connection }
	require.NoError(t, json.Unmarshal([]byte(body), &made))
	c := "/calendars/" + itoa(made.Data.ID)
	// Another tenant's token finds neither the provider's connections nor
	// this one.
	for _, r := range []struct{ method, path, body string }{{"GET", p, ""}, {"POST", p, `{"kind":"ics","name":"X","url":"` + cs.address() + `"}`},
		{"GET", c, ""}, {"PATCH", c, `{"name":"Taken"}`}, {"POST", c + "/sync", ""}, {"DELETE", c, ""},
		{"POST", "/providers/" + itoa(b.provider.ID) + "/calendar-page-link", ""}} {
		code, body := a.call(t, "acme:bookings:*,tenant:acme", r.method, r.path, r.body)
		require.Equal(t, 404, code, "%s %s: %s", r.method, r.path, body)
	}

	code, body = a.call(t, manager, "GET", p, "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"stale":false`)
	code, body = a.call(t, manager, "POST", c+"/sync", "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"last_error":""`)
	require.NotContains(t, dayStarts(t, svc, b, "2026-06-02"), "14:00")
	code, body = a.call(t, manager, "PATCH", c, `{"name":"My diary","block_when_stale":true}`)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"name":"My diary"`)
	require.Contains(t, body, `"block_when_stale":true`)
	code, body = a.call(t, manager, "PATCH", c, `{"destination":"/somewhere/"}`)
	require.Equal(t, 422, code, body)
	require.Contains(t, body, "This kind of calendar cannot be written to.")

	cs.fail(500)
	code, body = a.call(t, manager, "POST", c+"/sync", "")
	require.Equal(t, 422, code, body)
	require.JSONEq(t, `{"message":"The calendar could not be read. The calendar's server is not answering properly just now. It will be read again shortly."}`, body)
	code, body = a.call(t, manager, "GET", c, "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"failures":1`)
	require.Contains(t, body, `"last_error":"The calendar's server is not answering properly just now. It will be read again shortly."`)

	code, _ = a.call(t, manager, "DELETE", c, "")
	require.Equal(t, 204, code)
	for _, path := range []string{c, c + "/sync", "/calendars/x", "/providers/999/calendars"} {
		method := "GET"
		if strings.HasSuffix(path, "/sync") {
			method = "POST"
		}
		code, _ = a.call(t, manager, method, path, "")
		require.Equal(t, 404, code, path)
	}
	require.NotContains(t, dayStarts(t, svc, b, "2026-06-02"), "dentist", "nothing of the calendar is left")
	require.Contains(t, dayStarts(t, svc, b, "2026-06-02"), "14:00")
}
