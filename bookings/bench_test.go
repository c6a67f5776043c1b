package bookings_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingsical"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/bookingsstripe"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/bookings/calendars/calendarssql"
	"github.com/groundwork-go/groundwork/bookings/slots"
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
				_, err := st.Reserve(ctx, nil, bookings.Reservation{Booking: bookings.Booking{Number: fmt.Sprintf("BK-%012d", n), ServiceID: svc.ID,
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
		// 10 providers × 3 weekdays × 8 weeks × 18 afternoon slots, each
		// taken once, round robin choosing the provider.
		body := func(i int64) string {
			day := time.Date(2026, 6, 8, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(i/180)%8*7+int(i/60)%3)
			start := day.Add(17*time.Hour + time.Duration(i%18)*15*time.Minute)
			return bookBody("busy", start.Format(time.RFC3339))
		}
		spread := func(b *testing.B) {
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
		}
		b.Run(string(d)+"/spread", spread)
		// With an OnEventTx hook, as a host with a queue has: the booking
		// and what it sets off share one transaction.
		bd.svc.OnEventTx(func(context.Context, *sql.Tx, bookings.Event) error { return nil })
		b.Run(string(d)+"/spread-hooked", spread)
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

// feedSite is one provider with 2,000 confirmed bookings inside the feed
// window, a minted feed token and one manage token, served over HTTP.
func feedSite(b *testing.B, d store.Dialect) (*feedBundle, string) {
	b.Helper()
	db := storetest.Open(b, d, bookingssql.Migrations)
	st := bookingssql.New(db)
	c := &clock{}
	c.Set(now)
	svc, err := bookings.NewService(st, &bookings.Options{Now: c.Now, FeedHost: "example.com"})
	if err != nil {
		b.Fatal(err)
	}
	feeds, err := bookings.NewFeedHandler(svc, &bookings.FeedHandlerOptions{ICalLimit: -1, ICalTokenLimit: -1, ManageTokenLimit: -1})
	if err != nil {
		b.Fatal(err)
	}
	api, err := bookings.NewHandler(svc, &bookings.HandlerOptions{ManageGetLimit: -1, ManageTokenLimit: -1})
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(bookings.FeedPrefixDefault+"/", feeds)
	mux.Handle(bookings.PrefixDefault+"/", api)
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	ctx := context.Background()
	offering := newOffering(b, st, "consultation", 30)
	p := newProvider(b, st, "ada", "America/New_York")
	for i := range 2000 {
		start := now.Add(time.Duration(i)*3*time.Hour - 20*24*time.Hour).Truncate(time.Hour)
		id := p.ID
		hash := sha256.Sum256([]byte(fmt.Sprint("token", i)))
		_, err := st.Reserve(ctx, nil, bookings.Reservation{Booking: bookings.Booking{Number: fmt.Sprintf("BK-%012d", i), ServiceID: offering.ID,
			ProviderID: &id, Status: bookings.StatusConfirmed, Start: start, End: start.Add(30 * time.Minute), CustomerName: "Grace Hopper",
			CustomerEmail: "grace@example.com", CustomerTimeZone: "UTC", AssignmentStrategy: "api", CreatedAt: now, UpdatedAt: now},
			ManageTokenHash: hash[:], Lock: "seed", LockWait: time.Second, BusyFrom: start, BusyTo: start})
		if err != nil {
			b.Fatal(err)
		}
	}
	token, err := svc.MintFeedToken(ctx, p.ID)
	if err != nil {
		b.Fatal(err)
	}
	return &feedBundle{bundle: &bundle{db: db, svc: svc, clock: c}, feeds: srv}, token
}

// A provider feed of 2,000 bookings over loopback HTTP: built in full,
// and answered 304 from the one aggregate query.
func BenchmarkProviderFeed(b *testing.B) {
	for _, d := range storetest.Dialects() {
		f, token := feedSite(b, d)
		url := f.feeds.URL + "/bookings/ical/providers/" + token + ".ics"
		res, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if n := strings.Count(string(body), "BEGIN:VEVENT"); n != 2000 {
			b.Fatalf("%d events", n)
		}
		get := func(b *testing.B, want int, ifNoneMatch string) {
			req, _ := http.NewRequest("GET", url, nil)
			if ifNoneMatch != "" {
				req.Header.Set("If-None-Match", ifNoneMatch)
			}
			res, err := f.feeds.Client().Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != want {
				b.Fatalf("%d, not %d", res.StatusCode, want)
			}
		}
		// Built from nothing, by a fresh service (as after a restart), without
		// HTTP.
		b.Run(string(d)+"/cold", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				fresh, err := bookings.NewService(f.svc.Store(), &bookings.Options{Now: f.clock.Now, FeedHost: "example.com"})
				if err != nil {
					b.Fatal(err)
				}
				if feed, err := fresh.ProviderFeed(context.Background(), token, ""); err != nil || len(feed.Body) < 1000 {
					b.Fatal(err)
				}
			}
		})
		// Built from the database each time: a booking changes between
		// requests (its stamp moves), as for the first request after a
		// change; the other events' text is kept.
		b.Run(string(d)+"/full", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				f.clock.Advance(time.Millisecond)
				if _, err := f.svc.Store().SetStatus(context.Background(), 1, []bookings.Status{bookings.StatusConfirmed, bookings.StatusCompleted},
					bookings.StatusConfirmed, f.clock.Now(), nil); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				get(b, 200, "")
			}
		})
		// Asked again without If-None-Match, nothing changed: the body
		// kept with its tag.
		b.Run(string(d)+"/unchanged", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				get(b, 200, "")
			}
		})
		b.Run(string(d)+"/not-modified", func(b *testing.B) {
			res, err := http.Get(url)
			if err != nil {
				b.Fatal(err)
			}
			res.Body.Close()
			etag := res.Header.Get("ETag")
			b.ReportAllocs()
			for b.Loop() {
				get(b, 304, etag)
			}
		})
	}
}

