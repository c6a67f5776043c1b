package reporting

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/tenant"
)

// Visitor is who a request came from, as the collector tells visitors
// apart (hashed with the day's salt, never stored), and the address of
// the page it was for.
type Visitor struct {
	IP, UserAgent string
	// Page is the request's absolute address: the site's origin and the
	// path asked for.
	Page string
	// Referrer is the request's Referer.
	Referrer string
}

type visitorKey struct{}

// WithVisitor is ctx carrying v, for CollectServer.
func WithVisitor(ctx context.Context, v Visitor) context.Context {
	return context.WithValue(ctx, visitorKey{}, v)
}

// VisitorFrom is the visitor ctx carries.
func VisitorFrom(ctx context.Context) (Visitor, bool) {
	v, ok := ctx.Value(visitorKey{}).(Visitor)
	return v, ok
}

// VisitorOptions configures [CarryVisitor].
type VisitorOptions struct {
	// TrustedProxies may set X-Forwarded-For.
	TrustedProxies []netip.Prefix
	// BaseURL is the site's public origin; the request's scheme and Host
	// when nil.
	BaseURL *url.URL
	// Analytics, when set, also lets the handlers under CarryVisitor read
	// where the visit came from (groundwork.VisitOf: the first page view
	// of the visitor's session that day, as Analytics counted it), so a
	// submission or a booking made through an API a page calls keeps it.
	// TrackViews does so for the pages it wraps.
	Analytics *Analytics
}

// CarryVisitor puts each request's Visitor in its context, so that what
// the handlers under it count on the server (CollectServer, the link
// package's conversions) is the same visitor, in the same session, as
// their page views.
func CarryVisitor(next http.Handler, o VisitorOptions) http.Handler {
	origin := ""
	if o.BaseURL != nil {
		origin = strings.TrimSuffix(o.BaseURL.String(), "/")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page := origin
		if page == "" {
			scheme := "http"
			if r.TLS != nil || proxies.ViaTLS(r, o.TrustedProxies) {
				scheme = "https"
			}
			page = scheme + "://" + r.Host
		}
		v := Visitor{IP: proxies.ClientIPString(r, o.TrustedProxies), UserAgent: r.UserAgent(), Page: page + r.URL.RequestURI(),
			Referrer: r.Referer()}
		ctx := WithVisitor(r.Context(), v)
		if o.Analytics != nil {
			ctx = o.Analytics.withVisit(ctx, v)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// CollectServer counts an event the server saw happen (a form accepted,
// a booking paid), where no ad blocker or closed tab can lose it: e's
// Name, Props, Revenue and Currency (checked as Collect's; the rest is
// the visitor's), as the visitor ctx carries (see CarryVisitor), in their
// session, whatever their user agent; else as a visitor of its own, at
// site's root (site is the site's origin, "https://example.com"). It
// counts for the site of the tenant ctx acts for (the form's, the
// service's: tenant.With), else for its page's host's.
func (a *Analytics) CollectServer(ctx context.Context, site string, e View) error {
	v, ok := VisitorFrom(ctx)
	if !ok {
		one := make([]byte, 16)
		_, _ = rand.Read(one)
		v = Visitor{UserAgent: "server " + hex.EncodeToString(one), Page: strings.TrimSuffix(site, "/") + "/"}
	}
	view := View{Name: e.Name, URL: v.Page, Referrer: v.Referrer, IP: v.IP, UserAgent: v.UserAgent, Props: e.Props,
		Revenue: e.Revenue, Currency: e.Currency}
	view.site, view.sited = tenant.Of(ctx)
	return a.collect(ctx, view, false)
}

// TrackViews counts a page view of each HTML page next serves (a GET
// answered 200 with text/html), on the server: pages that carry no script
// are counted all the same, and a funnel (forms.Funnel) sees their views.
// The visitor is the one CarryVisitor put in the request (wrap the mux in
// it, so conversions counted by the link package are in the same
// session); a request without one is counted as CarryVisitor would with
// o. A view that cannot be counted (a bot, the writer full) never changes
// the answer; an unexpected error goes to logger (nil discards).
func (a *Analytics) TrackViews(next http.Handler, o VisitorOptions, logger *slog.Logger) http.Handler {
	track := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &htmlRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		if r.Method != http.MethodGet || rec.status != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			return
		}
		v, _ := VisitorFrom(r.Context())
		err := a.Collect(r.Context(), View{URL: v.Page, Referrer: v.Referrer, IP: v.IP, UserAgent: v.UserAgent})
		if err != nil && !errors.Is(err, ErrBot) && !errors.Is(err, ErrBadView) && logger != nil {
			logger.ErrorContext(r.Context(), "reporting: track view", "error", err)
		}
	})
	o.Analytics = a
	carried := CarryVisitor(track, o)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v, ok := VisitorFrom(r.Context()); ok {
			track.ServeHTTP(w, r.WithContext(a.withVisit(r.Context(), v)))
			return
		}
		carried.ServeHTTP(w, r)
	})
}

// withVisit is ctx able to tell v's visit (groundwork.VisitOf), read
// when first asked.
func (a *Analytics) withVisit(ctx context.Context, v Visitor) context.Context {
	return groundwork.WithVisit(ctx, func(ctx context.Context) (groundwork.Visit, bool) { return a.visitOf(ctx, v) })
}

// visitOf is where v's visit came from: the first page view of their
// latest session today, as the store keeps it or, not written yet, as
// this instance holds it. False when the store keeps no views by visitor
// (SegmentStore) or has none of v's today; an error reading is logged
// and taken for none (a submission is not refused for its analytics).
func (a *Analytics) visitOf(ctx context.Context, v Visitor) (groundwork.Visit, bool) {
	ss, ok := a.store.(SegmentStore)
	u, err := url.Parse(v.Page)
	if !ok || err != nil || u.Host == "" {
		return groundwork.Visit{}, false
	}
	day := a.o.Now().In(a.o.Location).Format(time.DateOnly)
	salt, err := a.salt(ctx, day)
	if err != nil {
		a.o.Logger.WarnContext(ctx, "reporting: the visit's origin not read", "error", err)
		return groundwork.Visit{}, false
	}
	host := strings.ToLower(u.Hostname())
	visitor := visitorHash(salt, host, v.IP, v.UserAgent)
	site, _ := a.siteOfHost(ctx, host)
	h, found, err := ss.SessionEntry(tenant.With(ctx, site), day, visitor) // the visit is on its host's site
	if err != nil {
		a.o.Logger.WarnContext(ctx, "reporting: the visit's origin not read", "error", err)
		return groundwork.Visit{}, false
	}
	if !found {
		h, found = a.pendingEntry(day, visitor)
	}
	if !found {
		return groundwork.Visit{}, false
	}
	return groundwork.Visit{Source: h.Source, Medium: h.Campaign[0], Campaign: h.Campaign[1], Landing: h.Path, Country: h.Country}, true
}

// pendingEntry is the visitor's first page view of day among the hits
// not written yet: a visit that began moments ago.
func (a *Analytics) pendingEntry(day, visitor string) (Hit, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, b := range a.pending.blocks {
		for _, h := range b {
			if h.Visitor == visitor && h.Day == day && h.Event == "" {
				return h, true
			}
		}
	}
	return Hit{}, false
}

// htmlRecorder keeps the status a handler answered.
type htmlRecorder struct {
	http.ResponseWriter
	status int
}

func (s *htmlRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *htmlRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
