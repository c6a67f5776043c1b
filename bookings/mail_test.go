package bookings_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

var testSecret = bytes.Repeat([]byte{9}, 32)

type mailBundle struct {
	*bundle
	outbox *mail.Outbox
	queue  *store.Queue
}

// setupMail is setup's service with mail: a queue working the jobs on db,
// an outbox, a manage URL; configure may change the options.
func setupMail(t *testing.T, db *store.DB, configure func(*bookings.Options)) *mailBundle {
	t.Helper()
	st := bookingssql.New(db)
	c := &clock{}
	c.Set(now)
	q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true, FetchPollInterval: 50 * time.Millisecond})
	require.NoError(t, err)
	outbox := mail.NewOutbox(&mail.OutboxOptions{From: "bookings@example.test"})
	o := &bookings.Options{Now: c.Now, Enqueuer: q, Mailer: outbox, MailFrom: "Desk <desk@example.test>",
		ManageURL: "https://example.com/bookings/manage/{token}", SecretKey: testSecret}
	if configure != nil {
		configure(o)
	}
	svc, err := bookings.NewService(st, o)
	require.NoError(t, err)
	require.NoError(t, bookings.RegisterWorkers(q.Workers(), svc))
	require.NoError(t, q.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, q.Stop(context.Background())) })
	b := serveBundle(t, db, svc, c)
	if _, err := st.ServiceBySlug(context.Background(), "consultation"); err != nil {
		b.service = newOffering(t, st, "consultation", 30)
		p, err := st.CreateProvider(context.Background(), bookings.Provider{Slug: "ada", Name: "Ada", TimeZone: "America/New_York",
			Email: "ada@example.test", RoundRobinWeight: 1, IsActive: true, CreatedAt: now, UpdatedAt: now})
		require.NoError(t, err)
		b.provider = p
		require.NoError(t, st.LinkProvider(context.Background(), b.service.ID, p.ID, nil, nil))
		weekdays(t, st, p.ID, 9*60, 17*60)
	}
	return &mailBundle{bundle: b, outbox: outbox, queue: q}
}

