package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportinggeo"
	"github.com/groundwork-go/groundwork/reporting/reportinggoogle"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
)

// reportingConfig is where the reports come from, from the environment.
type reportingConfig struct {
	siteURL, propertyID, credentials    string
	clientID, clientSecret, redirectURL string
	// sites are more hosts whose views are collected; collectLimit is the
	// collection throttle (0 the default, negative none).
	sites        []string
	collectLimit int
	// countryHeader names the proxy's country header ("" CF-IPCountry,
	// "-" none); mmdb is an MMDB file of countries, or "".
	countryHeader, mmdb string
	// flushWriters is how many transactions a flush of views writes at
	// once (0: two on Postgres, one on SQLite).
	flushWriters int
}

func readReportingConfig(getenv func(string) string) (reportingConfig, error) {
	c := reportingConfig{siteURL: getenv("GROUNDWORK_GSC_SITE_URL"), propertyID: getenv("GROUNDWORK_GA4_PROPERTY_ID"),
		credentials: getenv("GROUNDWORK_GOOGLE_CREDENTIALS"), clientID: getenv("GROUNDWORK_GOOGLE_CLIENT_ID"),
		clientSecret: getenv("GROUNDWORK_GOOGLE_CLIENT_SECRET"), redirectURL: getenv("GROUNDWORK_GOOGLE_REDIRECT_URL"),
		countryHeader: strings.TrimSpace(getenv("GROUNDWORK_ANALYTICS_COUNTRY_HEADER")), mmdb: getenv("GROUNDWORK_ANALYTICS_MMDB")}
	oauth := c.clientID != "" || c.clientSecret != "" || c.redirectURL != ""
	switch {
	case oauth && (c.clientID == "" || c.clientSecret == "" || c.redirectURL == ""):
		return c, errors.New("GROUNDWORK_GOOGLE_CLIENT_ID, _SECRET and _REDIRECT_URL go together")
	case oauth && c.credentials != "":
		return c, errors.New("set GROUNDWORK_GOOGLE_CREDENTIALS or the GROUNDWORK_GOOGLE_CLIENT_* variables, not both")
	case c.propertyID != "" && strings.Trim(c.propertyID, "0123456789") != "":
		return c, fmt.Errorf("GROUNDWORK_GA4_PROPERTY_ID must be digits, not %q", c.propertyID)
	case c.countryHeader != "" && c.countryHeader != "-" && !httpguts.ValidHeaderFieldName(c.countryHeader):
		return c, fmt.Errorf("GROUNDWORK_ANALYTICS_COUNTRY_HEADER must be a header name or -, not %q", c.countryHeader)
	}
	if v := getenv("GROUNDWORK_ANALYTICS_FLUSH_WRITERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 16 {
			return c, fmt.Errorf("GROUNDWORK_ANALYTICS_FLUSH_WRITERS must be 1 to 16, not %q", v)
		}
		c.flushWriters = n
	}
	return c, nil
}

// reportingParts is the reporting wiring of the server.
type reportingParts struct {
	module    *reporting.Module
	analytics *reporting.Analytics
	routes    *reporting.Handler
	collect   *reporting.CollectHandler
	dashboard *reporting.Dashboard
	oauth     *reportinggoogle.OAuth // nil without a Google client
	// country says where a request comes from, when a country header or
	// an MMDB file is configured; nil otherwise.
	country func(*http.Request) string
}

// userID is the signed-in user of a request, as text.
func userID(ctx context.Context) (string, bool) {
	u, ok := auth.UserFrom(ctx)
	if !ok {
		return "", false
	}
	return strconv.FormatInt(u.ID, 10), true
}

