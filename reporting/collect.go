package reporting

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
)

// Collection defaults.
const (
	// CollectPrefixDefault is where [NewCollectHandler] serves.
	CollectPrefixDefault = "/analytics"
	// CollectLimitDefault is the views a minute taken from one address.
	CollectLimitDefault = 120
	// MaxCollectBody caps a collect request.
	MaxCollectBody = 8 << 10
)

// CollectOptions configures [NewCollectHandler]. Nil means the defaults.
type CollectOptions struct {
	// HTTPOptions: its RateLimiter counts the per-address throttle (Limit
	// a minute); TrustedProxies name who may set X-Forwarded-For.
	groundwork.HTTPOptions
	// Prefix: CollectPrefixDefault when empty.
	Prefix string
	// Hosts are the sites whose pages may be recorded; when empty, only
	// the request's own host. A host the analytics' SiteOfHost knows, or
	// (without one) a host a site has named (HostStore), is recorded
	// too, for that site; these Hosts count for "", and no site may name
	// them.
	Hosts []string
	// Limit is the views a minute taken from one address:
	// CollectLimitDefault when zero, none when negative.
	Limit int
	// Country is the host's guess of a request's country (two letters),
	// from a header its CDN sets, say; none when nil.
	Country func(r *http.Request) string
}

// CollectHandler takes page views and events:
//
//	POST {prefix}/collect      {"name", "url", "referrer", "title", "props", "revenue"} → 202 (any content type, for sendBeacon)
//	GET  {prefix}/collect.gif  ?n=&u=&r=&t=, or nothing: the page is the Referer → a 1×1 GIF (no JavaScript needed)
//	GET  {prefix}/script.js    the tiny script that posts a page view
//
// No cookie is read or set. Bots are answered as anyone else and not
// recorded.
type CollectHandler struct {
	a        *Analytics
	o        CollectOptions
	base     *api.Base
	prefix   string
	throttle *throttle.Throttle
	// js is the analytics script as served under prefix.
	js string
}

// NewCollectHandler returns the collection endpoints of a.
func NewCollectHandler(a *Analytics, opts *CollectOptions) (*CollectHandler, error) {
	if a == nil {
		return nil, errors.New("reporting: new collect handler: analytics is nil")
	}
	var o CollectOptions
	if opts != nil {
		o = *opts
	}
	b, err := api.NewBase(o.Prefix, CollectPrefixDefault, o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("reporting: new collect handler: %w", err)
	}
	prefix := b.Prefix
	o.RateLimiter, o.Logger = b.Throttle.Limiter, b.Logger
	for i, h := range o.Hosts {
		o.Hosts[i] = strings.ToLower(h)
	}
	a.hosts.reserve(o.Hosts)
	h := &CollectHandler{a: a, o: o, base: b, prefix: prefix, js: servedScript(prefix)}
	if o.Limit >= 0 {
		limit := o.Limit
		if limit == 0 {
			limit = CollectLimitDefault
		}
		h.throttle = &throttle.Throttle{Name: "reporting_collect", Limiter: o.RateLimiter, Limit: limit, Window: time.Minute,
			TrustedProxies: o.TrustedProxies, Now: a.o.Now, Logger: o.Logger,
			Key: func(r *http.Request) string { return proxies.ClientIPString(r, o.TrustedProxies) }}
	}
	b.Mux.Handle("POST "+prefix+"/collect", h.throttle.Wrap(b.Func(h.collect)))
	b.Mux.Handle("GET "+prefix+"/collect.gif", h.throttle.Wrap(b.Func(h.pixel)))
	b.Mux.HandleFunc("GET "+prefix+"/script.js", h.script)
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *CollectHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.base.ServeHTTP(w, r) }

// OpenAPI describes the collection routes, under the handler's prefix,
// as an OpenAPI 3.1 part to merge into a host's document; see
// groundwork.OpenAPI.
func (h *CollectHandler) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIDescription, h.prefix, CollectPrefixDefault, h.Routes())
}

// Routes lists the routes, as "METHOD /path".
func (h *CollectHandler) Routes() []string {
	return []string{"POST " + h.prefix + "/collect", "GET " + h.prefix + "/collect.gif", "GET " + h.prefix + "/script.js"}
}

type collectBody struct {
	Name     string         `json:"name"`
	URL      string         `json:"url"`
	Referrer string         `json:"referrer"`
	Title    string         `json:"title"`
	Props    map[string]any `json:"props"`
	// Revenue is an event's: {"amount": 49.9 or "49.90", "currency": "EUR"}.
	Revenue *struct {
		Amount   json.RawMessage `json:"amount"`
		Currency string          `json:"currency"`
	} `json:"revenue"`
}

// view makes the View of a request, checking the page's site.
func (h *CollectHandler) view(r *http.Request, b collectBody) (View, error) {
	v := View{Name: b.Name, URL: b.URL, Referrer: b.Referrer, Title: b.Title, IP: proxies.ClientIPString(r, h.o.TrustedProxies),
		UserAgent: r.UserAgent()}
	if h.o.Country != nil {
		v.Country = h.o.Country(r)
	}
	u, err := url.Parse(b.URL)
	if err != nil || u.Host == "" {
		return v, fmt.Errorf("%w: the url must be an absolute http(s) address", ErrBadView)
	}
	host := strings.ToLower(u.Hostname())
	ownHost := strings.ToLower(r.Host)
	if i := strings.LastIndexByte(ownHost, ':'); i >= 0 && !strings.Contains(ownHost[i:], "]") {
		ownHost = ownHost[:i]
	}
	own := len(h.o.Hosts) == 0 && host == ownHost || slices.Contains(h.o.Hosts, host)
	var tenants bool
	if !own || h.a.o.SiteOfHost != nil {
		v.site, tenants = h.a.siteOfHost(r.Context(), host)
	}
	v.sited = true
	if !tenants && !own {
		return v, fmt.Errorf("%w: the url is not on a site recorded here", ErrBadView)
	}
	return v, nil
}

