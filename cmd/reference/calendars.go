package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingsgoogle"
	"github.com/groundwork-go/groundwork/bookings/bookingsical"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/bookings/calendars/calendarssql"
)

// calendarConfig is how providers' calendars are read.
type calendarConfig struct {
	// allowPrivate lets calendar addresses be on private and loopback
	// addresses (a CalDAV server on the same machine).
	allowPrivate bool
	// Google Calendar's OAuth client, its callback, and (for a test
	// double) its addresses.
	googleID, googleSecret, googleRedirect   string
	googleAuthURL, googleTokenURL, googleAPI string
}

func readCalendarConfig(getenv func(string) string) (calendarConfig, error) {
	c := calendarConfig{googleID: getenv("GROUNDWORK_GOOGLE_CALENDAR_CLIENT_ID"), googleSecret: getenv("GROUNDWORK_GOOGLE_CALENDAR_CLIENT_SECRET"),
		googleRedirect: getenv("GROUNDWORK_GOOGLE_CALENDAR_REDIRECT_URL")}
	if s := getenv("GROUNDWORK_CALENDAR_ALLOW_PRIVATE_HOSTS"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return c, fmt.Errorf("GROUNDWORK_CALENDAR_ALLOW_PRIVATE_HOSTS must be true or false, not %q", s)
		}
		c.allowPrivate = b
	}
	some := c.googleID != "" || c.googleSecret != "" || c.googleRedirect != ""
	if some && (c.googleID == "" || c.googleSecret == "" || c.googleRedirect == "") {
		return c, errors.New("GROUNDWORK_GOOGLE_CALENDAR_CLIENT_ID, _SECRET and _REDIRECT_URL go together")
	}
	return c, nil
}

// sources are the kinds of calendar providers may connect: addresses
// and CalDAV accounts always, Google when its client is set.
func (c calendarConfig) sources() (map[calendars.Kind]calendars.Source, error) {
	o := &bookingsical.Options{AllowPrivateHosts: c.allowPrivate, UserAgent: "groundwork-reference"}
	out := map[calendars.Kind]calendars.Source{calendars.ICS: bookingsical.NewICS(o), calendars.CalDAV: bookingsical.NewCalDAV(o)}
	if c.googleID != "" {
		g, err := bookingsgoogle.New(bookingsgoogle.Options{ClientID: c.googleID, ClientSecret: c.googleSecret, RedirectURL: c.googleRedirect})
		if err != nil {
			return nil, err
		}
		out[calendars.Google] = g
	}
	return out, nil
}

// calendarsLinkTTLDefault is how long a printed calendar page link works.
const calendarsLinkTTLDefault = 72 * time.Hour

