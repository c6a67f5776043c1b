package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// SecretKeyName is the name Env.Migrate keeps the fingerprint of the
// host's secret under (see CheckKey).
const SecretKeyName = "secret"

// Env is what every domain of a host shares: the database, the job
// queue, the mailer, the keys, the logger, the clock, the meter, the
// public address and the options every handler takes. A host builds one
// (NewEnv on its own pool, or OpenEnv on a DSN) and joins each domain to
// it in one call (formssql.Join, bookingssql.Join, ...), which registers
// the domain's workers, periodic jobs and background loops and declares
// its migrations. Then Migrate once, Start once, mount what the modules
// return, and Stop on the way out:
//
//	env, err := store.NewEnv(ctx, pool, &store.EnvOptions{Secret: secret, BaseURL: base})
//	f, err := formssql.Join(env, nil)
//	err = env.Migrate(ctx)
//	f.Mount(mux)
//	err = env.Start(ctx)
//	defer env.Stop(context.Background())
//
// Its fields are read by the modules; set them through EnvOptions.
type Env struct {
	// DB is the database every module's store uses.
	DB *DB
	// Queue runs every module's jobs.
	Queue *Queue
	// Mailer sends every module's mail; MailFrom is the sender.
	Mailer   mail.Mailer
	MailFrom string
	// Keys are every purpose's key, from the one secret.
	Keys groundwork.Keys
	// Logger receives every module's unexpected errors.
	Logger *slog.Logger
	// Now is the clock every module reads.
	Now func() time.Time
	// Meter counts what the modules count; nil counts nothing.
	Meter groundwork.Meter
	// BaseURL is the site's public address, for the links in mail.
	BaseURL *url.URL
	// HTTP is what every handler a module makes takes (logger, limiter,
	// proxies, base URL, brand, navigator).
	HTTP groundwork.HTTPOptions

	secret []byte
	owned  bool // OpenEnv opened DB; Close closes it

	mu         sync.Mutex
	modules    []string
	migrations []Migrations
	loops      []Loop
	links      map[string]bool
	running    []*running
	started    bool
}

// A Loop is background work a module runs for as long as the host does,
// on every instance (the webhook delivery loop, the analytics writer).
type Loop struct {
	// Name says what it is in errors and logs.
	Name string
	// OutlivesQueue: stopped after the queue, because jobs feed it (the
	// analytics writer: a job may count a view); otherwise stopped
	// before the queue, once the HTTP server has stopped.
	OutlivesQueue bool
	// Run works until its context ends, then returns.
	Run func(ctx context.Context) error
}

// running is a started Loop.
type running struct {
	Loop
	cancel context.CancelFunc
	done   chan error
}

// EnvOptions configures NewEnv and OpenEnv. Secret is required.
type EnvOptions struct {
	// Secret (groundwork.KeyMinBytes random bytes or more) gives every
	// key (groundwork.NewKeys). Every instance on a database must have
	// the same: Migrate refuses another.
	Secret []byte
	// Mailer sends mail; an outbox that logs each message when nil
	// (mail.NewSMTPMailer sends it).
	Mailer mail.Mailer
	// MailFrom is the sender of every module's mail.
	MailFrom string
	// Logger: slog.Default() when nil.
	Logger *slog.Logger
	// Now: time.Now when nil.
	Now func() time.Time
	// Meter: nil counts nothing.
	Meter groundwork.Meter
	// BaseURL is the site's public address ("https://example.com"), for
	// the links in mail (a booking's manage link, a report's dashboard).
	// Without it mail carries no such link.
	BaseURL *url.URL
	// HTTP is what every handler takes. Its Logger and BaseURL default to
	// the ones above; its RateLimiter to one counting in the database on
	// Postgres (a limit holds across instances), in memory on SQLite.
	HTTP groundwork.HTTPOptions
	// Queue configures the job queue; its Logger defaults to Logger.
	Queue *QueueOptions
}

// NewEnv makes the environment on a pool the host opened and keeps (see
// New).
func NewEnv(ctx context.Context, pool *sql.DB, opts *EnvOptions) (*Env, error) {
	db, err := New(ctx, pool)
	if err != nil {
		return nil, err
	}
	return newEnv(db, opts)
}

