// Package bookings takes appointments: services, the providers who offer
// them and their hours, the slots those leave free, and bookings made
// without ever booking a provider twice.
//
// # Model
//
// An [Offering] (a "service" on the wire) has a slug, a length in minutes,
// buffers before and after, a price as a decimal string, a time zone
// (the zone its months are read in), an assignment strategy ("any",
// "round_robin", "default_provider") and an intake schema. A [Provider]
// has a time zone, in which their hours are written, and a round-robin
// weight and cursor. Providers are linked to services (optionally with
// their own length and price). A provider's week is [WeeklyHours] in
// wall-clock time (Sunday = 0; several windows a day, each ending on the
// day it starts, by 24:00, so a slot never crosses midnight: 20:00 to
// 02:00 is written as two windows, on two days; optional first and last
// dates); an [Override] closes one date or replaces its hours; a
// [Blackout] closes one service, or all, over a span of dates. A [Booking]
// is stored in UTC with a number ("BK-" and 12 random characters) and the
// SHA-256 of its manage token. The schema refuses a zero length, a window
// that ends before it starts, and a booking that ends before it starts;
// [Service.CreateService] and the other catalog methods (and the admin API)
// also refuse unknown zones, and lengths or buffers over a day, which the
// engine relies on.
//
// The bookable providers of a service are its linked active providers; with
// no links at all, its active default provider; with links but none
// active, nobody. Slots and bookings use the same rule.
//
// # Slots
//
// The engine is package slots: pure (no database, no HTTP, no clock but
// the times it is given), it turns a provider's hours, overrides, closed
// dates, busy time and limits, and a service's length, grid, buffers and
// seats, into slots; this package reads those from its [Store] and asks
// it. slots.DaySlots is one provider-local day. Candidate starts are the wall-clock labels 00:00, 00:15, ... of the
// provider's date (the interval is 15 minutes unless the service says
// otherwise); a slot must fit inside one window; it must not overlap a
// booking of the provider (of any service) once widened by its own
// buffers, nor overlap a booking widened by that booking's buffers — so
// the larger of two buffers separates them, not the sum; intervals are
// half-open, so back-to-back slots are fine.
//
// Worked example across a DST change: a provider in America/New_York
// works 01:00-04:00 on Sunday 8 March 2026, when clocks jump from 02:00
// to 03:00. With 30-minute slots on a 30-minute grid the labels 02:00 and
// 02:30 do not exist that day and are skipped, so the slots are 01:00 and
// 01:30 EST (06:00 and 06:30 UTC), then 03:00 and 03:30 EDT (07:00 and
// 07:30 UTC). On 1 November, when 01:00-02:00 happens twice, each label of
// that hour is offered once. Each slot lasts its length in real time.
//
// [Service.Slots] reads a month in the service's zone (its first and last
// instants made in local time, so a DST change does not move the month's
// end), clips it to the booking window (60 minutes' notice, 90 days
// ahead; a service may set its own; a slot that has begun is never
// offered), runs the engine for every bookable provider over the span
// (slots.Rules.Range: each local date, limits applied), and, without a
// provider, merges the lists into distinct periods (slots.Merge), or for
// a collective service keeps the periods every host offers
// (slots.Common).
//
// # No double bookings
//
// [Service.Create] accepts a start only if a provider offers a slot that
// starts exactly then. For each candidate (the named provider, the
// default one, or by round robin: least recently assigned first, then
// higher weight, then lower ID) it takes a lock on that provider's local
// day — pg_advisory_xact_lock under a lock_timeout on Postgres, so it
// holds across instances; the single write connection on SQLite — reads
// the provider's bookings again inside the lock, runs the engine on them,
// and only then inserts. A partial unique index on (provider, start) of
// active bookings is the last guard. A candidate lost to a race falls
// through to the next; none left is [ErrSlotTaken] (409), a lock not had
// within the wait is [ErrBusy] (503).
//
// # HTTP
//
// [NewHandler] serves the public API at /api/bookings: services,
// services/{slug}/providers, services/{slug}/slots (?date=YYYY-MM, or
// ?from=&to= dates; provider_id; timezone adds local times),
// services/{slug}/holds and POST to book, with fixed texts
// (clients may match on them) and the "post" (5) and "read" (60)
// per-minute buckets per client IP.
// [NewAdminHandler] lists bookings and moves them between statuses for a
// bearer token with bookings:* (or one ability per move); a move the
// status does not allow is 409. [NewPageHandler] is a booking page that
// needs no JavaScript.
//
// # Manage links
//
// Every booking has a manage token: 32 random bytes as 64 lower-case hex,
// derived from nothing, of which only the SHA-256 is stored. The token
// reaches the customer through the host (booking.created's event carries
// it once); [Service.Managed], [Service.CancelManaged] and
// [Service.RescheduleManaged] serve /api/bookings/manage/{token} with
// their checks in a fixed order (each method's doc lists it), and a
// 24-hour change window
// (Options.ChangeWindow). A move through the link must leave the booking
// changeable: no time sooner than the change window from now is offered
// or taken (422 on start_time; meta.reschedule_from says from when), so a
// customer is never locked out of the booking they just moved. A
// malformed, unknown or replaced token is one 404.
// [Service.ReissueManageToken] replaces a token. [NewPageHandler] also
// serves the manage page, /bookings/manage/{token}: the booking, the times
// it may move to (opening on the booked day in the customer's zone, the
// present time marked), a cancel form, without JavaScript; the host's
// Contact sentence there has its telephone numbers and email addresses as
// tel: and mailto: links.
//
// # Calendar feeds
//
// [NewFeedHandler] serves /bookings/ical/providers/{token}.ics, a
// provider's bookings from 30 days back to a year ahead (cancelled ones
// left out), once [Service.MintFeedToken] has given the provider a feed
// token (rotate by minting again, end with [Service.RevokeFeedToken]),
// and /bookings/ical/customers/{token}.ics, the one booking of a manage
// link. The feeds are written with github.com/arran4/golang-ical (lines
// folded at 75 octets, text escaped, CRLF): UID "BK-…@host" stable across
// moves, UTC times, DTSTAMP from the row so an unchanged feed is
// byte-identical, TENTATIVE/CONFIRMED/CANCELLED, and SEQUENCE, one more at
// every move and cancellation, so calendar clients update the event. A
// provider feed's ETag comes from one aggregate query before any booking
// is read; a customer feed's (one event) is its body's, so it covers the
// names it shows; If-None-Match with the tag, a list, W/ or * is a 304.
//
// # Providers' own calendars
//
// The package bookings/calendars reads a provider's own calendars (a
// secret ICS address, a CalDAV account, Google Calendar by consent) for
// the time they are busy, and writes their bookings there. It attaches to
// the service through [ProviderCalendars] ([Service.UseCalendars]): the
// busy time blocks a provider like a booking (the service's buffers kept
// clear of it, no seat shared, never named to customers), in every slot
// list and again inside each booking's lock; the day is read again before
// a booking when its calendars are old; and a provider whose must-read
// calendar has gone unread for a day is not bookable.
//
// # Rules
//
// A service's ServiceRules and a provider's ProviderRules add: limits a
// day, week or month (counted under the day lock and a lock per limited
// week or month, taken in one order), lengths the customer picks, weekly
// series ([Service.CreateSeries], one transaction), collective services
// (AssignCollective: every provider at once), approval per service, and
// where the meeting happens (Options.VideoLink makes a video link inside
// the booking's transaction). [Service.CreateTx] books inside the host's
// own transaction.
//
// # Mail, reminders, housekeeping
//
// With Options.Enqueuer and Mailer, and [RegisterWorkers] on the queue,
// each change queues, in its own transaction, a River job that mails,
// rendered in the customer's zone when it runs: the confirmation (with an
// .ics file), a request's receipt when bookings wait for approval,
// reschedule and cancellation notices and reminders, each with the
// manage link (its token sealed with Options.SecretKey, in the job and on
// the booking; without a key, only the creation's mail has it), and the providers' assigned and unassigned
// notices. [PeriodicJobs] sends reminders (Options.ReminderHoursBefore,
// 24 by default) every 15 minutes, each claimed by a row unique on
// booking, kind and time in the transaction that queues it, so none goes
// twice from any number of instances; one due longer ago than
// ReminderMaxCatchUp is skipped. Daily, past confirmed bookings are
// completed ([Service.CompletePast]) and those ended over three years ago
// deleted ([Service.PruneBookings], Options.Retention).
// [Service.EraseCustomer] redacts a customer's data in place and ends
// their links.
//
// # Beyond the PHP package it ports
//
// Holds: [Service.Hold] keeps a slot for five minutes; it leaves every
// other customer's list, and only a booking with its token takes it, so a
// list and a booking never disagree. Seats: a service's
// MaxBookingsPerSlot lets that many bookings share a provider and start.
// A reschedule leaves the booking out of its own clash check. Calendar
// events carry SEQUENCE. A confirmation mailed after an admin's approval
// is still sent, and the manage link goes out with the request.
//
// # Events and hooks
//
// Every change is an event: booking.created (with the status the booking
// was made with; a booking confirmed as it is made has no other),
// confirmed (a requested booking approved), rescheduled (with the
// previous period), reassigned (with the previous provider), cancelled
// (actor, reason), completed, no_show, manage_token_reissued (the new
// token, for the host to send) and erased (a customer's data removed).
// [Service.OnEventTx] receives each inside the change's own transaction,
// so what a host records there (a webhook, a job) commits with the change
// or not at all: the outbox; a crash after the commit loses nothing.
// [Service.OnEvent] receives each again after the commit. [EventTypes]
// lists them for a webhook catalogue. [Service.OnSlots] and
// [Service.OnProviders] filter the slot list and the providers tried.
//
// # Setting up the database
//
// Migrate the host's database with bookingssql.Migrations before use:
// store.Migrate(ctx, db, bookingssql.Migrations) applies them with the core
// tables (rate limits, idempotency keys) and River's, and is safe to run
// at every start and from several instances at once. One rate limiter may
// be shared by every handler of every domain (each names its own keys);
// store.NewSQLRateLimiter(db, nil) holds the limits across instances.
package bookings