func (h *CollectHandler) collect(w http.ResponseWriter, r *http.Request) error {
	body, err := api.ReadBody(w, r, MaxCollectBody)
	if err != nil {
		return err
	}
	var b collectBody
	if err := json.Unmarshal(body, &b); err != nil {
		return api.Invalid("url", "The view must be a JSON object with a url.")
	}
	if len(b.Props) > MaxProps {
		return api.Invalid("props", api.MsgMaxItems("props", MaxProps))
	}
	v, err := h.view(r, b)
	if err == nil {
		v.Props, err = propValues(b.Props)
	}
	if err == nil && b.Revenue != nil {
		// A number, or a number in text: its text as written.
		var n json.Number
		if json.Unmarshal(b.Revenue.Amount, &n) != nil {
			return api.Invalid("revenue", "The revenue's amount must be a number or a decimal in text, like 49.90.")
		}
		v.Revenue, v.Currency = n.String(), b.Revenue.Currency
	}
	if err == nil {
		err = h.a.Collect(r.Context(), v)
	}
	switch {
	case err == nil, errors.Is(err, ErrBot):
		w.WriteHeader(http.StatusAccepted)
		return nil
	case errors.Is(err, errBadProps):
		return api.Invalid("props", strings.TrimPrefix(err.Error(), errBadProps.Error()+": "))
	case errors.Is(err, ErrBadView) && strings.Contains(err.Error(), "revenue"):
		return api.Invalid("revenue", strings.TrimPrefix(err.Error(), ErrBadView.Error()+": "))
	case errors.Is(err, ErrBadView) && strings.Contains(err.Error(), "prop"):
		return api.Invalid("props", strings.TrimPrefix(err.Error(), ErrBadView.Error()+": "))
	case errors.Is(err, ErrBadView):
		return api.Invalid("url", strings.TrimPrefix(err.Error(), ErrBadView.Error()+": "))
	case errors.Is(err, ErrBusy):
		return busy()
	default: // the day's salt could not be read: the store is down
		return &api.Error{Status: http.StatusServiceUnavailable, Message: reply.MsgUnavailable, Err: err}
	}
}

// busy is the answer while too many views wait to be written: come back
// in a second.
func busy() *api.Error {
	return &api.Error{Status: http.StatusServiceUnavailable, Message: "Too many page views are waiting to be recorded; try again in a second.",
		Err: ErrBusy, Header: http.Header{"Retry-After": {"1"}}, Logged: true} // Collect logs it, once in a while
}

// gif is a transparent 1×1 GIF.
var gif = []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")

func (h *CollectHandler) pixel(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	b := collectBody{Name: q.Get("n"), URL: q.Get("u"), Referrer: q.Get("r"), Title: q.Get("t")}
	if b.URL == "" {
		b.URL = r.Referer() // an <img> on the page: the page is the referrer
	}
	v, err := h.view(r, b)
	if err == nil {
		// An event's props as p.<name>=<value>.
		for k, vs := range q {
			if name, ok := strings.CutPrefix(k, "p."); ok && len(vs) > 0 {
				if v.Props == nil {
					v.Props = map[string]string{}
				}
				v.Props[name] = vs[0]
			}
		}
	}
	if err == nil {
		err := h.a.Collect(r.Context(), v)
		if errors.Is(err, ErrBusy) {
			return busy()
		}
		if err != nil && !errors.Is(err, ErrBot) && !errors.Is(err, ErrBadView) {
			h.o.Logger.ErrorContext(r.Context(), "reporting: collect", "error", err)
		}
	}
	w.Header().Set("Content-Type", "image/gif")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(gif)
	return nil
}

// errBadProps is a props object that is not names to text, numbers or
// booleans.
var errBadProps = errors.New("reporting: bad props")

// propValues are a JSON props object's values as text: a string as it
// is, a number or a boolean as JSON writes it; anything else is refused.
func propValues(in map[string]any) (map[string]string, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		switch x := v.(type) {
		case string:
			out[k] = x
		case float64:
			out[k] = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			out[k] = strconv.FormatBool(x)
		default:
			return nil, fmt.Errorf("%w: the prop %q must be text, a number or true or false", errBadProps, k)
		}
	}
	return out, nil
}

//go:embed script/script.js
var scriptSource string

// scriptJS is the analytics script as served: script/script.js with its
// comment lines dropped and every line trimmed (it is written to be read
// so), under 2 KB gzipped; %s is where it posts.
var scriptJS = func() string {
	var b strings.Builder
	for line := range strings.SplitSeq(scriptSource, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "//") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}()

// servedScript is the analytics script as the collect handler serves it under
// prefix (its events posted to prefix/collect).
func servedScript(prefix string) string { return strings.Replace(scriptJS, "%s", prefix, 1) }

func (h *CollectHandler) script(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = io.WriteString(w, h.js)
}