// GET of a manage link over loopback HTTP, among 2,000 bookings.
func BenchmarkManageGet(b *testing.B) {
	for _, d := range storetest.Dialects() {
		f, _ := feedSite(b, d)
		// A token known in the clear: one booking's, reissued.
		token, err := f.svc.ReissueManageToken(context.Background(), 1500)
		if err != nil {
			b.Fatal(err)
		}
		url := f.feeds.URL + "/api/bookings/manage/" + token
		b.Run(string(d), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := f.feeds.Client().Get(url)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					b.Fatal(res.StatusCode)
				}
			}
		})
	}
}

// A month of slots for the busy site, without and with providers'
// calendars: each of the 10 providers with 3 connections of 200 busy
// periods in June (30- to 90-minute spans across their working hours).
// The two are run one after the other in each round, for the ratio.
func BenchmarkMonthOfSlotsWithCalendars(b *testing.B) {
	for _, d := range storetest.Dialects() {
		for _, withCalendars := range []bool{false, true} {
			name := string(d) + "/none"
			if withCalendars {
				name = string(d) + "/3x200-per-provider"
			}
			b.Run(name, func(b *testing.B) {
				bd, svc := busySite(b, d)
				if withCalendars {
					busyCalendars(b, bd)
				}
				loc, _ := time.LoadLocation(svc.TimeZone)
				from, to := bookings.MonthSpan(2026, time.June, loc)
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					slots, err := bd.svc.Slots(context.Background(), svc, bookings.SlotQuery{From: from, To: to})
					if err != nil || len(slots) == 0 {
						b.Fatal(err, len(slots))
					}
					n = len(slots)
				}
				b.ReportMetric(float64(n), "slots")
			})
		}
	}
}

