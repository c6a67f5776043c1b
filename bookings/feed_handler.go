package bookings

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/tenant"
)

// Feed handler defaults.
const (
	// FeedPrefixDefault is where [NewFeedHandler] serves the feeds.
	FeedPrefixDefault = "/bookings/ical"
	// ICalLimitDefault (per IP) and ICalTokenLimitDefault (per provider
	// feed token) are the feeds' buckets, a minute; the customer feed
	// counts in the manage links' per-token bucket.
	ICalLimitDefault      = 30
	ICalTokenLimitDefault = 30
	// FeedMaxAgeDefault is the feeds' Cache-Control max-age.
	FeedMaxAgeDefault = 5 * time.Minute
)

// FeedHandlerOptions configures [NewFeedHandler]. Nil means the defaults.
type FeedHandlerOptions struct {
	// HTTPOptions: its RateLimiter counts the buckets; share the public
	// API's to count the customer feed with its manage links.
	groundwork.HTTPOptions
	// Prefix: FeedPrefixDefault when empty. Mount with
	// mux.Handle(prefix+"/", h).
	Prefix string
	// ICalLimit, ICalTokenLimit and ManageTokenLimit: requests a minute;
	// the ...Default when zero, no limit when negative.
	ICalLimit, ICalTokenLimit, ManageTokenLimit int
	// MaxAge is the Cache-Control max-age; FeedMaxAgeDefault when zero.
	MaxAge time.Duration
}

// FeedHandler serves the calendar feeds:
//
//	GET {prefix}/providers/{token}.ics   a provider's bookings from 30 days ago to a year ahead, cancelled ones left out
//	GET {prefix}/customers/{token}.ics   the one booking of a manage link
//
// A token that is not 64 lower-case hex is the router's plain 404; an
// unknown one, the feed's JSON 404. Answers carry a strong ETag and
// Cache-Control: private; If-None-Match ("*", lists, W/ tags) gives 304.
type FeedHandler struct {
	svc                 *Service
	base                *api.Base
	ical, icalToken     *throttle.Throttle
	manageToken         *throttle.Throttle
	cacheControl        string
	providers, customer http.Handler
}

var feedFile = regexp.MustCompile(`^([0-9a-f]{64})\.ics$`)

// newBucket is a per-minute throttle named "bookings_"+name: limit a
// minute, def when zero, none (nil) when negative.
func newBucket(svc *Service, limiter groundwork.RateLimiter, trusted []netip.Prefix, logger *slog.Logger, name string, limit, def int) *throttle.Throttle {
	if limit < 0 {
		return nil
	}
	if limit == 0 {
		limit = def
	}
	return &throttle.Throttle{Name: "bookings_" + name, Limiter: limiter, Limit: limit, Window: time.Minute, Message: msgTooMany,
		TrustedProxies: trusted, Now: svc.o.Now, Logger: logger}
}

// tokenKey keys a bucket by a hash of the path's token, so a long forged
// token is a short key.
func tokenKey(r *http.Request) string {
	sum := sha256.Sum256([]byte(r.PathValue("token")))
	return hex.EncodeToString(sum[:12])
}

// NewFeedHandler returns the calendar feeds of svc.
func NewFeedHandler(svc *Service, opts *FeedHandlerOptions) (*FeedHandler, error) {
	if svc == nil {
		return nil, errors.New("bookings: new feed handler: service is nil")
	}
	var o FeedHandlerOptions
	if opts != nil {
		o = *opts
	}
	b, err := api.NewBase(o.Prefix, FeedPrefixDefault, o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("bookings: new feed handler: %w", err)
	}
	if o.MaxAge <= 0 {
		o.MaxAge = FeedMaxAgeDefault
	}
	limiter := b.Throttle.Limiter
	h := &FeedHandler{svc: svc, base: b, cacheControl: "private, max-age=" + strconv.Itoa(int(o.MaxAge/time.Second)),
		ical:        newBucket(svc, limiter, o.TrustedProxies, b.Logger, "ical", o.ICalLimit, ICalLimitDefault),
		icalToken:   newBucket(svc, limiter, o.TrustedProxies, b.Logger, "ical_token", o.ICalTokenLimit, ICalTokenLimitDefault),
		manageToken: newBucket(svc, limiter, o.TrustedProxies, b.Logger, "manage_token", o.ManageTokenLimit, ManageTokenLimitDefault)}
	for _, t := range []*throttle.Throttle{h.icalToken, h.manageToken} {
		if t != nil {
			t.Key = tokenKey
		}
	}
	h.providers = h.ical.Wrap(h.icalToken.Wrap(h.serve(svc.ProviderFeed, msgNoCalendar)))
	h.customer = h.ical.Wrap(h.manageToken.Wrap(h.serve(svc.CustomerFeed, msgBadManageToken)))
	b.Handle("/providers/{file}", api.Methods{http.MethodGet: h.route(h.providers)})
	b.Handle("/customers/{file}", api.Methods{http.MethodGet: h.route(h.customer)})
	return h, nil
}

// route checks the file name's shape before anything else, as a router
// constraint would, and puts the token in the path values.
func (h *FeedHandler) route(next http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m := feedFile.FindStringSubmatch(r.PathValue("file"))
		if m == nil {
			http.NotFound(w, r)
			return
		}
		r.SetPathValue("token", m[1])
		next.ServeHTTP(w, r)
	}
}

func (h *FeedHandler) serve(feed func(ctx context.Context, token, ifNoneMatch string) (Feed, error), notFound string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := feed(r.Context(), r.PathValue("token"), strings.Join(r.Header.Values("If-None-Match"), ","))
		switch {
		case errors.Is(err, errNoCalendar), errors.Is(err, ErrBadManageToken):
			reply.WriteMessage(w, http.StatusNotFound, notFound)
			return
		case err != nil:
			api.WriteError(w, r, h.base.Logger, errorTable, err)
			return
		}
		w.Header().Set("ETag", f.ETag)
		w.Header().Set("Cache-Control", h.cacheControl)
		if f.NotModified {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
		w.Header().Set("Content-Disposition", `inline; filename="`+f.FileName+`"`)
		w.Header().Set("Content-Length", strconv.Itoa(len(f.Body)))
		if r.Method != http.MethodHead {
			w.Write(f.Body)
		}
	})
}

// ServeHTTP implements http.Handler.
func (h *FeedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.base.ServeHTTP(w, r.WithContext(tenant.All(r.Context()))) // a feed is read by its token
}

// Routes lists the routes, as "METHOD /path/{param}".
func (h *FeedHandler) Routes() []string { return h.base.Routes() }

//go:embed openapi_feeds.json
var openAPIFeedsDescription []byte

// OpenAPI describes the calendar feeds, under the handler's prefix, as an
// OpenAPI 3.1 part to merge into a host's document; see
// groundwork.OpenAPI.
func (h *FeedHandler) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIFeedsDescription, h.base.Prefix, FeedPrefixDefault, h.Routes())
}
