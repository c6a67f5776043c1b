package waitlist_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/waitlist"
	"github.com/groundwork-go/groundwork/bookings/waitlist/waitlistsql"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func ptr[T any](v T) *T { return &v }

// clock is a test's settable time.
type clock struct {
	mu sync.Mutex
	at time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}

// site is one instance: bookings and its waitlists on env, the events
// they emitted, the mail they sent.
type site struct {
	env      *store.Env
	bookings *bookings.Service
	waitlist *waitlist.Service
	module   *waitlist.Module
	outbox   *mail.Outbox

	bookingsModule *bookings.Module

	mu     sync.Mutex
	events []string
}

func newSite(t testing.TB, dsn string, c *clock) *site {
	t.Helper()
	ctx := context.Background()
	s := &site{outbox: mail.NewOutbox(nil)}
	env, err := store.OpenEnv(ctx, dsn, &store.EnvOptions{Secret: []byte("0123456789abcdef0123456789abcdef"), Mailer: s.outbox,
		MailFrom: "shop@example.com", Now: c.now, BaseURL: &url.URL{Scheme: "https", Host: "site.example"},
		Queue: &store.QueueOptions{TestOnly: true}})
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	b, err := bookingssql.Join(env, &bookings.ModuleOptions{Pages: bookings.PageOptions{Waitlist: waitlist.PagePrefixDefault}})
	require.NoError(t, err)
	w, err := waitlistsql.Join(env, b.Service, nil)
	require.NoError(t, err)
	require.NoError(t, env.Migrate(ctx))
	s.env, s.bookings, s.waitlist, s.module, s.bookingsModule = env, b.Service, w.Service, w, b
	w.Service.OnEventTx(func(_ context.Context, _ *sql.Tx, e waitlist.Event) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.events = append(s.events, e.Type+" "+e.Entry.Name)
		return nil
	})
	return s
}

func (s *site) took() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.events
	s.events = nil
	return out
}

func (s *site) count(t testing.TB, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, s.env.DB.Get(&n, s.env.DB.Rebind(q), args...))
	return n
}

// service makes a service of seats places an hour, with one provider free
// around the clock.
func (s *site) service(t testing.TB, slug string, seats int) bookings.Offering {
	t.Helper()
	ctx := context.Background()
	svc, err := s.bookings.CreateService(ctx, bookings.OfferingInput{Name: ptr("Class " + slug), Slug: ptr(slug), Duration: ptr(60),
		TimeZone: ptr("UTC"), MaxBookingsPerSlot: ptr(seats)})
	require.NoError(t, err)
	p, err := s.bookings.CreateProvider(ctx, bookings.ProviderInput{Name: ptr("Sam " + slug), Slug: ptr("sam-" + slug), TimeZone: ptr("UTC")})
	require.NoError(t, err)
	require.NoError(t, s.bookings.Link(ctx, svc.Slug, p.ID, bookings.LinkInput{}))
	for day := range 7 {
		_, err := s.bookings.AddHours(ctx, p.ID, bookings.HoursInput{DayOfWeek: ptr(day), Start: ptr("00:00"), End: ptr("24:00")})
		require.NoError(t, err)
	}
	return svc
}

func (s *site) book(t testing.TB, slug, name string, at time.Time) bookings.Booking {
	t.Helper()
	b, _, err := s.bookings.Create(context.Background(), bookings.NewBooking{ServiceSlug: slug, Start: at, CustomerName: name,
		CustomerEmail: strings.ToLower(name) + "@example.com"})
	require.NoError(t, err)
	return b
}

func (s *site) join(t testing.TB, slug, name string, at time.Time) waitlist.Entry {
	t.Helper()
	e, added, err := s.waitlist.Join(context.Background(), waitlist.NewEntry{Service: slug, Start: at, Name: name,
		Email: strings.ToLower(name) + "@example.com", TimeZone: "Europe/Berlin"})
	require.NoError(t, err)
	require.True(t, added)
	return e
}

// offerLink is the offer page's token in the mail to addr, once the queue
// has sent it.
var offerLink = regexp.MustCompile(`https://site\.example/waitlist/offer/([0-9a-f]{64})`)

