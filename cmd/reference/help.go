package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// commandHelp is each command group's usage: "reference --help" prints
// them all, "reference GROUP --help" (or "reference help GROUP") its own.
var commandHelp = []struct{ group, text string }{
	{"serve", `  reference [flags]                 serve HTTP (the default; "reference serve" too)
`},
	{"token", `  reference token create --name NAME --ability ABILITY... [--expires WHEN] [--force]
                                    print a new API token, once
  reference token list [--json]     list tokens (never their secrets)
  reference token revoke ID         revoke a token at once

token create flags:
  --name NAME             what the token is for (required)
  --ability ABILITY       an ability it grants; repeat for more (required): '*', or one the
                          server checks, or a wildcard over some of them:
` + abilityHelp() + `  --expires WHEN          a duration (720h, 30d) or a date (2027-01-31, RFC 3339);
                          default never
  --force                 take abilities the server does not check (for a host's own routes)
`},
	{"user", `  reference user create --email EMAIL --name NAME [--capability CAP...] [--unverified]
                                    make a user who can sign in at /login; the password is
                                    asked for on a terminal, else read from the first line of stdin
  reference user list [--json]      list users, whether they use two-factor sign-in, and their
                                    capabilities
  reference user grant EMAIL CAP    give a user a capability (view_search_reporting,
                                    manage-emailmarketing-feeds, '*', or a token ability such as
                                    forms:* that their own API tokens may then carry)
  reference user revoke EMAIL CAP   take a capability away
  reference user password EMAIL     set a new password (read as for create); signs them out everywhere
  reference user two-factor-off EMAIL
                                    turn a user's two-factor sign-in off (a lost phone and lost
                                    recovery codes); they are mailed
  reference user disable EMAIL      sign a user out everywhere and keep them out (no sign-in, API
                                    tokens refused) until enabled; nothing of theirs is deleted
  reference user enable EMAIL       let a disabled user sign in again
`},
	{"bookings", `  reference bookings seed [--timezone ZONE]
                                    create a sample service "consultation" (30 minutes) and a
                                    provider working weekdays 09:00-17:00 in ZONE (UTC), to list
                                    slots and book at /api/bookings at once
  reference bookings reissue ID     print a new manage token for a booking (the old one stops working)
  reference bookings feed-token PROVIDER [--revoke]
                                    print a provider's new calendar feed address (ID or slug; an
                                    older address stops working), or end the feed
  reference bookings calendar link PROVIDER [--ttl 72h]
                                    print a link to the page where the provider connects their own
                                    calendars (Google, iCloud, Fastmail, an ICS address)
  reference bookings calendar list PROVIDER
                                    list the provider's calendar connections, last read and error
  reference bookings calendar add PROVIDER --kind ics|caldav --name NAME --url URL [--username U]
                                    connect a calendar (a CalDAV app password is asked for, or read
                                    from stdin); prints the connection's ID
  reference bookings calendar sync ID
                                    read a connection's busy times now
  reference bookings calendar remove ID
                                    disconnect it; its busy times stop counting
  reference bookings complete-past  mark confirmed bookings that have ended completed (daily in serve)
  reference bookings prune          delete bookings that ended over three years ago (daily in serve)
  reference bookings erase --email EMAIL
                                    erase a customer's personal data from their bookings and the
                                    webhook deliveries about them, in place; prints the numbers
`},
	{"backup", `  reference backup FILE             copy a live SQLite database to FILE (VACUUM INTO, while it
                                    serves) and its key file beside it (FILE's name with .key);
                                    Postgres: pg_dump (see the README)
`},
	{"mail", `  reference mail outbox [--json]     the mails queued and not yet sent, oldest first: tries, next
                                    try, last error (a mail is tried until it goes, at most ten
                                    minutes apart)
`},
	{"analytics", `  reference analytics seed [--days N] [--views N]
                                    record sample page views (90 days, about 400 a day) to try the
                                    dashboard at /reporting
`},
	{"emaillist", `  reference emaillist ping          check the provider's key (Kit: GET /account; Mailchimp: GET /ping)
  reference emaillist feeds list [--form ID]
                                    list the feeds (manage them at /admin/emailmarketing/feeds)
`},
	{"webhooks", `  reference webhooks emit EVENT [--data JSON] [--owner OWNER]
                                    dispatch a test event to the subscriptions that take it (the
                                    owner's; * for every owner's)
  reference webhooks portal-link --owner OWNER [--ttl 1h]
                                    print a link to the portal where the owner manages their own
                                    endpoints (add, test, replay, rotate the secret)
  reference webhooks retry          queue the deliveries that are due now
  reference webhooks prune          delete finished deliveries and inbound webhooks past their retention
  reference webhooks reconcile [--minutes N]
                                    ask providers about payment sessions quiet for N minutes (15)
                                    and settle those paid or cancelled; prints each failure and
                                    exits 1 when there are any
  reference webhooks session REFERENCE [--provider stripe] [--status]
                                    record a payment session awaiting settlement (to try
                                    reconciliation; the provider needs a gateway, e.g. stripe with
                                    GROUNDWORK_STRIPE_WEBHOOK_SECRET); --status prints its status
                                    instead: pending, succeeded or failed
`},
	{"a11y", `  reference a11y check FG BG        contrast ratio and the WCAG levels it meets
  reference a11y text-color BG [--tint]
                                    an accessible text colour for a background
  reference a11y audit COLOR... [--fail]
                                    every ordered pair; --fail exits 1 when one fails AA
                                    (colours: #rgb, #rrggbb, rgb(), hsl() or Tailwind names)
`},
}

