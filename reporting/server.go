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

	"github.com/groundwork-go/groundwork/internal/proxies"
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
		next.ServeHTTP(w, r.WithContext(WithVisitor(r.Context(), v)))
	})
}

// CollectServer counts an event the server saw happen (a form accepted,
// a booking made), where no ad blocker or closed tab can lose it: as the
// visitor ctx carries (see CarryVisitor), in their session, whatever
// their user agent; else as a visitor of its own, at site's root (site is
// the site's origin, "https://example.com"). The name and props are
// checked as Collect's.
func (a *Analytics) CollectServer(ctx context.Context, site, name string, props map[string]string) error {
	v, ok := VisitorFrom(ctx)
	if !ok {
		one := make([]byte, 16)
		_, _ = rand.Read(one)
		v = Visitor{UserAgent: "server " + hex.EncodeToString(one), Page: strings.TrimSuffix(site, "/") + "/"}
	}
	return a.collect(ctx, View{Name: name, URL: v.Page, Referrer: v.Referrer, IP: v.IP, UserAgent: v.UserAgent, Props: props}, false)
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
	carried := CarryVisitor(track, o)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := VisitorFrom(r.Context()); ok {
			track.ServeHTTP(w, r)
			return
		}
		carried.ServeHTTP(w, r)
	})
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