func (s *site) offerMailedTo(t testing.TB, addr string) (string, mail.Message) {
	t.Helper()
	var token string
	var msg mail.Message
	require.Eventually(t, func() bool {
		for _, m := range s.outbox.Messages() {
			if m.To[0] == addr && strings.HasPrefix(m.Subject, "A place has come free") {
				token, msg = offerLink.FindStringSubmatch(m.Text)[1], m
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond)
	return token, msg
}

func fieldsOf(err error) map[string][]string {
	var ve *api.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	return ve.Fields()
}

// A full time's waitlist: joined only for a time that is full; a
// cancellation offers it to the first in line in its own transaction (a
// hold keeps it from everyone else, the mail is queued); the offer's link
// books it once; an offer not taken in time goes to the next, and a time
// past lapses every wait.
func TestAFreedTimeIsOfferedToTheFirstInLine(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		c := &clock{at: time.Now().UTC()}
		s := newSite(t, storetest.DSN(t, d), c)
		s.service(t, "yoga", 1)
		// Noon (UTC) three days on: a time every neighbour the test uses
		// (half an hour before, an hour after) is on the same day, so
		// the test does not depend on the hour it runs at.
		at := c.now().Truncate(24 * time.Hour).Add(3*24*time.Hour + 12*time.Hour)
		ann := s.book(t, "yoga", "Ann", at)

		// Only a full time, one the service offers.
		_, _, err := s.waitlist.Join(ctx, waitlist.NewEntry{Service: "yoga", Start: at.Add(time.Hour), Name: "Bob", Email: "bob@example.com"})
		require.Equal(t, map[string][]string{"start_time": {"That time is free: book it instead."}}, fieldsOf(err))
		_, _, err = s.waitlist.Join(ctx, waitlist.NewEntry{Service: "yoga", Start: at.Add(7 * time.Minute), Name: "", Email: "bob"})
		require.Equal(t, map[string][]string{"customer_name": {"Enter your name."}, "customer_email": {"Enter an email address like name@example.com."},
			"start_time": {"That is not a time this service offers. Choose one of the full times."}}, fieldsOf(err))
		_, _, err = s.waitlist.Join(ctx, waitlist.NewEntry{Service: "pilates", Start: at, Name: "Bob", Email: "bob@example.com"})
		require.ErrorIs(t, err, waitlist.ErrNotFound)
		bob, cat := s.join(t, "yoga", "Bob", at), s.join(t, "yoga", "Cat", at)
		// Gus waits for 09:30, which Ann's hour overlaps: freed with it,
		// but Bob's hold, before him in line, takes it again.
		gus := s.join(t, "yoga", "Gus", at.Add(-30*time.Minute))
		_, added, err := s.waitlist.Join(ctx, waitlist.NewEntry{Service: "yoga", Start: at, Name: "Bob", Email: "BOB@example.com"})
		require.NoError(t, err)
		require.False(t, added, "once in line")
		require.Equal(t, []string{"booking.waitlist_joined Bob", "booking.waitlist_joined Cat", "booking.waitlist_joined Gus"}, s.took())

		// The cancellation offers the time to Bob, in its transaction.
		_, err = s.bookings.Cancel(ctx, ann.ID, bookings.ActorCustomer, "")
		require.NoError(t, err)
		require.Equal(t, []string{"booking.waitlist_offered Bob"}, s.took())
		entries, err := s.waitlist.Entries(ctx, 0, at.Add(-time.Hour))
		require.NoError(t, err)
		require.Equal(t, []int64{gus.ID, bob.ID, cat.ID}, []int64{entries[0].ID, entries[1].ID, entries[2].ID})
		require.Equal(t, []waitlist.Status{waitlist.StatusWaiting, waitlist.StatusOffered, waitlist.StatusWaiting},
			[]waitlist.Status{entries[0].Status, entries[1].Status, entries[2].Status})
		require.WithinDuration(t, c.now().Add(waitlist.OfferWindowDefault), *entries[1].OfferExpires, time.Second)
		require.Equal(t, 1, s.count(t, `SELECT COUNT(*) FROM river_job WHERE kind = 'bookings_waitlist_offer_mail'`))
		// The time is held for Bob alone.
		_, _, err = s.bookings.Create(ctx, bookings.NewBooking{ServiceSlug: "yoga", Start: at, CustomerName: "Dan", CustomerEmail: "dan@example.com"})
		require.ErrorIs(t, err, bookings.ErrSlotTaken)

		// The mail links to the offer; the link books it once.
		require.NoError(t, s.env.Start(ctx))
		t.Cleanup(func() { _ = s.env.Stop(context.Background()) })
		token, msg := s.offerMailedTo(t, "bob@example.com")
		require.Equal(t, "A place has come free: Class yoga", msg.Subject)
		require.Contains(t, msg.Text, at.In(mustZone(t, "Europe/Berlin")).Format("Monday 2 January 2006 at 15:04"))
		offer, err := s.waitlist.Offer(ctx, token)
		require.NoError(t, err)
		require.Equal(t, bob.ID, offer.ID)
		b, manage, err := s.waitlist.Take(ctx, token)
		require.NoError(t, err)
		require.NotEmpty(t, manage)
		require.Equal(t, bookings.StatusConfirmed, b.Status)
		require.Equal(t, "bob@example.com", b.CustomerEmail)
		require.True(t, b.Start.Equal(at))
		require.Equal(t, []string{"booking.waitlist_booked Bob"}, s.took())
		taken, err := s.waitlist.Offer(ctx, token)
		require.NoError(t, err)
		require.Equal(t, waitlist.StatusBooked, taken.Status)
		require.Equal(t, b.ID, *taken.BookingID)
		_, _, err = s.waitlist.Take(ctx, token)
		require.Equal(t, map[string][]string{"offer": {"This offer has lapsed or was taken: the time has gone to the next in line."}}, fieldsOf(err))
		_, err = s.waitlist.Offer(ctx, strings.Repeat("0", 64))
		require.ErrorIs(t, err, waitlist.ErrNotFound)

		// Bob moves away: Cat is offered the time; she lets it lapse, and
		// the sweep offers Gus his 09:30, which the freed hour holds; Eve,
		// after him in line, waits on for 10:00, which his hold overlaps.
		eve := s.join(t, "yoga", "Eve", at)
		_, err = s.bookings.Reschedule(ctx, b.ID, at.Add(5*time.Hour), bookings.ActorCustomer)
		require.NoError(t, err)
		require.Equal(t, []string{"booking.waitlist_joined Eve", "booking.waitlist_offered Cat"}, s.took())
		catToken, _ := s.offerMailedTo(t, "cat@example.com")
		c.add(waitlist.OfferWindowDefault + time.Minute)
		n, err := s.waitlist.Sweep(ctx, 100)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, []string{"booking.waitlist_expired Cat", "booking.waitlist_offered Gus"}, s.took())
		_, _, err = s.waitlist.Take(ctx, catToken)
		require.NotNil(t, fieldsOf(err)["offer"], "Cat's offer lapsed")
		s.offerMailedTo(t, "gus@example.com")
		got, err := s.waitlist.Entries(ctx, 0, at)
		require.NoError(t, err)
		byName := map[string]waitlist.Status{}
		for _, e := range got {
			byName[e.Name] = e.Status
		}
		require.Equal(t, map[string]waitlist.Status{"Bob": waitlist.StatusBooked, "Cat": waitlist.StatusExpired, "Eve": waitlist.StatusWaiting}, byName)
		require.Equal(t, cat.ID, got[1].ID)
		require.Equal(t, eve.ID, got[2].ID)

		// The time passes: Gus's offer and Eve's wait lapse, and no one is
		// offered a time gone by.
		c.add(4 * 24 * time.Hour)
		_, err = s.waitlist.Sweep(ctx, 100)
		require.NoError(t, err)
		require.Equal(t, []string{"booking.waitlist_expired Gus", "booking.waitlist_expired Eve"}, s.took())

		// A customer erased leaves no entry.
		_, err = s.waitlist.EraseCustomer(ctx, " ")
		require.Contains(t, fieldsOf(err), "email")
		n, err = s.waitlist.EraseCustomer(ctx, "BOB@example.com")
		require.NoError(t, err)
		require.Equal(t, 1, n)
	})
}