// databaseFlags are the flags of the commands that open the database.
const databaseFlags = `
Flags of the token, user, bookings, webhooks and mail commands:
  --db DSN                the server's database: give them the same --db (or GROUNDWORK_DB)
                          as the server, or they work on another (default sqlite:groundwork.db)
  --log-level LEVEL       debug, info, warn or error (default warn), to stderr
`

// serveFlags are serve's flags.
const serveFlags = `
Serve flags:
  --addr ADDR             address to listen on (default 127.0.0.1:8080)
  --db DSN                sqlite:PATH, a bare path, or a postgres:// URL
                          (default sqlite:groundwork.db, created and migrated on start)
  --log-format FORMAT     text or json (default text)
  --log-level LEVEL       debug, info, warn or error (default info)
  --trusted-proxies LIST  comma-separated CIDRs allowed to set X-Forwarded-For
  --shutdown-timeout D    how long SIGINT/SIGTERM waits for requests and jobs (default 30s)
  --metrics-addr ADDR     serve Prometheus metrics at GET /metrics on this address, a
                          listener of its own (off by default; never the public --addr)
  --drain-delay D         how long a stopping server keeps serving, /readyz answering 503,
                          before it stops taking requests (default 0s; 5s or so behind a
                          load balancer that polls /readyz)
  --uploads DIR           where uploaded files go (default: beside the SQLite file, *-uploads)
  --base-url URL          the server's public address, for absolute links in lists and mail
  --analytics-sites LIST  comma-separated hosts whose page views are collected (beside the
                          server's own and the base URL's), for analytics of several sites
  --frame-origins LIST    comma-separated origins (https://www.example.com) whose pages may
                          frame the booking and form pages (embed.js); none by default
  --form-tokens MODE      required (default): a form submission without a good form-load
                          token (from the render definition or the page) is stored as spam;
                          optional: one without a token is judged by _form_loaded_at
  --request-log WHICH     which requests get an info log line: all (default), none,
                          or 1/N (one in N); a 5xx is always logged, at error
Throttles (a positive number a minute, or off; per instance on SQLite, shared
by every instance on Postgres):
  --api-rate-limit N      a11y, token and bookings admin endpoints, per token or address (default 60)
  --forms-submit-limit N  submissions per form and address (default 5)
  --inbound-ip-limit N    inbound webhook requests per address (default 120)
  --inbound-provider-limit N
                          verified inbound events per provider (default 1000)
  --bookings-post-limit N bookings and holds per address (default 5)
  --bookings-read-limit N bookings reads (services, providers, slots) per address (default 60)
  --bookings-feed-limit N calendar feed requests per address (default 30)
  --analytics-collect-limit N
                          page views collected per address (default 120)
  For a load test, lift them: --api-rate-limit off --forms-submit-limit off ...
`

// abilityHelp lists the abilities the server checks, a few to a line.
func abilityHelp() string {
	var b strings.Builder
	line := "                         "
	for _, a := range knownAbilities {
		if len(line)+len(a)+3 > 98 {
			b.WriteString(line + "\n")
			line = "                         "
		}
		line += " '" + a + "'"
	}
	b.WriteString(line + "\n")
	return b.String()
}