// OpenEnv opens the database named by dsn (see Open) and makes the
// environment on it; Close closes it.
func OpenEnv(ctx context.Context, dsn string, opts *EnvOptions) (*Env, error) {
	db, err := Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	e, err := newEnv(db, opts)
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	e.owned = true
	return e, nil
}

// EnvOn makes the environment on a DB already made (by Open or New),
// which stays the caller's to close.
func EnvOn(db *DB, opts *EnvOptions) (*Env, error) { return newEnv(db, opts) }

func newEnv(db *DB, opts *EnvOptions) (*Env, error) {
	var o EnvOptions
	if opts != nil {
		o = *opts
	}
	keys, err := groundwork.NewKeys(o.Secret)
	if err != nil {
		return nil, fmt.Errorf("store: env: %w", err)
	}
	e := &Env{DB: db, Keys: keys, secret: slices.Clone(o.Secret), Mailer: o.Mailer, MailFrom: o.MailFrom, Logger: o.Logger, Now: o.Now,
		Meter: o.Meter, BaseURL: o.BaseURL, HTTP: o.HTTP, links: map[string]bool{}}
	if e.Logger == nil {
		e.Logger = slog.Default()
	}
	if e.Now == nil {
		e.Now = time.Now
	}
	if e.Mailer == nil {
		e.Mailer = mail.NewOutbox(&mail.OutboxOptions{From: o.MailFrom, Logger: e.Logger})
	}
	if e.HTTP.Logger == nil {
		e.HTTP.Logger = e.Logger
	}
	if e.HTTP.BaseURL == nil {
		e.HTTP.BaseURL = e.BaseURL
	}
	if e.HTTP.RateLimiter == nil {
		e.HTTP.RateLimiter = driverless.NewMemoryRateLimiter(nil)
		if db.Dialect() == Postgres {
			e.HTTP.RateLimiter = NewSQLRateLimiter(db, nil)
		}
	}
	var q QueueOptions
	if o.Queue != nil {
		q = *o.Queue
	}
	if q.Logger == nil {
		q.Logger = e.Logger
	}
	if e.Queue, err = NewQueue(db, &q); err != nil {
		return nil, err
	}
	return e, nil
}

// Origin is the public address without a trailing slash ("" without
// one), for the links a module puts in mail.
func (e *Env) Origin() string {
	if e.BaseURL == nil {
		return ""
	}
	return strings.TrimSuffix(e.BaseURL.String(), "/")
}

// Join records a module joining the environment: its name (once; a
// second module of the same name is refused), its migrations, applied by
// Migrate in the order modules join, its workers (register them on
// Queue.Workers) and periodic jobs, and its loops. The modules' Join
// functions call it; a host does not.
func (e *Env) Join(name string, migrations *Migrations, jobs []*river.PeriodicJob, loops ...Loop) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started {
		return fmt.Errorf("store: env: %s joined after Start: join every module first", name)
	}
	if slices.Contains(e.modules, name) {
		return fmt.Errorf("store: env: %s joined twice", name)
	}
	e.modules = append(e.modules, name)
	if migrations != nil {
		e.migrations = append(e.migrations, *migrations)
	}
	e.Queue.AddPeriodicJobs(jobs...)
	e.loops = append(e.loops, loops...)
	return nil
}

// Joined reports whether a module of that name has joined.
func (e *Env) Joined(name string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Contains(e.modules, name)
}

// Linked records a link between two modules ("bookings→webhooks"), made
// by the link package's calls, so Start can name one a host forgot.
func (e *Env) Linked(link string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.links[link] = true
}

// Migrate applies River's tables, the core tables and every joined
// module's migrations, in the order they joined, logging each applied
// version. It first checks the secret against the fingerprint the
// database keeps (so an instance with another secret changes nothing:
// a *KeyMismatchError), and records it when the database has none.
func (e *Env) Migrate(ctx context.Context) error {
	e.mu.Lock()
	lines := slices.Clone(e.migrations)
	e.mu.Unlock()
	if err := CheckKey(ctx, e.DB, SecretKeyName, e.secret); err != nil {
		return err
	}
	if err := MigrateWithOptions(ctx, e.DB, &MigrateOptions{Logger: e.Logger}, lines...); err != nil {
		return err
	}
	return RecordKey(ctx, e.DB, SecretKeyName, e.secret)
}

// Migrations are the joined modules' migrations, in the order Migrate
// applies them (after River's and CoreMigrations).
func (e *Env) Migrations() []Migrations {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.migrations)
}