// next waits for n more messages than seen and returns them, sorted by
// recipient then subject.
func (m *mailBundle) next(t *testing.T, seen *int, n int) []mail.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	all, err := m.outbox.Wait(ctx, *seen+n)
	require.NoError(t, err)
	out := all[*seen:]
	require.Len(t, out, n, "exactly %d more", n)
	*seen += n
	byKey := func(x mail.Message) string { return x.To[0] + " " + x.Subject }
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if byKey(out[j]) < byKey(out[i]) {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func parseICS(t *testing.T, a mail.Attachment) *ics.VEvent {
	t.Helper()
	cal, err := ics.ParseCalendar(bytes.NewReader(a.Data))
	require.NoError(t, err)
	require.Len(t, cal.Events(), 1)
	return cal.Events()[0]
}

func TestBookingMail(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		m := setupMail(t, storetest.Open(t, d, bookingssql.Migrations), nil)
		ctx := context.Background()
		seen := 0
		bk, token, err := m.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-03T14:00:00Z"),
			CustomerName: "Grace", CustomerEmail: "grace@example.com", CustomerTimeZone: "Europe/Paris"})
		require.NoError(t, err)
		msgs := m.next(t, &seen, 2)
		provider, customer := msgs[0], msgs[1]
		require.Equal(t, []string{"ada@example.test"}, provider.To)
		require.Equal(t, "New booking: Consultation consultation, 3 June 10:00", provider.Subject, "in the provider's zone")
		require.Contains(t, provider.Text, "Customer: Grace <grace@example.com>")
		require.Equal(t, []string{"grace@example.com"}, customer.To)
		require.Equal(t, "Desk <desk@example.test>", customer.From)
		require.Equal(t, "Your booking is confirmed: Consultation consultation", customer.Subject)
		require.Contains(t, customer.Text, "When: Wednesday 3 June 2026, 16:00 to 16:30 (Europe/Paris)\n", "in the customer's zone")
		require.Contains(t, customer.Text, "With: Ada\n")
		require.Contains(t, customer.Text, "Reference: "+bk.Number+"\n")
		require.Contains(t, customer.Text, "\nhttps://example.com/bookings/manage/"+token+"\n")
		require.Len(t, customer.Attachments, 1)
		require.Equal(t, bk.Number+".ics", customer.Attachments[0].Name)
		require.Equal(t, "text/calendar; charset=utf-8; method=PUBLISH", customer.Attachments[0].ContentType)
		ev := parseICS(t, customer.Attachments[0])
		require.Equal(t, bk.Number+"@"+bookings.FeedHostDefault, ev.Id())

		// The queue never held the token in the clear.
		var args []string
		require.NoError(t, m.db.Select(&args, m.db.Rebind("SELECT CAST(args AS TEXT) FROM river_job WHERE kind = ?"), "bookings_mail"))
		require.NotEmpty(t, args)
		for _, a := range args {
			require.NotContains(t, a, token)
		}

		m.clock.Advance(time.Minute)
		_, err = m.svc.Reschedule(ctx, bk.ID, mustTime("2026-06-03T15:00:00Z"), bookings.ActorAdmin)
		require.NoError(t, err)
		moved := m.next(t, &seen, 1)[0]
		require.Equal(t, "Your booking has moved: Consultation consultation", moved.Subject)
		require.Contains(t, moved.Text, "It was: Wednesday 3 June 2026, 16:00\n")
		require.Contains(t, moved.Text, "When: Wednesday 3 June 2026, 17:00 to 17:30 (Europe/Paris)\n")
		require.Contains(t, moved.Text, "\nhttps://example.com/bookings/manage/"+token+"\n", "every mail carries the manage link")
		require.Equal(t, "1", parseICS(t, moved.Attachments[0]).GetProperty(ics.ComponentPropertySequence).Value)

		bob, err := m.svc.Store().CreateProvider(ctx, bookings.Provider{Slug: "bob", Name: "Bob", TimeZone: "Europe/London",
			Email: "bob@example.test", RoundRobinWeight: 1, IsActive: true, CreatedAt: now, UpdatedAt: now})
		require.NoError(t, err)
		require.NoError(t, m.svc.Store().LinkProvider(ctx, m.service.ID, bob.ID, nil, nil))
		weekdays(t, m.svc.Store(), bob.ID, 9*60, 17*60)
		_, err = m.svc.Reassign(ctx, bk.ID, bob.ID, bookings.ActorAdmin)
		require.NoError(t, err)
		msgs = m.next(t, &seen, 2)
		require.Equal(t, []string{"ada@example.test"}, msgs[0].To)
		require.True(t, strings.HasPrefix(msgs[0].Subject, "Booking moved to someone else: "), msgs[0].Subject)
		require.Equal(t, []string{"bob@example.test"}, msgs[1].To)
		require.Equal(t, "New booking: Consultation consultation, 3 June 16:00", msgs[1].Subject, "in Bob's zone")

		_, err = m.svc.Cancel(ctx, bk.ID, bookings.ActorAdmin, "The office is closed")
		require.NoError(t, err)
		cancelled := m.next(t, &seen, 1)[0]
		require.Equal(t, "Your booking is cancelled: Consultation consultation", cancelled.Subject)
		require.Contains(t, cancelled.Text, "Reason: The office is closed\n")
		require.Contains(t, cancelled.Text, "https://example.com/bookings/manage/"+token)
		// The row keeps the token sealed, never in the clear.
		var sealed string
		require.NoError(t, m.db.Get(&sealed, m.db.Rebind("SELECT manage_token_sealed FROM bookings_bookings WHERE id = ?"), bk.ID))
		require.True(t, strings.HasPrefix(sealed, "gcm1:"), sealed)
		require.NotContains(t, sealed, token)
		// A reissued token is the one later mail carries.
		fresh, err := m.svc.ReissueManageToken(ctx, bk.ID)
		require.NoError(t, err)
		require.NoError(t, bookings.SendMail(m.svc, ctx, bookings.MailArgs{Mail: bookings.MailReminder, BookingID: bk.ID}))
		reminder := m.next(t, &seen, 1)[0]
		require.Contains(t, reminder.Text, "https://example.com/bookings/manage/"+fresh)
		require.NotContains(t, reminder.Text, token)
		require.Empty(t, cancelled.Attachments)

		// An erased customer is sent nothing, even by a job queued before.
		other, _, err := m.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", ProviderID: m.provider.ID,
			Start: mustTime("2026-06-04T14:00:00Z"), CustomerName: "Alan", CustomerEmail: "alan@example.com"})
		require.NoError(t, err)
		m.next(t, &seen, 2)
		require.NoError(t, bookings.SendMail(m.svc, ctx, bookings.MailArgs{Mail: bookings.MailConfirmed, BookingID: other.ID}))
		m.next(t, &seen, 1)
		_, err = m.svc.EraseCustomer(ctx, "alan@example.com")
		require.NoError(t, err)
		require.NoError(t, m.db.Get(&sealed, m.db.Rebind("SELECT manage_token_sealed FROM bookings_bookings WHERE id = ?"), other.ID))
		require.Empty(t, sealed, "erasing the customer wipes the sealed token")
		require.NoError(t, bookings.SendMail(m.svc, ctx, bookings.MailArgs{Mail: bookings.MailConfirmed, BookingID: other.ID}))
		require.NoError(t, bookings.SendMail(m.svc, ctx, bookings.MailArgs{Mail: bookings.MailConfirmed, BookingID: 999}))
		require.Len(t, m.outbox.Messages(), seen)
	})
}