// bookingsCalendar is "reference bookings calendar link|list|add|sync|remove".
func bookingsCalendar(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	const usage = "bookings calendar needs a sub-command: link, list, add, sync or remove"
	if len(args) == 0 {
		return usageError{usage}
	}
	cmd := args[0]
	fs := newFlagSet("reference bookings calendar " + cmd)
	var ttl *time.Duration
	var base, kind, name, address, username *string
	switch cmd {
	case "link":
		ttl = fs.Duration("ttl", calendarsLinkTTLDefault, "how long the link works")
		base = fs.String("base-url", getenv("GROUNDWORK_BASE_URL"), "public address of the server, for the printed link")
	case "add":
		kind = fs.String("kind", "", "ics (a calendar's secret address) or caldav (an account: server, user name, app password)")
		name = fs.String("name", "", "how the calendar is shown (Work, iCloud)")
		address = fs.String("url", "", "the ICS address, or the CalDAV server's address")
		username = fs.String("username", "", "the CalDAV user name; the app password is asked for on a terminal, else read from stdin")
	case "list", "sync", "remove":
	default:
		return usageError{usage}
	}
	var ref string
	st, log, dsn, err := dbCommand(ctx, fs, args[1:], getenv, stderr, func(positional []string) error {
		if len(positional) != 1 {
			what := "one provider (ID or slug)"
			if cmd == "sync" || cmd == "remove" {
				what = "one connection ID (from list)"
			}
			return usageError{"bookings calendar " + cmd + " takes " + what}
		}
		ref = positional[0]
		if kind != nil && calendars.Kind(*kind) != calendars.ICS && calendars.Kind(*kind) != calendars.CalDAV {
			return usageError{"bookings calendar add needs --kind ics or --kind caldav (Google is connected on the calendar page)"}
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer st.Close()
	cc, err := readCalendarConfig(getenv)
	if err != nil {
		return usageError{err.Error()}
	}
	wc, err := readWebhooksConfig(getenv)
	if err != nil {
		return usageError{err.Error()}
	}
	secret, err := loadSecretKey(wc, dsn, log)
	if err != nil {
		return err
	}
	keys, err := groundwork.NewKeys(secret)
	if err != nil {
		return err
	}
	sources, err := cc.sources()
	if err != nil {
		return err
	}
	bs := bookingssql.New(st)
	bsvc, err := bookings.NewService(bs, &bookings.Options{SecretKey: keys.ManageLinks(), Logger: log})
	if err != nil {
		return err
	}
	svc, err := calendars.New(calendarssql.New(st), bsvc, &calendars.Options{SecretKey: keys.ManageLinks(), Sources: sources, Logger: log})
	if err != nil {
		return err
	}
	if cmd == "sync" || cmd == "remove" {
		return syncOrRemoveCalendar(ctx, svc, cmd, ref, stdout)
	}
	p, err := findProvider(ctx, bs, ref)
	if err != nil {
		return err
	}
	switch cmd {
	case "link":
		link := svc.PageLink(p.ID, *ttl)
		origin := printedOrigin(*base, getenv, stderr)
		fmt.Fprintf(stdout, "%s%s/%s\n", origin, calendars.PagePrefixDefault, link)
		fmt.Fprintf(stderr, "Send this to %s: it lets them connect their calendars until %s.\n", p.Name,
			time.Now().Add(*ttl).Format("2 January 2006 15:04 MST"))
		return nil
	case "add":
		return addCalendar(ctx, svc, p, calendars.Input{ProviderID: p.ID, Kind: calendars.Kind(*kind), Name: *name, URL: *address, Username: *username},
			stdout, stderr)
	}
	return listCalendars(ctx, svc, p, stdout, stderr)
}

// syncOrRemoveCalendar is "bookings calendar sync ID" (read it now) and
// "bookings calendar remove ID".
func syncOrRemoveCalendar(ctx context.Context, svc *calendars.Service, cmd, ref string, stdout io.Writer) error {
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil {
		return usageError{fmt.Sprintf("%q is not a connection ID", ref)}
	}
	c, err := svc.Connection(ctx, id)
	if errors.Is(err, bookings.ErrNotFound) {
		return fmt.Errorf("no calendar connection has ID %d", id)
	}
	if err != nil {
		return err
	}
	if cmd == "remove" {
		if err := svc.Disconnect(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s is disconnected; its busy times no longer count.\n", c.Name)
		return nil
	}
	ok, err := svc.Sync(ctx, id)
	switch {
	case !ok && err == nil:
		return fmt.Errorf("%s is being read by the server just now; try again in a moment", c.Name)
	case errors.Is(err, calendars.ErrUnreadable):
		return fmt.Errorf("%s could not be read: %s", c.Name, calendars.Reason(err))
	case err != nil:
		return err
	}
	fmt.Fprintf(stdout, "%s was read.\n", c.Name)
	return nil
}

// addCalendar is "bookings calendar add PROVIDER": the connection made
// (a CalDAV account's app password asked for), read once, its ID printed.
func addCalendar(ctx context.Context, svc *calendars.Service, p bookings.Provider, in calendars.Input, stdout, stderr io.Writer) error {
	var err error
	if in.Kind == calendars.CalDAV {
		if in.Password, err = readPassword(stderr); err != nil {
			return err
		}
	}
	c, cals, err := svc.Connect(ctx, in)
	var ve *bookings.ValidationError
	switch {
	case errors.As(err, &ve):
		return usageError{ve.Error()}
	case errors.Is(err, calendars.ErrUnreadable):
		return fmt.Errorf("the calendar could not be read. %s (%w)", calendars.Reason(err), err)
	case err != nil:
		return err
	case cals == nil:
		fmt.Fprintf(stdout, "%d\n", c.ID)
		fmt.Fprintf(stderr, "Saved %q for %s: its server is slow to answer, so the server reads it in the background; "+
			"`reference bookings calendar list` shows how that went.\n", c.Name, p.Name)
		return nil
	}
	if _, err := svc.Sync(ctx, c.ID); err != nil {
		fmt.Fprintf(stderr, "Connected, but the first read failed. %s (%v)\n", calendars.Reason(err), err)
	}
	fmt.Fprintf(stdout, "%d\n", c.ID)
	names := make([]string, len(cals))
	for i, rc := range cals {
		names[i] = rc.Name
	}
	fmt.Fprintf(stderr, "Connected %q for %s; it lists: %s.\n", c.Name, p.Name, strings.Join(names, ", "))
	return nil
}

// listCalendars is "bookings calendar list PROVIDER".
func listCalendars(ctx context.Context, svc *calendars.Service, p bookings.Provider, stdout, stderr io.Writer) error {
	list, err := svc.Connections(ctx, p.ID)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintf(stderr, "%s has no calendar connected.\n", p.Name)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tNAME\tLAST READ\tLAST ERROR")
	for _, c := range list {
		read := "never"
		if c.SyncedAt != nil {
			read = c.SyncedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", c.ID, c.Kind, c.Name, read, c.LastError)
	}
	return tw.Flush()
}