// expectedLinks are the links between joined modules a host usually wants
// and has not made, as "a→b" with the link call that makes it.
var expectedLinks = []struct{ from, to, call string }{
	{"forms", "webhooks", "link.FormsToWebhooks"},
	{"forms", "emaillist", "link.FormsToEmaillist"},
	{"bookings", "webhooks", "link.BookingsToWebhooks"},
	{"forms", "reporting", "link.FormsToAnalytics"},
	{"bookings", "reporting", "link.BookingsToAnalytics"},
	{"waitlist", "webhooks", "link.Join"},
}

// Start starts the queue and every module's loops; ctx bounds the start
// only (Stop ends them). A link between two joined modules that was not
// made is logged once, as a warning naming the call that makes it.
func (e *Env) Start(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started {
		return errors.New("store: env: started twice")
	}
	for _, l := range expectedLinks {
		if slices.Contains(e.modules, l.from) && slices.Contains(e.modules, l.to) && !e.links[l.from+"→"+l.to] {
			e.Logger.Warn("store: env: "+l.from+" and "+l.to+" are joined but not linked, so "+l.from+"' events never reach "+l.to+
				": link.Join links every joined module ("+l.call+" this pair alone)", "missing", l.from+"→"+l.to)
		}
	}
	if err := e.Queue.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	e.started = true
	for _, l := range e.loops {
		run, cancel := context.WithCancel(context.WithoutCancel(ctx))
		r := &running{Loop: l, cancel: cancel, done: make(chan error, 1)}
		go func() { r.done <- l.Run(run) }()
		e.running = append(e.running, r)
	}
	return nil
}

// Stop stops what Start started, in order, after the host's HTTP server
// has stopped taking requests: the loops the queue does not feed (the
// delivery loop, whose attempts under way finish and are recorded), then
// the queue (its running jobs get until ctx ends), then the loops it
// feeds (the analytics writer writes every view it took, however long
// that takes). Close the database after. Stop before Start, or a second
// Stop, does nothing.
func (e *Env) Stop(ctx context.Context) error {
	e.mu.Lock()
	runs, started := e.running, e.started
	e.running, e.started = nil, false
	e.mu.Unlock()
	if !started {
		return nil // never started, or stopped already
	}
	var errs []error
	wait := func(r *running, bounded bool) {
		r.cancel()
		if !bounded {
			errs = append(errs, named(r.Name, <-r.done))
			return
		}
		select {
		case err := <-r.done:
			errs = append(errs, named(r.Name, err))
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("store: env: %s still under way at shutdown", r.Name))
		}
	}
	for _, r := range runs {
		if !r.OutlivesQueue {
			wait(r, true)
		}
	}
	if err := e.Queue.Stop(ctx); err != nil {
		errs = append(errs, err)
	}
	for _, r := range runs {
		if r.OutlivesQueue {
			wait(r, false)
		}
	}
	return errors.Join(errs...)
}

func named(name string, err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	return fmt.Errorf("store: env: %s: %w", name, err)
}

// Close closes the database when OpenEnv opened it (a host's own pool
// stays open).
func (e *Env) Close() error {
	if !e.owned {
		return nil
	}
	return e.DB.Close()
}

// Mount puts h on mux at prefix: prefix itself and everything under it.
// The modules' Mount methods use it.
func Mount(mux *http.ServeMux, prefix string, h http.Handler) {
	prefix = strings.TrimSuffix(prefix, "/")
	mux.Handle(prefix, h)
	mux.Handle(prefix+"/", h)
}

// HTTPOptions is o with each field it leaves unset taken from the
// environment's HTTP: what a module gives each handler it makes.
func (e *Env) HTTPOptions(o groundwork.HTTPOptions) groundwork.HTTPOptions {
	if o.Logger == nil {
		o.Logger = e.HTTP.Logger
	}
	if o.RateLimiter == nil {
		o.RateLimiter = e.HTTP.RateLimiter
	}
	if o.TrustedProxies == nil {
		o.TrustedProxies = e.HTTP.TrustedProxies
	}
	if o.BaseURL == nil {
		o.BaseURL = e.HTTP.BaseURL
	}
	if o.Brand == (groundwork.Brand{}) {
		o.Brand = e.HTTP.Brand
	}
	if o.Navigator == nil {
		o.Navigator = e.HTTP.Navigator
	}
	return o
}
