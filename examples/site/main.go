// Command site is the program a host actually needs: forms, bookings and
// signed webhooks on the host's own database, behind API tokens, with the
// job queue and the delivery loop running, a hook on each domain, and a
// receiver of its own that verifies what it is sent.
//
//	GROUNDWORK_SECRET=$(openssl rand -base64 32) go run ./examples/site
//
// It prints an API token once, then serves the contact form at /forms/contact,
// bookings at /bookings/consultation, and the APIs under /api/.
package main

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8083", "where to listen")
	path := flag.String("db", "site.db", "the host's SQLite file")
	flag.Parse()
	secret, err := base64.StdEncoding.DecodeString(os.Getenv("GROUNDWORK_SECRET"))
	if err != nil || len(secret) < groundwork.KeyMinBytes {
		log.Fatal("set GROUNDWORK_SECRET to 32 random bytes in base64: openssl rand -base64 32")
	}
	pool, err := sql.Open("sqlite", store.SQLiteDSN(*path)) // the host's own pool
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := newSite(ctx, pool, secret, "http://"+*addr)
	if err != nil {
		log.Fatal(err)
	}
	token, err := s.token(ctx)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("API token (shown once): %s", token)
	srv := &http.Server{Addr: *addr, Handler: s.mux}
	go func() { <-ctx.Done(); _ = srv.Shutdown(context.Background()) }()
	log.Printf("listening on http://%s/forms/contact and /bookings/consultation", *addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	s.stop()
}

// site is the host: its mux, the services, and how to stop the background
// work.
type site struct {
	mux      *http.ServeMux
	tokens   *auth.Service
	forms    *forms.Service
	bookings *bookings.Service
	webhooks *webhooks.Service
	stop     func()
	verified atomic.Int64 // deliveries the receiver took
}

// newSite migrates pool, wires the domains and starts the queue and the
// delivery loop; base is the site's own address, where its receiver is.
func newSite(ctx context.Context, pool *sql.DB, secret []byte, base string) (*site, error) {
	db, err := store.New(ctx, pool)
	if err != nil {
		return nil, err
	}
	if err := store.Migrate(ctx, db, authsql.Migrations, formssql.Migrations, bookingssql.Migrations, webhookssql.Migrations); err != nil {
		return nil, err
	}
	keys, err1 := groundwork.NewKeys(secret) // one secret, every key
	queue, err2 := store.NewQueue(db, nil)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	s := &site{mux: http.NewServeMux()}
	mailer := mail.NewOutbox(&mail.OutboxOptions{From: "site@example.test"}) // logs mail; mail.NewSMTPMailer sends it
	var errs [4]error
	s.tokens, errs[0] = auth.NewService(authsql.New(db), &auth.Options{Key: keys.SignIn()})
	s.forms, errs[1] = forms.NewService(formssql.New(db), &forms.Options{FormTokenKey: keys.FormTokens(), Enqueuer: queue, Mailer: mailer})
	s.bookings, errs[2] = bookings.NewService(bookingssql.New(db), &bookings.Options{SecretKey: keys.ManageLinks(), Enqueuer: queue, Mailer: mailer})
	// Local development: the receiver is on this machine, over http.
	s.webhooks, errs[3] = webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: keys.WebhookSecrets(), Enqueuer: queue,
		AllowInsecureURLs: true, AllowPrivateHosts: true})
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	if err := errors.Join(forms.RegisterWorkers(queue.Workers(), s.forms), bookings.RegisterWorkers(queue.Workers(), s.bookings),
		webhooks.RegisterWorkers(queue.Workers(), s.webhooks),
		// The links: a submission and each booking change are webhooks,
		// recorded in their own transactions.
		link.FormsToWebhooks(s.forms, s.webhooks), link.BookingsToWebhooks(s.bookings, s.webhooks)); err != nil {
		return nil, err
	}
	// A hook on each domain.
	s.forms.OnSubmissionAccepted(func(_ context.Context, e forms.SubmissionEvent) { log.Printf("forms: %s", e.Submission.Number()) })
	s.bookings.OnEvent(func(_ context.Context, e bookings.Event) { log.Printf("bookings: %s %s", e.Type, e.Booking.Number) })
	s.webhooks.OnDelivered(func(_ context.Context, d *webhooks.Delivery) { log.Printf("webhooks: %s delivered", d.Event) })
	if err := errors.Join(s.mount(keys), s.seed(ctx, base+"/hooks/in")); err != nil {
		return nil, err
	}
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if err := queue.Start(run); err != nil {
		cancel()
		return nil, err
	}
	loop := make(chan error, 1)
	go func() { loop <- s.webhooks.RunDeliveries(run) }() // sends what is due, on every instance
	s.stop = func() { cancel(); <-loop; _ = queue.Stop(context.Background()) }
	return s, nil
}

