package calendars_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingsical"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/bookings/calendars/calendarssql"
	"github.com/groundwork-go/groundwork/store"
)

func ptr[T any](v T) *T { return &v }

// A provider's calendar, read from its secret ICS address: its busy time
// is not offered, and the customer never learns what it was.
func ExampleNew() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "groundwork-example")
	defer os.RemoveAll(dir)
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "app.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if err := store.Migrate(ctx, db, bookingssql.Migrations); err != nil {
		panic(err)
	}
	// The provider's calendar: a dentist's appointment on Monday at 10:00.
	ics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/calendar")
		fmt.Fprint(w, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:example\r\nBEGIN:VEVENT\r\nUID:dentist\r\n"+
			"DTSTART:20260601T090000Z\r\nDTEND:20260601T100000Z\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
	}))
	defer ics.Close()

	now := func() time.Time { return time.Date(2026, 5, 31, 8, 0, 0, 0, time.UTC) }
	key := []byte("32 bytes of key, kept somewhere!")
	svc, _ := bookings.NewService(bookingssql.New(db), &bookings.Options{Now: now, SecretKey: key})
	// The calendars, attached to the bookings service.
	cals, err := calendars.New(calendarssql.New(db), svc, &calendars.Options{Now: now, SecretKey: key,
		Sources: map[calendars.Kind]calendars.Source{
			// AllowPrivateHosts only because the example's server is on 127.0.0.1.
			calendars.ICS: bookingsical.NewICS(&bookingsical.Options{AllowPrivateHosts: true})}})
	if err != nil {
		panic(err)
	}
	dur := 60
	consult, _ := svc.CreateService(ctx, bookings.OfferingInput{Name: ptr("Consultation"), Duration: &dur, TimeZone: ptr("Europe/London")})
	sam, _ := svc.CreateProvider(ctx, bookings.ProviderInput{Name: ptr("Sam"), TimeZone: ptr("Europe/London")})
	_ = svc.Link(ctx, consult.Slug, sam.ID, bookings.LinkInput{})
	monday := 1
	_, _ = svc.AddHours(ctx, sam.ID, bookings.HoursInput{DayOfWeek: &monday, Start: ptr("09:00"), End: ptr("12:00")})

	c, _, err := cals.Connect(ctx, calendars.Input{ProviderID: sam.ID, Kind: calendars.ICS, Name: "Personal", URL: ics.URL + "/secret.ics"})
	if err != nil {
		panic(err)
	}
	if _, err := cals.Sync(ctx, c.ID); err != nil { // the periodic job does this every 5 minutes
		panic(err)
	}
	offering, _ := svc.ActiveService(ctx, consult.Slug)
	from := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	slots, _ := svc.Slots(ctx, offering, bookings.SlotQuery{From: from, To: from.Add(24 * time.Hour)})
	for _, s := range slots {
		fmt.Println(s.Start.In(time.UTC).Format("15:04Z"))
	}
	// Output:
	// 08:00Z
	// 10:00Z
}
