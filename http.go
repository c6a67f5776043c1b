package groundwork

import (
	"log/slog"
	"net/netip"
	"net/url"
)

// HTTPOptions are the settings every handler takes, embedded in each
// handler's options, so a host fills them once and hands the same value
// to every handler it mounts. The zero value works: no logging, a
// limiter in memory, no trusted proxy, links from the request's own
// address where a handler makes links at all.
type HTTPOptions struct {
	// Logger receives unexpected errors; nil discards.
	Logger *slog.Logger
	// RateLimiter counts the handler's throttles; one in memory when nil.
	// One limiter may be shared by every handler (each names its keys),
	// and a store.SQLRateLimiter holds the limits across instances.
	RateLimiter RateLimiter
	// TrustedProxies may set X-Forwarded-For (and X-Forwarded-Proto):
	// the client address is read from the header only when the request
	// comes from one of them.
	TrustedProxies []netip.Prefix
	// BaseURL is the site's public address, for the links a handler
	// makes (pagination, mail); the request's own when nil, where the
	// handler allows that.
	BaseURL *url.URL
	// Brand names the site on every page a handler draws.
	Brand Brand
	// Navigator finds the signed-in user for the pages' header; guests'
	// headers only when nil.
	Navigator Navigator
}