// With manual confirmation the link goes out with the request, and again
// with the confirmation.
func TestBookingMailManualConfirm(t *testing.T) {
	t.Parallel()
	m := setupMail(t, storetest.Open(t, store.SQLite, bookingssql.Migrations), func(o *bookings.Options) { o.ManualConfirm = true })
	ctx := context.Background()
	seen := 0
	bk, token, err := m.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-03T14:00:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com"})
	require.NoError(t, err)
	msgs := m.next(t, &seen, 2)
	require.Equal(t, "We have your booking request: Consultation consultation", msgs[1].Subject)
	require.Contains(t, msgs[1].Text, "https://example.com/bookings/manage/"+token)
	require.Contains(t, msgs[1].Text, "When: Wednesday 3 June 2026, 10:00 to 10:30 (America/New_York)", "the service's zone without the customer's")
	_, err = m.svc.Confirm(ctx, bk.ID, bookings.ActorAdmin)
	require.NoError(t, err)
	confirmed := m.next(t, &seen, 1)[0]
	require.Equal(t, "Your booking is confirmed: Consultation consultation", confirmed.Subject)
	require.Contains(t, confirmed.Text, "https://example.com/bookings/manage/"+token)
	require.Len(t, confirmed.Attachments, 1)
}

func TestMailOptions(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, bookingssql.Migrations)
	q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true})
	require.NoError(t, err)
	st := bookingssql.New(db)
	for name, o := range map[string]*bookings.Options{
		"link without key":     {Enqueuer: q, ManageURL: "https://example.com/m/{token}"},
		"link without {token}": {Enqueuer: q, ManageURL: "https://example.com/m/", SecretKey: testSecret},
		"short key":            {SecretKey: []byte("short")},
		"reminder after":       {ReminderHoursBefore: []int{24, 0}},
	} {
		_, err := bookings.NewService(st, o)
		require.Error(t, err, name)
	}
	svc, err := bookings.NewService(st, nil)
	require.NoError(t, err)
	require.Error(t, bookings.RegisterWorkers(q.Workers(), svc), "no mailer")
}

// reminderBookings books S (Tuesday 09:00 New York), S+2h, S+4h, and S+1h
// cancelled.
func reminderBookings(t *testing.T, svc *bookings.Service) time.Time {
	t.Helper()
	ctx := context.Background()
	s := mustTime("2026-06-02T13:00:00Z")
	for i, offset := range []time.Duration{0, 2 * time.Hour, 4 * time.Hour, time.Hour} {
		bk, _, err := svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: s.Add(offset),
			CustomerName: "Customer", CustomerEmail: "c" + itoa(int64(i)) + "@example.com"})
		require.NoError(t, err)
		if i == 3 {
			_, err = svc.Cancel(ctx, bk.ID, bookings.ActorCustomer, "")
			require.NoError(t, err)
		}
	}
	return s
}