// busyCalendars gives each provider of bd's site 3 calendar connections
// of 200 busy periods each in June 2026, stored as a sync stores them.
func busyCalendars(b *testing.B, bd *bundle) {
	b.Helper()
	ctx := context.Background()
	if _, err := calendars.New(calendarssql.New(bd.db), bd.svc, &calendars.Options{SecretKey: calendarKey}); err != nil {
		b.Fatal(err)
	}
	st := calendarssql.New(bd.db)
	providers, err := bd.svc.Providers(ctx)
	if err != nil {
		b.Fatal(err)
	}
	june := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range providers {
		for c := range 3 {
			conn, err := st.CreateConnection(ctx, calendars.Connection{ProviderID: p.ID, Kind: calendars.ICS,
				Name: fmt.Sprint("cal ", c), Endpoint: "https://calendar.example.com", SealedSecret: "sealed", NextSyncAt: now,
				CreatedAt: now, UpdatedAt: now})
			if err != nil {
				b.Fatal(err)
			}
			periods := make([]bookings.Period, 0, 200)
			for i := range 200 {
				// Spread over the month's 30 days, 12:00-23:00 UTC (the
				// providers' working hours), lengths 30, 60 and 90 minutes.
				h := sha256.Sum256([]byte(fmt.Sprint(p.ID, c, i)))
				start := june.Add(time.Duration(i%30)*24*time.Hour + 12*time.Hour + time.Duration(int(h[0])%40)*15*time.Minute)
				periods = append(periods, bookings.Period{Start: start, End: start.Add(time.Duration(1+int(h[1])%3) * 30 * time.Minute)})
			}
			err = st.FinishSync(ctx, calendars.Sync{ConnectionID: conn.ID, From: june, To: june.AddDate(0, 1, 0),
				Periods: slots.MergePeriods(periods), At: now, Next: now.Add(time.Hour)})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// Creates on the busy site, one at a time through the service, without
// calendars and with a freshly read ICS calendar for every provider: the
// calendar is not asked again (calendar-requests/op is 0) while it is
// fresher than calendars.Options.Freshness.
func BenchmarkCreateWithCalendars(b *testing.B) {
	for _, d := range storetest.Dialects() {
		for _, withCalendars := range []bool{false, true} {
			name := string(d) + "/none"
			if withCalendars {
				name = string(d) + "/fresh-ics-per-provider"
			}
			b.Run(name, func(b *testing.B) {
				bd, _ := busySite(b, d)
				var hits atomic.Int64
				ics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					hits.Add(1)
					w.Header().Set("Content-Type", "text/calendar")
					fmt.Fprint(w, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:bench\r\nBEGIN:VEVENT\r\nUID:x\r\n"+
						"DTSTART:20260610T120000Z\r\nDTEND:20260610T130000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
				}))
				b.Cleanup(ics.Close)
				svc, err := bookings.NewService(bookingssql.New(bd.db), &bookings.Options{Now: bd.clock.Now, LockWait: 10 * time.Second,
					SecretKey: calendarKey})
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				if withCalendars {
					cals, err := calendars.New(calendarssql.New(bd.db), svc, &calendars.Options{Now: bd.clock.Now, SecretKey: calendarKey,
						Sources: map[calendars.Kind]calendars.Source{calendars.ICS: bookingsical.NewICS(&bookingsical.Options{AllowPrivateHosts: true})}})
					if err != nil {
						b.Fatal(err)
					}
					providers, err := svc.Providers(ctx)
					if err != nil {
						b.Fatal(err)
					}
					for _, p := range providers {
						c, _, err := cals.Connect(ctx, calendars.Input{ProviderID: p.ID, Kind: calendars.ICS, Name: "Diary",
							URL: ics.URL + "/diary.ics"})
						if err == nil {
							_, err = cals.Sync(ctx, c.ID)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				}
				before := hits.Load()
				i := 0
				b.ReportAllocs()
				for b.Loop() {
					start := busyStart(i)
					i++
					_, _, err := svc.Create(ctx, bookings.NewBooking{ServiceSlug: "busy", Start: start, CustomerName: "G", CustomerEmail: "g@example.com"})
					if err != nil && !errors.Is(err, bookings.ErrSlotTaken) {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(hits.Load()-before)/float64(b.N), "calendar-requests/op")
			})
		}
	}
}

// A month of slots on the busy site with the rules of issue 34 beside the
// same without: each provider capped at 6 bookings a day and 1,200 minutes
// a week, the service at 4 a day per provider, two lengths (the month read
// for 60 minutes), and a collective service of all ten providers.
func BenchmarkMonthOfSlotsWithRules(b *testing.B) {
	for _, d := range storetest.Dialects() {
		for _, variant := range []string{"none", "limits-and-lengths", "collective"} {
			b.Run(string(d)+"/"+variant, func(b *testing.B) {
				bd, svc := busySite(b, d)
				ctx := context.Background()
				q := bookings.SlotQuery{}
				var err error
				switch variant {
				case "limits-and-lengths":
					providers, err := bd.svc.Store().ListProviders(ctx)
					if err != nil {
						b.Fatal(err)
					}
					limits := []bookings.Limit{{Period: bookings.PeriodDay, Bookings: 6}, {Period: bookings.PeriodWeek, Minutes: 1200}}
					for _, p := range providers {
						if _, err := bd.svc.UpdateProvider(ctx, p.ID, bookings.ProviderInput{Limits: &limits}); err != nil {
							b.Fatal(err)
						}
					}
					day := []bookings.Limit{{Period: bookings.PeriodDay, Bookings: 4}}
					lengths := []bookings.LengthChoice{{Minutes: 30}, {Minutes: 60}}
					if svc, err = bd.svc.UpdateService(ctx, svc.Slug, bookings.OfferingInput{Limits: &day, Lengths: &lengths}); err != nil {
						b.Fatal(err)
					}
					q.Length = 60
				case "collective":
					strategy := bookings.AssignCollective
					if svc, err = bd.svc.UpdateService(ctx, svc.Slug, bookings.OfferingInput{AssignmentStrategy: &strategy}); err != nil {
						b.Fatal(err)
					}
				}
				loc, _ := time.LoadLocation(svc.TimeZone)
				q.From, q.To = bookings.MonthSpan(2026, time.June, loc)
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					slots, err := bd.svc.Slots(ctx, svc, q)
					if err != nil || len(slots) == 0 {
						b.Fatal(err, len(slots))
					}
					n = len(slots)
				}
				b.ReportMetric(float64(n), "slots")
			})
		}
	}
}

// busyStart is the i-th start a create benchmark asks for on the busy
// site: 18 afternoon slots of three weekdays over 13 weeks.
func busyStart(i int) time.Time {
	day := time.Date(2026, 6, 8, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i/180%13*7+i/60%3)
	return day.Add(17*time.Hour + time.Duration(i%18)*15*time.Minute)
}

// BenchmarkCreatePaid books the busy site's service with and without
// payment, otherwise alike (a queue for the mail, the same varied times
// across ten providers and 13 weeks): paid, a booking also opens its
// Checkout Session (Stripe's wire format from an httptest server, through
// bookingsstripe) and stores it with the booking.
func BenchmarkCreatePaid(b *testing.B) {
	stripe := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		key := r.Header.Get("Idempotency-Key")
		fmt.Fprintf(w, `{"id":"cs_%s","object":"checkout.session","url":"https://checkout.stripe.com/c/pay/cs_%s"}`, key, key)
	}))
	b.Cleanup(stripe.Close)
	for _, d := range storetest.Dialects() {
		b.Run(string(d)+"/free", func(b *testing.B) { createPaid(b, d, false, stripe.URL) })
		b.Run(string(d)+"/paid", func(b *testing.B) { createPaid(b, d, true, stripe.URL) })
	}
}