// mount puts the APIs (tokens required), the pages and the receiver on
// the mux.
func (s *site) mount(keys groundwork.Keys) error {
	formsAPI, err1 := forms.NewHandler(s.forms, &forms.HandlerOptions{Tokens: s.tokens})
	formPages, err2 := forms.NewPageHandler(s.forms, &forms.PageOptions{FlashKey: keys.PageFlash()})
	bookingsAPI, err3 := bookings.NewHandler(s.bookings, nil)
	bookingsAdmin, err4 := bookings.NewAdminHandler(s.bookings, s.tokens, nil)
	bookingPages, err5 := bookings.NewPageHandler(s.bookings, &bookings.PageOptions{Key: keys.PageFlash()})
	webhooksAPI, err6 := webhooks.NewHandler(s.webhooks, s.tokens, nil)
	if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
		return err
	}
	for prefix, h := range map[string]http.Handler{forms.PrefixDefault: formsAPI, forms.PagePrefixDefault: formPages,
		bookings.PrefixDefault: bookingsAPI, bookings.AdminPrefixDefault: bookingsAdmin, bookings.PagePrefixDefault: bookingPages,
		webhooks.PrefixDefault: webhooksAPI} {
		s.mux.Handle(prefix, h)
		s.mux.Handle(prefix+"/", h)
	}
	s.mux.HandleFunc("POST /hooks/in", s.receive)
	return nil
}

// receiverSecret signs what the site sends its own receiver.
const receiverSecret = "whsec_site-example-receiver-secret"

// receive is the host's receiver: it acts only on a delivery whose
// signature verifies, and answers 2xx so the sender stops retrying.
func (s *site) receive(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "unreadable", http.StatusBadRequest)
		return
	}
	if err := webhooks.Verify(receiverSecret, r.Header.Get(webhooks.HeaderSignature), body, time.Now(), 0); err != nil {
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	s.verified.Add(1)
	log.Printf("received: %s", body)
	w.WriteHeader(http.StatusNoContent)
}

// seed makes, once, what the site offers: a contact form, a consultation
// bookable on weekdays, and the subscription that sends every event to
// the receiver at url.
func (s *site) seed(ctx context.Context, url string) error {
	if _, err := s.forms.Form(ctx, "contact"); err == nil {
		return nil // seeded on an earlier run
	}
	form := &forms.Form{Name: "Contact", IsActive: true}
	if err := s.forms.CreateForm(ctx, form); err != nil {
		return err
	}
	if err := s.forms.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeEmail, Label: "Email", IsRequired: true}); err != nil {
		return err
	}
	name, slug, minutes, zone := "Consultation", "consultation", 30, "UTC"
	if _, err := s.bookings.CreateService(ctx, bookings.OfferingInput{Name: &name, Slug: &slug, Duration: &minutes, TimeZone: &zone}); err != nil {
		return err
	}
	who, whoSlug := "Sam", "sam"
	p, err := s.bookings.CreateProvider(ctx, bookings.ProviderInput{Name: &who, Slug: &whoSlug, TimeZone: &zone})
	if err != nil {
		return err
	}
	if err := s.bookings.Link(ctx, slug, p.ID, bookings.LinkInput{}); err != nil {
		return err
	}
	from, to := "09:00", "17:00"
	for day := 1; day <= 5; day++ {
		if _, err := s.bookings.AddHours(ctx, p.ID, bookings.HoursInput{DayOfWeek: &day, Start: &from, End: &to}); err != nil {
			return err
		}
	}
	hook, secret := "receiver", receiverSecret
	_, err = s.webhooks.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: &hook, URL: &url, Events: []string{"*"}, Secret: &secret})
	return err
}

// token makes an API token for the forms, bookings and webhooks APIs.
func (s *site) token(ctx context.Context) (string, error) {
	plaintext, _, err := s.tokens.CreateToken(ctx, auth.NewToken{Name: "site",
		Abilities: []string{"forms:*", "bookings:*", "webhookSubscription.*"}})
	return plaintext, err
}