func TestReminders(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, bookingssql.Migrations)
		m := setupMail(t, db, nil)
		// Booked without mail, so the outbox holds reminders alone.
		plain, err := bookings.NewService(bookingssql.New(db), &bookings.Options{Now: m.clock.Now})
		require.NoError(t, err)
		s := reminderBookings(t, plain)
		ctx := context.Background()
		seen := 0

		// 23 hours before S: S's reminder is an hour late (within the
		// 2-hour catch-up); the others are not due.
		m.clock.Set(s.Add(-23 * time.Hour))
		n, err := m.svc.SendReminders(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		reminder := m.next(t, &seen, 1)[0]
		require.Equal(t, []string{"c0@example.com"}, reminder.To)
		require.Equal(t, "Reminder: your booking on Tuesday 2 June: Consultation consultation", reminder.Subject)
		require.Contains(t, reminder.Text, "When: Tuesday 2 June 2026, 09:00 to 09:30 (America/New_York)")
		n, err = m.svc.SendReminders(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "claimed once")

		// 18 hours before S: S+2h's reminder is 4 hours late (skipped),
		// S+4h's exactly 2 (sent); the cancelled one never.
		m.clock.Set(s.Add(-18 * time.Hour))
		n, err = m.svc.SendReminders(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, []string{"c2@example.com"}, m.next(t, &seen, 1)[0].To)
		var log []struct {
			Recipient string    `db:"recipient"`
			Scheduled time.Time `db:"scheduled_for"`
		}
		require.NoError(t, db.Select(&log, "SELECT recipient, scheduled_for FROM bookings_notification_log ORDER BY id"))
		require.Len(t, log, 2)
		require.Equal(t, "c0@example.com", log[0].Recipient)
		require.True(t, s.Add(-24*time.Hour).Equal(log[0].Scheduled), log[0].Scheduled)
	})
}

// Two instances on one Postgres database, each running the sweep at
// once, many times: every reminder is sent once.
func TestRemindersTwoInstances(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.Postgres)
	one := setupMail(t, storetest.OpenDSN(t, dsn, bookingssql.Migrations), nil)
	two := setupMail(t, storetest.OpenDSN(t, dsn, bookingssql.Migrations), nil)
	plain, err := bookings.NewService(bookingssql.New(one.db), &bookings.Options{Now: one.clock.Now})
	require.NoError(t, err)
	s := reminderBookings(t, plain)
	at := s.Add(-20 * time.Hour) // S+2h due 2 hours ago, S+4h just now; S too long ago
	one.clock.Set(at)
	two.clock.Set(at)
	var wg sync.WaitGroup
	total := make(chan int, 40)
	for i := range 40 {
		svc := one.svc
		if i%2 == 1 {
			svc = two.svc
		}
		wg.Go(func() {
			n, err := svc.SendReminders(context.Background())
			require.NoError(t, err)
			total <- n
		})
	}
	wg.Wait()
	close(total)
	sum := 0
	for n := range total {
		sum += n
	}
	require.Equal(t, 2, sum)
	require.Eventually(t, func() bool { return len(one.outbox.Messages())+len(two.outbox.Messages()) >= 2 }, 20*time.Second, 20*time.Millisecond)
	<-time.After(300 * time.Millisecond) // time for a duplicate to show, were there one
	var to []string
	for _, msg := range append(one.outbox.Messages(), two.outbox.Messages()...) {
		to = append(to, msg.To...)
	}
	require.ElementsMatch(t, []string{"c1@example.com", "c2@example.com"}, to)
}

// failingTx is an Enqueuer whose EnqueueTx fails once armed.
type failingTx struct {
	store.Enqueuer
	armed *atomic.Bool
}

func (f failingTx) EnqueueTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) error {
	if f.armed.Load() {
		return errors.New("queue down")
	}
	return f.Enqueuer.EnqueueTx(ctx, tx, args, opts)
}