// createPaid is one run of BenchmarkCreatePaid.
func createPaid(b *testing.B, d store.Dialect, paid bool, stripeURL string) {
	bd, offering := busySite(b, d)
	queue, err := store.NewQueue(bd.db, &store.QueueOptions{TestOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	pay, err := bookingsstripe.New(bookingsstripe.Options{APIKey: "sk_bench", APIBase: stripeURL})
	if err != nil {
		b.Fatal(err)
	}
	st := bookingssql.New(bd.db)
	offering.RequiresPayment, offering.Currency = paid, "EUR"
	if _, err := st.UpdateService(context.Background(), offering); err != nil {
		b.Fatal(err)
	}
	svc, err := bookings.NewService(st, &bookings.Options{Now: bd.clock.Now, LockWait: 10 * time.Second, Payments: pay,
		Enqueuer: queue, ManageURL: "https://site.example/bookings/manage/{token}", SecretKey: calendarKey})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		start := busyStart(i)
		i++
		bk, _, err := svc.Create(ctx, bookings.NewBooking{ServiceSlug: "busy", Start: start, CustomerName: "G",
			CustomerEmail: fmt.Sprintf("g%d@example.com", i)})
		if err != nil && !errors.Is(err, bookings.ErrSlotTaken) {
			b.Fatal(err)
		}
		if err == nil && paid != (bk.Status == bookings.StatusAwaitingPayment) {
			b.Fatal("booked " + string(bk.Status))
		}
	}
}
