// Package reporting serves search and analytics reports: from Google
// (Search Console and GA4, in the reportinggoogle sub-package, so a host
// without Google does not link the OAuth client) or from a built-in,
// privacy-friendly analytics source; with JSON routes and a dashboard.
//
// # Sources
//
// A [SearchSource] answers performance (totals and a daily trend), top
// queries and top pages; an [AnalyticsSource] the overview (totals and
// trend) and top content (pages and events); a [DetailSource] (the
// first-party analytics) answers the detailed reports too: views broken
// down by one [Dimension] through one verb, Breakdown(ctx, dim, query) (a
// source, a device class, a country, a browser, an operating system or a
// campaign dimension: [BreakdownDims]), and, in shapes of their own, entry
// and exit pages, an event's properties, goals and live visitors. The
// reports and panels a source cannot answer are left out (GA4 answers the
// overview and top content). A source that depends on
// who asks (a user's own Google connection) is [Connected].
//
// # First-party analytics
//
// [Analytics] records page views and named events without cookies: a
// visitor is a hash of the day's salt, the site, the IP address and the
// user agent; the salt is forgotten after a day, so nobody can be
// followed from one day to the next, and no IP address or user agent is
// stored. Bots are dropped by user agent. [NewCollectHandler] takes views
// at POST /analytics/collect (JSON, any content type, for sendBeacon), a
// no-JavaScript pixel GET /analytics/collect.gif (the page is its
// Referer) and a tiny script; a per-address throttle guards them. Views
// are buffered and written every second in one transaction into daily
// and weekly rollups (views, visitors, sessions, duration by page, event,
// source, device, country), so reports stay fast at millions of views;
// rollups past the retention are pruned. An event's name is counted, and
// its props (at most MaxProps, names and values bounded by
// MaxPropNameLength and MaxPropValueLength) by event, property and value
// with their visitors, which [Analytics.EventProperties] and GET
// /analytics-reporting/event-properties?event= read back; a page view's
// props are not counted. The pixel takes them as p.<name>=<value>. A page
// view's utm_medium, utm_campaign, utm_term and utm_content are counted
// too ([Analytics.Campaigns], GET /analytics-reporting/campaigns), and its
// browser and operating system, read from the user agent, which is not
// kept ([Analytics.Browsers], [Analytics.OperatingSystems]).
//
// A view answered 202 is written. The buffer is bounded
// (AnalyticsOptions.MaxPending, 100,000 views): while it is full, because
// the database takes views slower than they come or is down, a view is
// refused with 503 and Retry-After: 1 rather than taken and dropped. A
// failed write keeps its batch for the next. When Run's context ends
// (after the HTTP server has stopped taking requests) every view still
// waiting is written before Run returns, however long that takes (a full
// buffer of varied traffic can take a minute on a slow disk), with a line
// in the log every five seconds saying how many are written and how many
// wait. A failed write is tried again; only when no write has succeeded
// for ShutdownFlush (a minute: the database away) does it give up, and
// logs how many views it could not write. Only a hard kill (SIGKILL, a
// power cut, or a supervisor's deadline shorter than the drain) loses
// views: those taken since the last write. The
// per-address throttle of the collect routes guards load, not money: count
// it in memory (driverless.NewMemoryRateLimiter), per instance, as the reference
// server does, so a view costs no database round trip.
//
// # Routes
//
// A [Service] holds the sources and answers each report through a cache
// of successful answers; the routes and the dashboard both read it.
// [NewHandler] serves /search-reporting/performance, top-queries and
// top-pages (days 28, 1..490; limit 25, 1..1000) and
// /analytics-reporting/overview and top-content (days 30, 1..730; limit
// 10, 1..100; property_id), plus for the first-party source sources,
// devices, browsers, operating-systems, countries, entry-pages,
// exit-pages, campaigns, event-properties and goals. The analytics
// routes take twelve filters, alone or together (AND:
// [AnalyticsQuery].Filters): page, source, device, browser, os, country,
// campaign, medium, term, content, goal and prop (?prop=plan:pro);
// the first-party source reads each pair and the common triples from
// per-day rollups and any other set from the kept visitors' segments,
// GA4 as a dimensionFilter; a filter a report is not kept by is a 422
// bad_filter. Errors are {"error", "message"}: 401 unauthenticated, 403 forbidden, 409
// not_connected, 422 bad_filter, 501 base_not_installed, 502
// reporting_error (never a provider's body, which is logged). Successful answers of Google's sources are cached
// five minutes per source, connection and parameters (for Google's
// quotas); the first-party source's are always fresh. A groundwork.RequestAuthorizer decides who may see
// them (the reference server: tokens with reporting:view, users with
// view_search_reporting).
//
// # Dashboard
//
// [NewDashboard] is a page of every report, in the shared page layout:
// totals, trends drawn as inline SVG on the server (with a title, a
// description and the figures in words), tables with a CSV export each
// (?export=pages, events, sources, devices, goals, entry-pages,
// exit-pages, countries, browsers, operating-systems, campaigns or
// event-properties), the totals against the period
// before (AnalyticsQuery.Before, or the dates before a range of
// AnalyticsQuery.Start and End), and a 7/28/90-day picker beside a range
// of dates (?from, ?to), all without JavaScript.
//
// # Setting up the database
//
// Migrate the host's database with reportingsql.Migrations before use:
// store.Migrate(ctx, db, reportingsql.Migrations) applies them with the core
// tables (rate limits, idempotency keys) and River's, and is safe to run
// at every start and from several instances at once. One rate limiter may
// be shared by every handler of every domain (each names its own keys);
// store.NewSQLRateLimiter(db, nil) holds the limits across instances.
package reporting
