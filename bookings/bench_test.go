package bookings_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// busySite is a service with 10 providers, each with 6 windows a week
// (mornings and afternoons, Monday to Wednesday), and 500 bookings in
// June 2026.
func busySite(b *testing.B, d store.Dialect) (*bundle, bookings.Offering) {
	b.Helper()
	bd := setup(b, d)
	ctx := context.Background()
	st := bookingssql.New(bd.db)
	svc := newOffering(b, st, "busy", 30)
	var providers []bookings.Provider
	for i := range 10 {
		p := newProvider(b, st, fmt.Sprintf("p%02d", i), "America/New_York")
		providers = append(providers, p)
		if err := st.LinkProvider(ctx, svc.ID, p.ID, nil, nil); err != nil {
			b.Fatal(err)
		}
		for d := time.Monday; d <= time.Wednesday; d++ {
			for _, w := range [][2]int{{8 * 60, 12 * 60}, {13 * 60, 18 * 60}} {
				if _, err := st.AddWeeklyHours(ctx, bookings.WeeklyHours{ProviderID: p.ID, Weekday: d, Start: w[0], End: w[1], IsAvailable: true}); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	n := 0
	for day := 1; n < 500 && day <= 30; day++ {
		for _, p := range providers {
			for slot := 0; slot < 4 && n < 500; slot++ {
				start := time.Date(2026, 6, day, 13+2*slot, 0, 0, 0, time.UTC)
				id := p.ID
				_, err := st.Reserve(ctx, bookings.Reservation{Booking: bookings.Booking{Number: fmt.Sprintf("BK-%012d", n), ServiceID: svc.ID,
					ProviderID: &id, Status: bookings.StatusConfirmed, Start: start, End: start.Add(30 * time.Minute), CustomerName: "G",
					CustomerEmail: "g@example.com", CustomerTimeZone: "UTC", AssignmentStrategy: "api", CreatedAt: now, UpdatedAt: now},
					ManageTokenHash: []byte(fmt.Sprint(n)), Lock: "seed", LockWait: time.Second, BusyFrom: start, BusyTo: start})
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
		}
	}
	return bd, svc
}

// A month of slots, uncached: the calendar in four queries and the
// engine over 10 providers × 30 days.
func BenchmarkMonthOfSlots(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			bd, svc := busySite(b, d)
			loc, _ := time.LoadLocation(svc.TimeZone)
			from, to := bookings.MonthSpan(2026, time.June, loc)
			b.ReportAllocs()
			for b.Loop() {
				slots, err := bd.svc.Slots(context.Background(), svc, bookings.SlotQuery{From: from, To: to})
				if err != nil || len(slots) == 0 {
					b.Fatal(err, len(slots))
				}
			}
		})
	}
}

// Creates over loopback HTTP, spread over many providers and days (every
// request a free slot), and all fighting for one provider's day.
func BenchmarkCreate(b *testing.B) {
	for _, d := range storetest.Dialects() {
		bd, _ := busySite(b, d)
		var next atomic.Int64
		// 10 providers × 3 weekdays × 13 weeks × 18 afternoon slots, each
		// taken once, round robin choosing the provider.
		body := func(i int64) string {
			day := time.Date(2026, 6, 8, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(i/180)%13*7+int(i/60)%3)
			start := day.Add(17*time.Hour + time.Duration(i%18)*15*time.Minute)
			return bookBody("busy", start.Format(time.RFC3339))
		}
		b.Run(string(d)+"/spread", func(b *testing.B) {
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					code, text := bd.do(b, "POST", "/api/bookings", body(next.Add(1)))
					if code != http.StatusCreated && code != http.StatusConflict {
						b.Errorf("%d %s", code, text)
						return
					}
				}
			})
		})
		b.Run(string(d)+"/one-day", func(b *testing.B) {
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					code, text := bd.do(b, "POST", "/api/bookings", bookBody("consultation", "2026-06-03T15:00:00Z"))
					if code != http.StatusConflict && code != http.StatusCreated || strings.Contains(text, "busy") {
						b.Errorf("%d %s", code, text)
						return
					}
				}
			})
		})
	}
}
