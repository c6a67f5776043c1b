package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/waitlist"
	"github.com/groundwork-go/groundwork/bookings/waitlist/waitlistsql"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/webhooks"
)

// runBookings is "reference bookings seed": a sample service and provider
// so that slots can be listed and booked at once.
func runBookings(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "reissue" {
		return reissueManageToken(ctx, args[1:], getenv, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "calendar" {
		return bookingsCalendar(ctx, args[1:], getenv, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "feed-token" {
		return feedToken(ctx, args[1:], getenv, stdout, stderr)
	}
	if len(args) > 0 && (args[0] == "complete-past" || args[0] == "erase" || args[0] == "prune") {
		return bookingsHousekeeping(ctx, args[0], args[1:], getenv, stdout, stderr)
	}
	if len(args) == 0 || args[0] != "seed" {
		return usageError{"bookings needs a sub-command: seed, reissue, feed-token, calendar, complete-past, prune or erase"}
	}
	fs := newFlagSet("reference bookings seed")
	zone := fs.String("timezone", "UTC", "the provider's and service's time zone (IANA name)")
	st, _, _, err := dbCommand(ctx, fs, args[1:], getenv, stderr, func(positional []string) error {
		if err := noArguments(positional); err != nil {
			return err
		}
		if _, err := time.LoadLocation(*zone); err != nil || *zone == "Local" {
			return usageError{fmt.Sprintf("%q is not a time zone (try Europe/London or America/New_York)", *zone)}
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer st.Close()
	s := bookingssql.New(st)
	if _, err := s.ServiceBySlug(ctx, "consultation"); err == nil {
		fmt.Fprintln(stdout, "The sample service \"consultation\" is there already.")
		return nil
	}
	now := time.Now().UTC()
	svc, err := s.CreateService(ctx, bookings.Offering{Slug: "consultation", Name: "Consultation", Description: "A 30-minute call.",
		Duration: 30, TimeZone: *zone, AssignmentStrategy: bookings.AssignAny, MaxBookingsPerSlot: 1, IsFree: true,
		IntakeSchemaVersion: 1, IsActive: true, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return err
	}
	p, err := s.CreateProvider(ctx, bookings.Provider{Slug: "sam", Name: "Sam", TimeZone: *zone, RoundRobinWeight: 1, IsActive: true,
		CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return err
	}
	if err := s.LinkProvider(ctx, svc.ID, p.ID, nil, nil); err != nil {
		return err
	}
	for d := time.Monday; d <= time.Friday; d++ {
		if _, err := s.AddWeeklyHours(ctx, bookings.WeeklyHours{ProviderID: p.ID, Weekday: d, Start: 9 * 60, End: 17 * 60, IsAvailable: true}); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "Service \"consultation\" (30 minutes) and provider %q (weekdays 09:00-17:00 %s) created.\n", p.Name, *zone)
	return nil
}

// publicOrigin is the server's public origin for links in mail: the base
// URL, or http:// and the listening address.
func publicOrigin(cfg *config) string {
	if cfg.baseURL != nil {
		return strings.TrimSuffix(cfg.baseURL.String(), "/")
	}
	return "http://" + cfg.addr
}

// reissueManageToken is "reference bookings reissue ID": a booking's new
// manage token, printed once (the old one stops working).
func reissueManageToken(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var id int64
	st, _, _, err := dbCommand(ctx, newFlagSet("reference bookings reissue"), args, getenv, stderr, func(positional []string) error {
		if len(positional) != 1 {
			return usageError{"bookings reissue takes one booking ID"}
		}
		var err error
		if id, err = strconv.ParseInt(positional[0], 10, 64); err != nil || id <= 0 {
			return usageError{fmt.Sprintf("%q is not a booking ID", positional[0])}
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer st.Close()
	svc, err := bookings.NewService(bookingssql.New(st), nil)
	if err != nil {
		return err
	}
	token, err := svc.ReissueManageToken(ctx, id)
	if errors.Is(err, bookings.ErrNotFound) {
		return fmt.Errorf("no booking has ID %d", id)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, token)
	fmt.Fprintf(stderr, "Booking %d has a new manage token; the old one no longer works. Send the customer the new link.\n", id)
	return nil
}

// dbCommand parses a bookings sub-command's arguments on fs (which
// holds its own flags; --db and --log-level are added here), lets check
// refuse them before any database work, and opens the database (its
// address returned too): close it when done.
func dbCommand(ctx context.Context, fs *flag.FlagSet, args []string, getenv func(string) string, stderr io.Writer,
	check func(positional []string) error) (*store.DB, *slog.Logger, string, error) {
	db := dbFlag(fs, getenv)
	logger := logFlag(fs, getenv, stderr)
	positional, err := parseArgs(fs, args)
	if err != nil {
		return nil, nil, "", err
	}
	if err := check(positional); err != nil {
		return nil, nil, "", err
	}
	log, err := logger()
	if err != nil {
		return nil, nil, "", err
	}
	key, err := knownSecretKey(getenv("GROUNDWORK_SECRET_KEY"), *db)
	if err != nil {
		return nil, nil, "", err
	}
	st, err := openDB(ctx, *db, log, key)
	return st, log, *db, err
}

// noArguments is a check for a command without positional arguments.
func noArguments(positional []string) error {
	if len(positional) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", positional[0])}
	}
	return nil
}

// feedHost is the host of the public address, for calendar UIDs; empty
// (the package's default) without one.
func feedHost(base *url.URL) string {
	if base == nil {
		return ""
	}
	return base.Hostname()
}

// feedToken is "reference bookings feed-token PROVIDER [--revoke]": mint
// (or rotate) a provider's calendar feed token and print the feed's
// address, or revoke it. PROVIDER is an ID or a slug.
func feedToken(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("reference bookings feed-token")
	revoke := fs.Bool("revoke", false, "end the provider's feed instead")
	base := fs.String("base-url", getenv("GROUNDWORK_BASE_URL"), "public address of the server, for the printed feed address")
	var ref string
	st, _, _, err := dbCommand(ctx, fs, args, getenv, stderr, func(positional []string) error {
		if len(positional) != 1 {
			return usageError{"bookings feed-token takes one provider (ID or slug)"}
		}
		ref = positional[0]
		return nil
	})
	if err != nil {
		return err
	}
	defer st.Close()
	bs := bookingssql.New(st)
	p, err := findProvider(ctx, bs, ref)
	if err != nil {
		return err
	}
	svc, err := bookings.NewService(bs, nil)
	if err != nil {
		return err
	}
	if *revoke {
		if err := svc.RevokeFeedToken(ctx, p.ID); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Provider %q has no calendar feed now.\n", p.Slug)
		return nil
	}
	token, err := svc.MintFeedToken(ctx, p.ID)
	if err != nil {
		return err
	}
	origin := printedOrigin(*base, getenv, stderr)
	fmt.Fprintf(stdout, "%s%s/providers/%s.ics\n", origin, bookings.FeedPrefixDefault, token)
	fmt.Fprintf(stderr, "Provider %q has a new calendar feed; any older address no longer works. Subscribe to it in a calendar app.\n", p.Slug)
	return nil
}

// findProvider finds a provider by ID or slug.
func findProvider(ctx context.Context, s bookings.Store, ref string) (bookings.Provider, error) {
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		p, err := s.Provider(ctx, id)
		if errors.Is(err, bookings.ErrNotFound) {
			return p, fmt.Errorf("no provider has ID %d", id)
		}
		return p, err
	}
	list, err := s.ListProviders(ctx)
	if err != nil {
		return bookings.Provider{}, err
	}
	for _, p := range list {
		if p.Slug == ref {
			return p, nil
		}
	}
	return bookings.Provider{}, fmt.Errorf("no provider has the slug %q", ref)
}

// bookingsHousekeeping is "reference bookings complete-past", "prune"
// and "erase --email E" (what the daily job does, at once; and erasure
// on request).
func bookingsHousekeeping(ctx context.Context, cmd string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("reference bookings " + cmd)
	var email *string
	if cmd == "erase" {
		email = fs.String("email", "", "the customer's email (any case)")
	}
	st, log, dsn, err := dbCommand(ctx, fs, args, getenv, stderr, func(positional []string) error {
		if email != nil && strings.TrimSpace(*email) == "" {
			return usageError{"bookings erase needs --email"}
		}
		return noArguments(positional)
	})
	if err != nil {
		return err
	}
	defer st.Close()
	svc, err := bookings.NewService(bookingssql.New(st), &bookings.Options{Logger: log})
	if err != nil {
		return err
	}
	var hooks *webhooks.Service
	var secret []byte
	if cmd != "prune" {
		// Completions and erasures are webhooks too, recorded with the
		// change as the server records them.
		c, err := readWebhooksConfig(getenv)
		if err != nil {
			return usageError{err.Error()}
		}
		if secret, err = loadSecretKey(c, dsn, log); err != nil {
			return err
		}
		if hooks, err = newWebhooks(c, secret, st, nil, log); err != nil {
			return err
		}
		if err := link.BookingsToWebhooks(svc, hooks); err != nil {
			return err
		}
	}
	switch cmd {
	case "complete-past":
		n, err := svc.CompletePast(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d past bookings marked completed.\n", n)
	case "prune":
		n, err := svc.PruneBookings(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d bookings that ended over %d days ago deleted.\n", n, int(bookings.RetentionDefault/(24*time.Hour)))
	case "erase":
		numbers, err := svc.EraseCustomer(ctx, *email)
		if err != nil {
			return err
		}
		// Their places in the waitlists.
		keys, err := groundwork.NewKeys(secret)
		if err != nil {
			return err
		}
		wl, err := waitlist.New(waitlistsql.New(st), svc, &waitlist.Options{SecretKey: keys.ManageLinks(), Logger: log})
		if err != nil {
			return err
		}
		waiting, err := wl.EraseCustomer(ctx, *email)
		if err != nil {
			return err
		}
		// The booking.* webhooks delivered about them, too.
		redacted, err := hooks.RedactCustomer(ctx, bookings.CustomerID(*email), nil)
		if err != nil {
			return err
		}
		for _, n := range numbers {
			fmt.Fprintln(stdout, n)
		}
		fmt.Fprintf(stderr, "%d bookings erased: the customer's name, email, phone, time zone, answers and notes are gone, and their links no "+
			"longer work; %d waitlist places deleted; %d webhook deliveries about them redacted.\n", len(numbers), waiting, redacted)
	}
	return nil
}

// bookingViewer is who sees the bookings list: a user with
// view_bookings every booking; a provider whose email is the signed-in
// user's verified address their own; anyone else nothing.
func bookingViewer(svc *bookings.Service) func(r *http.Request) (bool, int64, bool) {
	return func(r *http.Request) (bool, int64, bool) {
		u, ok := auth.UserFrom(r.Context())
		if !ok {
			return false, 0, false
		}
		if u.Can(bookings.CapabilityViewBookings) {
			return true, 0, true
		}
		providers, err := svc.Providers(r.Context())
		if err != nil {
			return false, 0, false
		}
		if !u.Verified() {
			// Anyone may register with a provider's address; only the
			// one who proved it is theirs sees that provider's customers.
			return false, 0, false
		}
		for _, p := range providers {
			if p.Email != "" && strings.EqualFold(p.Email, u.Email) {
				return false, p.ID, true
			}
		}
		return false, 0, false
	}
}
