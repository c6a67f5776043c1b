package bookings_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// A service and a provider on SQLite, then a booking through the public
// API: the same slot twice is a 409.
func ExampleNewHandler() {
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
	now := func() time.Time { return time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC) }
	svc, _ := bookings.NewService(bookingssql.New(db), &bookings.Options{Now: now})
	dur := 30
	consult, _ := svc.CreateService(ctx, bookings.OfferingInput{Name: ptr("Consultation"), Duration: &dur, TimeZone: ptr("Europe/London")})
	sam, _ := svc.CreateProvider(ctx, bookings.ProviderInput{Name: ptr("Sam"), TimeZone: ptr("Europe/London")})
	_ = svc.Link(ctx, consult.Slug, sam.ID, bookings.LinkInput{})
	monday := 1
	_, _ = svc.AddHours(ctx, sam.ID, bookings.HoursInput{DayOfWeek: &monday, Start: ptr("09:00"), End: ptr("12:00")})

	h, _ := bookings.NewHandler(svc, nil)
	book := `{"service":"consultation","start_time":"2026-06-08T09:00:00+01:00","customer_name":"Grace","customer_email":"grace@example.com"}`
	for range 2 {
		r := httptest.NewRequest("POST", "/api/bookings", strings.NewReader(book))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Println(w.Code)
	}
	// Output:
	// 201
	// 409
}

func ptr[T any](v T) *T { return &v }

// A bookable service in one call: the service, a provider who offers it,
// and the provider's hours on weekdays. A service given no price is
// free.
func ExampleService_SetUp() {
	ctx := context.Background()
	db, done := storetest.Temp(bookingssql.Migrations) // your *store.DB, migrated
	defer done()
	now := func() time.Time { return time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC) }
	svc, _ := bookings.NewService(bookingssql.New(db), &bookings.Options{Now: now})
	consult, sam, err := svc.SetUp(ctx, bookings.Setup{
		Service:  bookings.OfferingInput{Name: bookings.Given("Consultation"), Duration: bookings.Given(30), TimeZone: bookings.Given("Europe/London")},
		Provider: bookings.ProviderInput{Name: bookings.Given("Sam"), TimeZone: bookings.Given("Europe/London")},
		Start:    "09:00", End: "10:00", // Monday to Friday
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(consult.Slug, sam.Name, "free:", consult.IsFree)
	london, _ := time.LoadLocation("Europe/London")
	monday := time.Date(2026, 6, 8, 0, 0, 0, 0, london)
	slots, _ := svc.Slots(ctx, consult, bookings.SlotQuery{From: monday, To: monday.AddDate(0, 0, 1)})
	for _, s := range slots {
		fmt.Println(s.Start.In(london).Format("Mon 15:04"))
	}
	// Output:
	// consultation Sam free: true
	// Mon 09:00
	// Mon 09:15
	// Mon 09:30
}
