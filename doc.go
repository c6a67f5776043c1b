// Package groundwork is an embeddable Go library, with a thin reference
// server, that gives a Go web application the parts most sites need and
// nobody wants to write twice.
//
// Each domain is its own package, built on storage and queue interfaces,
// with http.Handler constructors, so a host composes only what it needs:
//
//   - [github.com/groundwork-go/groundwork/a11y]: WCAG contrast, accessible
//     text colours, palette audits, their endpoints and AI-assisted reviews
//     (the langchaingo adapter is a11y/a11yai, so a11y alone stays light).
//   - [github.com/groundwork-go/groundwork/forms]: forms, fields, steps,
//     public submissions with uploads, notifications, a no-JavaScript page.
//   - [github.com/groundwork-go/groundwork/webhooks]: signed outbound
//     webhooks with a delivery ledger and retries, and verified inbound
//     ones from payment providers.
//   - [github.com/groundwork-go/groundwork/bookings]: services,
//     providers, slots, bookings that never double-book, manage links,
//     calendar feeds, reminders, payments; the providers' own calendars
//     (bookings/calendars) and the waitlists of full times
//     (bookings/waitlist).
//   - [github.com/groundwork-go/groundwork/emaillist]: email-list feeds
//     from form submissions, a dry-run, a public subscribe, Kit and
//     Mailchimp.
//   - [github.com/groundwork-go/groundwork/reporting]: search and analytics
//     reports from Google (reporting/reportinggoogle) or from a built-in,
//     cookie-free analytics source, with a dashboard.
//   - [github.com/groundwork-go/groundwork/auth]: users, web sign-in and
//     API tokens with abilities, the bearer credentials of every admin API.
//   - [github.com/groundwork-go/groundwork/store]: SQLite or Postgres
//     (opened by groundwork, or the host's own pool), column types,
//     migrations, River as the job queue, rate-limit counters.
//   - [github.com/groundwork-go/groundwork/mail]: the Mailer the domains
//     send through, over SMTP or into an in-memory outbox.
//
// The examples directory holds small programs that use
// the library as a host does.
//
// # How the parts compose
//
// A domain never imports another. A host builds one environment
// (store.Env: the database, the job queue, the mailer, the [Keys] from one
// secret, the logger, the clock, the public address) and joins each domain
// to it in one call, which registers the domain's jobs and background
// loops and declares its tables; the link package joins the domains'
// events (a submission becomes a webhook, a booking an analytics event);
// then one Migrate, one Start, a Mount per domain, and Stop on the way out:
//
//	env, _ := store.OpenEnv(ctx, "sqlite:app.db", &store.EnvOptions{Secret: secret})
//	a, _ := authsql.Join(env, nil)
//	f, _ := formssql.Join(env, &forms.ModuleOptions{API: forms.HandlerOptions{Tokens: a.Service}})
//	w, _ := webhookssql.Join(env, &webhooks.ModuleOptions{Tokens: a.Service})
//	_ = link.Join(env, link.Modules{Forms: f, Webhooks: w})
//	_ = env.Migrate(ctx)
//	a.Mount(mux); f.Mount(mux); w.Mount(mux)
//	_ = env.Start(ctx)
//	defer env.Stop(ctx)
//
// Every domain that takes bearer tokens takes this package's
// [TokenVerifier] (and, to decide abilities itself, an [Authorizer]), which
// auth's token service satisfies. A domain also works à la carte: its
// handlers mount one by one, with no options (see
// Example_threeDomainsOneVerifier):
//
//	tokens, _ := auth.NewService(authsql.New(db), nil)
//	whoami, _ := auth.NewHandler(tokens, nil)
//	subscriptions, _ := webhooks.NewHandler(hooks, tokens, nil)
//	admin, _ := bookings.NewAdminHandler(desk, tokens, nil)
//	mux.Handle(auth.PrefixDefault+"/", whoami)
//	mux.Handle(webhooks.PrefixDefault+"/", subscriptions)
//	mux.Handle(bookings.AdminPrefixDefault+"/", admin)
//
// Every handler's options embed [HTTPOptions] (the logger, the rate
// limiter, the trusted proxies, the base URL), so a host fills one and
// hands it to each. Every domain stores its data through
// a Store interface with a SQL implementation for SQLite and Postgres, and
// queues its background work on one River queue in the same database, so
// a job is inserted in the transaction that caused it.
//
// # What every domain shares
//
// This package holds the few types every domain's API speaks in:
// [ValidationError], the error of bad input with its messages field by
// field (each domain names it too, as forms.ValidationError and so on),
// [PageRequest] with [PerPageDefault] and [PerPageMax], the paging of
// list methods and endpoints; [TokenVerifier], [Authorizer] and [Caller]
// with [Can], the rule of abilities, for the routes behind bearer tokens,
// and [RequestAuthorizer] for the routes a signed-in user may reach too; [Abilities], the one table of the
// abilities the routes check, with a sentence each; and the names of the
// page layer's templates a host may replace ([LayoutTemplate] and its
// siblings).
//
// # Trying it
//
//	go run ./cmd/reference
//
// serves everything on 127.0.0.1:8080 with its data in ./groundwork.db.
package groundwork