// printHelp prints everything, grouped: the commands (their usage lines;
// "reference help COMMAND" has each one's flags), the server's flags, the
// settings by domain, the endpoints by domain.
func printHelp(w io.Writer) {
	fmt.Fprint(w, "reference: the groundwork reference server, every domain wired together.\n\nUsage:\n")
	fmt.Fprint(w, "  reference help [COMMAND]          this text, or one command's with its flags\n")
	for _, c := range commandHelp {
		text, _, _ := strings.Cut(c.text, "\n\n") // the usage lines; a flags block follows a blank line
		fmt.Fprintf(w, "\n%s:\n%s\n", c.group, strings.TrimSuffix(text, "\n"))
	}
	fmt.Fprint(w, serveFlags, databaseFlags, "\nSettings, by domain (every serve flag has a variable; flags win):\n")
	for _, g := range settingGroups() {
		fmt.Fprintf(w, "%s:\n", g.name)
		for _, v := range g.vars {
			if len(v.name) > 28 {
				fmt.Fprintf(w, "  %s\n  %-28s %s\n", v.name, "", v.help)
			} else {
				fmt.Fprintf(w, "  %-28s %s\n", v.name, v.help)
			}
		}
	}
	fmt.Fprint(w, "\nEndpoints, by domain (the abilities they need: reference help token):\n")
	last := ""
	for _, e := range endpoints() {
		if area := endpointArea(e); area != last {
			fmt.Fprintf(w, "%s:\n", area)
			last = area
		}
		fmt.Fprintf(w, "  %s\n", e)
	}
}

// settingGroup is the variables of one domain.
type settingGroup struct {
	name string
	vars []struct{ name, help string }
}

// settingGroups sorts envVars by the domain their names begin with; the
// rest are the server's.
func settingGroups() []settingGroup {
	domains := []struct{ name, prefix string }{{"mail", "GROUNDWORK_SMTP_"}, {"mail", "GROUNDWORK_MAIL_"}, {"mail", "GROUNDWORK_ADMIN_EMAIL"},
		{"a11y (AI reviews)", "GROUNDWORK_AI_"}, {"webhooks", "GROUNDWORK_WEBHOOKS_"}, {"webhooks", "GROUNDWORK_STRIPE_"},
		{"webhooks", "GROUNDWORK_INBOUND_"}, {"forms", "GROUNDWORK_FORM"}, {"bookings", "GROUNDWORK_BOOKINGS_"},
		{"email lists", "GROUNDWORK_EMAILLIST_"}, {"reporting", "GROUNDWORK_GSC_"}, {"reporting", "GROUNDWORK_GA4_"},
		{"reporting", "GROUNDWORK_GOOGLE_"}}
	groups := []settingGroup{{name: "server"}}
	index := map[string]int{"server": 0}
	for _, v := range envVars {
		name := "server"
		for _, d := range domains {
			if strings.HasPrefix(v.name, d.prefix) {
				name = d.name
				break
			}
		}
		i, ok := index[name]
		if !ok {
			i, index[name] = len(groups), len(groups)
			groups = append(groups, settingGroup{name: name})
		}
		groups[i].vars = append(groups[i].vars, v)
	}
	return groups
}

// endpointAreas name the domain of each path prefix, first match wins.
var endpointAreas = []struct{ prefix, area string }{
	{"/api/v1/auth", "auth: tokens"}, {"/api/a11y", "a11y"}, {"/api/v1/a11y", "a11y"}, {"/api/v1/forms", "forms"}, {"/forms", "forms"},
	{"/api/ecommerce", "webhooks"}, {"/ecommerce", "webhooks"}, {"/webhooks-portal", "webhooks"}, {"/api/bookings", "bookings"}, {"/bookings", "bookings"},
	{"/admin/emailmarketing", "email lists"}, {"/emailmarketing", "email lists"}, {"/search-reporting", "reporting"},
	{"/analytics", "reporting"}, {"/reporting", "reporting"}, {"/google", "reporting"}, {"/healthz", "server"}, {"/readyz", "server"}, {"/openapi.json", "server"}, {"/docs", "server"}, {"/ ", "server"},
}

// endpointArea is the domain an endpoint belongs to; the sign-in pages
// are the rest.
func endpointArea(e string) string {
	_, path, _ := strings.Cut(e, " ")
	for _, a := range endpointAreas {
		if strings.HasPrefix(path+" ", a.prefix) {
			return a.area
		}
	}
	return "auth: sign-in pages"
}

// printCommandHelp prints one command group's usage and flags.
func printCommandHelp(w io.Writer, group string) {
	for _, c := range commandHelp {
		if c.group != group {
			continue
		}
		fmt.Fprintf(w, "Usage:\n%s", c.text)
		switch group {
		case "serve":
			fmt.Fprint(w, serveFlags, "\nEvery flag has a variable (see reference --help); flags win.\n")
		case "token", "user", "bookings", "webhooks", "mail":
			fmt.Fprint(w, databaseFlags)
		}
		return
	}
}

// wantsHelp reports whether args ask for help: -h, -help or --help before
// any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if slices.Contains([]string{"-h", "-help", "--help"}, a) {
			return true
		}
	}
	return false
}