func mustZone(t testing.TB, name string) *time.Location {
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}

// Two instances on one Postgres database cancel the two bookings of a
// full time at once: each cancellation's transaction offers a freed seat
// to a different person in line, each once, and the third waits on.
func TestRacingCancellationsOfferDifferentPeople(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.Postgres)
	ctx := context.Background()
	c := &clock{at: time.Now().UTC()}
	one, two := newSite(t, dsn, c), newSite(t, dsn, c)
	one.service(t, "class", 2)
	for round := range 6 {
		at := c.now().Truncate(time.Hour).Add(time.Duration(48+round) * time.Hour)
		ann, ben := one.book(t, "class", "Ann", at), two.book(t, "class", "Ben", at)
		var line []int64
		for _, name := range []string{"Cat", "Dan", "Eve"} {
			line = append(line, one.join(t, "class", name, at).ID)
		}
		var wg sync.WaitGroup
		for _, x := range []struct {
			s *site
			b bookings.Booking
		}{{one, ann}, {two, ben}} {
			wg.Go(func() {
				_, err := x.s.bookings.Cancel(ctx, x.b.ID, bookings.ActorCustomer, "")
				require.NoError(t, err)
			})
		}
		wg.Wait()
		entries, err := one.waitlist.Entries(ctx, 0, at)
		require.NoError(t, err)
		status := map[int64]waitlist.Status{}
		for _, e := range entries {
			if e.Start.Equal(at) {
				status[e.ID] = e.Status
			}
		}
		require.Equal(t, map[int64]waitlist.Status{line[0]: waitlist.StatusOffered, line[1]: waitlist.StatusOffered,
			line[2]: waitlist.StatusWaiting}, status, "round %d", round)
		offered := append(one.took(), two.took()...)
		require.ElementsMatch(t, []string{"booking.waitlist_joined Cat", "booking.waitlist_joined Dan", "booking.waitlist_joined Eve",
			"booking.waitlist_offered Cat", "booking.waitlist_offered Dan"}, offered, "round %d", round)
		require.Equal(t, 2, one.count(t, `SELECT COUNT(*) FROM bookings_holds WHERE start_time = ?`, at), "a hold a seat")
		_, _, err = one.bookings.Create(ctx, bookings.NewBooking{ServiceSlug: "class", Start: at, CustomerName: "Fay", CustomerEmail: "fay@example.com"})
		require.ErrorIs(t, err, bookings.ErrSlotTaken, "both seats are held")
	}
	require.Equal(t, 12, one.count(t, `SELECT COUNT(*) FROM river_job WHERE kind = 'bookings_waitlist_offer_mail'`))
}