// The mail of a change is queued in the change's transaction: when it
// cannot be queued, the change is undone.
func TestMailInTheChangesTransaction(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		armed := &atomic.Bool{}
		m := setupMail(t, storetest.Open(t, d, bookingssql.Migrations), func(o *bookings.Options) {
			o.Enqueuer = failingTx{Enqueuer: o.Enqueuer, armed: armed}
		})
		ctx := context.Background()
		armed.Store(true)
		_, _, err := m.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-03T14:00:00Z"),
			CustomerName: "Grace", CustomerEmail: "grace@example.com"})
		require.ErrorContains(t, err, "queue down")
		_, total, err := m.svc.ListBookings(ctx, bookings.BookingFilter{})
		require.NoError(t, err)
		require.Zero(t, total, "no booking without its mail")

		armed.Store(false)
		bk, _, err := m.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-03T14:00:00Z"),
			CustomerName: "Grace", CustomerEmail: "grace@example.com"})
		require.NoError(t, err)
		armed.Store(true)
		_, err = m.svc.Cancel(ctx, bk.ID, bookings.ActorAdmin, "")
		require.ErrorContains(t, err, "queue down")
		_, err = m.svc.Reschedule(ctx, bk.ID, mustTime("2026-06-03T15:00:00Z"), bookings.ActorAdmin)
		require.ErrorContains(t, err, "queue down")
		got, err := m.svc.Booking(ctx, bk.ID)
		require.NoError(t, err)
		require.Equal(t, bookings.StatusConfirmed, got.Status, "not cancelled")
		require.Equal(t, bk.Start, got.Start, "not moved")
		require.Zero(t, got.Sequence)
	})
}

// A service mails customers only with both a queue and a mailer; the
// pages promise a confirmation only then.
func TestSendsMail(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, bookingssql.Migrations)
	q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true})
	require.NoError(t, err)
	outbox := mail.NewOutbox(&mail.OutboxOptions{From: "bookings@example.test"})
	for _, c := range []struct {
		o    bookings.Options
		want bool
	}{{bookings.Options{}, false}, {bookings.Options{Enqueuer: q}, false}, {bookings.Options{Mailer: outbox}, false},
		{bookings.Options{Enqueuer: q, Mailer: outbox}, true}} {
		svc, err := bookings.NewService(bookingssql.New(db), &c.o)
		require.NoError(t, err)
		require.Equal(t, c.want, bookings.SendsMail(svc), "%+v", c.o)
	}
}

// A collective booking tells each of its providers, and the customer once.
func TestCollectiveBookingMailsEveryHost(t *testing.T) {
	t.Parallel()
	m := setupMail(t, storetest.Open(t, store.SQLite, bookingssql.Migrations), nil)
	ctx := context.Background()
	st := bookingssql.New(m.db)
	bob, err := st.CreateProvider(ctx, bookings.Provider{Slug: "bob", Name: "Bob", TimeZone: "America/New_York", Email: "bob@example.test",
		RoundRobinWeight: 1, IsActive: true, CreatedAt: now, UpdatedAt: now})
	require.NoError(t, err)
	weekdays(t, st, bob.ID, 9*60, 17*60)
	strategy := bookings.AssignCollective
	_, err = m.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{AssignmentStrategy: &strategy})
	require.NoError(t, err)
	require.NoError(t, st.LinkProvider(ctx, m.service.ID, bob.ID, nil, nil))
	b, _, err := m.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T15:00:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com"})
	require.NoError(t, err)
	require.Equal(t, []int64{bob.ID}, b.Hosts)
	seen := 0
	msgs := m.next(t, &seen, 3)
	to := []string{}
	for _, msg := range msgs {
		to = append(to, msg.To[0]+": "+msg.Subject)
	}
	require.Equal(t, []string{"ada@example.test: New booking: Consultation consultation, 2 June 11:00", "bob@example.test: New booking: Consultation consultation, 2 June 11:00",
		"grace@example.com: Your booking is confirmed: Consultation consultation"}, to)
}