// newReporting joins reporting to env: the first-party analytics
// (always on), the Google sources the configuration names, the routes
// (for a signed-in user too), the collection endpoint, the dashboard for
// users with view_search_reporting.
func newReporting(c reportingConfig, env *store.Env, tokens *auth.Service, signIn *auth.Web) (*reportingParts, error) {
	logger := env.Logger
	st := reportingsql.New(env.DB)
	p := &reportingParts{}
	var err error
	hosts := c.sites
	if base := env.HTTP.BaseURL; base != nil {
		hosts = append([]string{base.Hostname()}, hosts...)
	}
	geo := reportinggeo.Options{Header: c.countryHeader, TrustedProxies: env.HTTP.TrustedProxies}
	if c.mmdb != "" {
		// Read for the life of the process (the file is mapped, not
		// copied); a new file is read at the next start.
		if geo.Countries, err = reportinggeo.Open(c.mmdb); err != nil {
			return nil, fmt.Errorf("GROUNDWORK_ANALYTICS_MMDB: %w", err)
		}
	}
	if c.mmdb != "" || c.countryHeader != "-" && len(env.HTTP.TrustedProxies) > 0 {
		p.country = reportinggeo.Func(geo) // also the place of a sign-in
	}
	var clients reportinggoogle.Clients
	switch {
	case c.credentials != "":
		keyFile, err := os.ReadFile(c.credentials)
		if err != nil {
			return nil, fmt.Errorf("GROUNDWORK_GOOGLE_CREDENTIALS: %w", err)
		}
		if clients, err = reportinggoogle.ServiceAccount(context.Background(), keyFile, nil, reportinggoogle.ScopeSearchConsole,
			reportinggoogle.ScopeAnalytics); err != nil {
			return nil, err
		}
	case c.clientID != "":
		if p.oauth, err = reportinggoogle.NewOAuth(reportinggoogle.OAuthOptions{ClientID: c.clientID, ClientSecret: c.clientSecret,
			RedirectURL: c.redirectURL, Scopes: []string{reportinggoogle.ScopeSearchConsole, reportinggoogle.ScopeAnalytics}, Store: st,
			Key: env.Keys.GoogleTokens(), AfterConnect: "/reporting", Logger: logger,
			UserID:          func(r *http.Request) (string, bool) { return userID(r.Context()) },
			UserFromContext: userID}); err != nil {
			return nil, err
		}
		clients = p.oauth
	}
	var o reporting.Options
	if clients != nil && c.siteURL != "" {
		if o.Search, err = reportinggoogle.NewSearchConsole(reportinggoogle.SearchConsoleOptions{SiteURL: c.siteURL, Clients: clients}); err != nil {
			return nil, err
		}
	}
	if clients != nil && c.propertyID != "" {
		if o.Analytics, err = reportinggoogle.NewGA4(reportinggoogle.GA4Options{PropertyID: c.propertyID, Clients: clients}); err != nil {
			return nil, err
		}
	}
	dashboard := &reporting.DashboardOptions{}
	if p.oauth != nil {
		dashboard.ConnectURL = reportinggoogle.OAuthPrefixDefault + "/connect"
	}
	m, err := reportingsql.Join(env, &reporting.ModuleOptions{Analytics: reporting.AnalyticsOptions{FlushWriters: c.flushWriters},
		Service: o, Collect: reporting.CollectOptions{Hosts: hosts, Limit: c.collectLimit, Country: reportinggeo.Func(geo)},
		Authorizer: requestAuthorizer(tokens), LoadUser: signIn.LoadUser,
		Dashboard: dashboard, DashboardGuard: signIn.RequireCapability(reporting.CapabilityView)})
	if err != nil {
		return nil, err
	}
	p.module, p.analytics, p.routes, p.collect, p.dashboard = m, m.Analytics, m.API, m.Collect, m.Dashboard
	return p, nil
}

