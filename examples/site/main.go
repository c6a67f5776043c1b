// Command site is the program a host actually needs: forms with signed
// webhooks, bookings with manage links and reminders, first-party
// analytics, API tokens and a receiver of its own that verifies what it
// is sent, on the host's own database and mux, with every periodic job
// and background loop running.
//
//	GROUNDWORK_SECRET=$(openssl rand -base64 32) go run ./examples/site
//
// It prints an API token once, then serves the contact form at /forms/contact,
// bookings at /bookings/consultation, and the APIs under /api/. This file
// is the wiring; seed.go is the site's content.
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
	"net/url"
	"os"
	"os/signal"
	"sync/atomic"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
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
	s, err := newSite(ctx, pool, &store.EnvOptions{Secret: secret, BaseURL: &url.URL{Scheme: "http", Host: *addr}})
	if err == nil {
		err = s.env.Start(ctx) // the queue, its periodic jobs and the loops
	}
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: *addr, Handler: s.mux}
	go func() { <-ctx.Done(); _ = srv.Shutdown(context.Background()) }()
	log.Printf("listening on http://%s/forms/contact and /bookings/consultation", *addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	if err := s.env.Stop(context.Background()); err != nil { // after the server: deliveries, jobs, then views
		log.Print(err)
	}
}

// site is the host: the environment its domains share, its mux, and the
// modules.
type site struct {
	env      *store.Env
	mux      *http.ServeMux
	auth     *auth.Module
	forms    *forms.Module
	bookings *bookings.Module
	webhooks *webhooks.Module
	token    string       // the API token seed made, shown once
	verified atomic.Int64 // deliveries the receiver took
}

// newSite joins each domain to one environment on pool, links them,
// migrates, mounts every module and the receiver, and seeds the site.
func newSite(ctx context.Context, pool *sql.DB, o *store.EnvOptions) (s *site, err error) {
	s = &site{mux: http.NewServeMux()}
	if s.env, err = store.NewEnv(ctx, pool, o); err != nil {
		return nil, err
	}
	if s.auth, err = authsql.Join(s.env, nil); err != nil {
		return nil, err
	}
	tokens := s.auth.Service // checks the APIs' bearer tokens
	var reports *reporting.Module
	var errs [4]error
	s.forms, errs[0] = formssql.Join(s.env, &forms.ModuleOptions{API: forms.HandlerOptions{Tokens: tokens}})
	s.bookings, errs[1] = bookingssql.Join(s.env, &bookings.ModuleOptions{Tokens: tokens})
	// Local development: the receiver is on this machine, over http.
	s.webhooks, errs[2] = webhookssql.Join(s.env, &webhooks.ModuleOptions{Tokens: tokens,
		Service: webhooks.Options{AllowInsecureURLs: true, AllowPrivateHosts: true}})
	reports, errs[3] = reportingsql.Join(s.env, &reporting.ModuleOptions{Authorizer: tokens.Authorizer(nil)})
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	// Submissions and booking changes become webhooks; both, and the
	// pages' views, are counted in the analytics.
	err = link.Join(s.env, link.Modules{Forms: s.forms, Bookings: s.bookings, Webhooks: s.webhooks, Reporting: reports})
	if err == nil {
		err = s.env.Migrate(ctx)
	}
	if err != nil {
		return nil, err
	}
	s.bookings.Service.OnEvent(func(_ context.Context, e bookings.Event) { log.Printf("bookings: %s %s", e.Type, e.Booking.Number) })
	for _, m := range []interface{ Mount(*http.ServeMux) }{s.auth, s.forms, s.bookings, s.webhooks, reports} {
		m.Mount(s.mux)
	}
	s.mux.HandleFunc("POST /hooks/in", s.receive)
	return s, s.seed(ctx)
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
	if err := webhooks.Verify(receiverSecret, r.Header.Get(webhooks.HeaderSignature), body, s.env.Now(), 0); err != nil {
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	s.verified.Add(1)
	log.Printf("received: %s", body)
	w.WriteHeader(http.StatusNoContent)
}