// requestAuthorizer decides the routes open to a signed-in user as well
// as a bearer token (the reports, the email-list feeds): for each ability
// a route asks, the ability a token must carry and the capability a user
// must hold.
func requestAuthorizer(tokens *auth.Service) groundwork.RequestAuthorizer {
	return tokens.Authorizer(map[string]auth.Grant{
		reporting.AbilityView:        {Ability: reporting.AbilityView, Capability: reporting.CapabilityView},
		reporting.AbilityManage:      {Ability: reporting.AbilityManage, Capability: reporting.CapabilityManage},
		emaillist.AbilityManageFeeds: {Ability: emaillistAbility, Capability: emaillist.AbilityManageFeeds},
	})
}

// runAnalytics is "reference analytics seed [--days N]": sample page
// views for trying the dashboard.
func runAnalytics(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "seed" {
		return usageError{"analytics needs a sub-command: seed"}
	}
	fs := newFlagSet("reference analytics seed")
	days := fs.Int("days", 90, "how many days back, today included")
	perDay := fs.Int("views", 400, "page views on a typical day")
	st, _, _, err := dbCommand(ctx, fs, args[1:], getenv, stderr, func(positional []string) error {
		if err := noArguments(positional); err != nil {
			return err
		}
		if *days < 1 || *days > reporting.AnalyticsMaxDays || *perDay < 1 || *perDay > 100000 {
			return usageError{"--days must be 1 to 730 and --views 1 to 100000"}
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := seedAnalytics(ctx, reportingsql.New(st), time.Now().UTC(), *days, *perDay)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d sample page views over %d days recorded. See them at /reporting.\n", n, *days)
	return nil
}

// seedAnalytics records sample traffic: a weekly rhythm, slow growth, a
// handful of pages, sources and devices, some events.
func seedAnalytics(ctx context.Context, st reporting.Store, today time.Time, days, perDay int) (int, error) {
	r := rand.New(rand.NewPCG(7, 11))
	pages := []struct{ path, title string }{{"/", "Home"}, {"/forms/contact-us", "Contact us"}, {"/bookings/consultation", "Book a consultation"},
		{"/pricing", "Pricing"}, {"/blog/accessible-colours", "Accessible colours"}, {"/about", "About"}}
	sources := []string{"Direct", "Direct", "google.com", "google.com", "google.com", "newsletter", "duckduckgo.com", "news.ycombinator.com"}
	devices := []string{"desktop", "desktop", "mobile", "mobile", "mobile", "tablet"}
	events := []string{"booking_made", "form_submitted", "signup"}
	total := 0
	for d := days - 1; d >= 0; d-- {
		day := time.Date(today.Year(), today.Month(), today.Day()-d, 0, 0, 0, 0, time.UTC)
		weekday := 1.0
		if day.Weekday() == time.Saturday || day.Weekday() == time.Sunday {
			weekday = 0.6
		}
		n := int(float64(perDay) * weekday * (0.8 + 0.4*float64(days-d)/float64(days)) * (0.9 + 0.2*r.Float64()))
		var hits []reporting.Hit
		// Visits of one to five pages a minute or two apart, spread over
		// the day.
		for views := 0; views < n; {
			visitor := "seed-" + day.Format("0102") + "-" + strconv.Itoa(r.IntN(max(n/3, 1)))
			at := day.Add(time.Duration(r.Int64N(int64(23 * time.Hour))))
			source, device := sources[r.IntN(len(sources))], devices[r.IntN(len(devices))]
			for range 1 + r.IntN(5) {
				p := pages[min(int(r.ExpFloat64()*1.5), len(pages)-1)]
				h := reporting.Hit{At: at, Day: day.Format(time.DateOnly), Visitor: visitor, Path: p.path, Title: p.title, Source: source,
					Device: device}
				hits = append(hits, h)
				views++
				if r.IntN(20) == 0 {
					e := h
					e.Event, e.Path, e.Title = events[r.IntN(len(events))], "", ""
					hits = append(hits, e)
				}
				at = at.Add(time.Duration(60+r.IntN(120)) * time.Second)
			}
		}
		n = 0
		for _, h := range hits {
			if h.Event == "" {
				n++
			}
		}
		if err := st.Record(ctx, hits, nil); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}
