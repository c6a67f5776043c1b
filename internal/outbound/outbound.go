// Package outbound is the client every domain uses for external APIs
// (Stripe lookups, Kit, Mailchimp, Google, AI providers): one base URL, a
// timeout per attempt, a bounded response, retries with exponential
// backoff and jitter for 429, 5xx and connection failures that honour
// Retry-After, errors sorted into classes, secrets kept out of logs and
// error texts, and User-Agent: groundwork/<version>.
//
// A provider's own error message is kept in [Error] for logs. It is never
// for our clients: a domain maps the [Class] to a fixed text of its own.
package outbound

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults of [Options].
const (
	// TimeoutDefault bounds one attempt: the request and reading the
	// response.
	TimeoutDefault = 30 * time.Second
	// MaxResponseBytesDefault caps a response body.
	MaxResponseBytesDefault = 4 << 20
	// MaxAttemptsDefault is one try and two retries.
	MaxAttemptsDefault = 3
	// BaseDelayDefault is the first backoff; each further one doubles.
	BaseDelayDefault = 500 * time.Millisecond
	// MaxDelayDefault caps a backoff.
	MaxDelayDefault = 30 * time.Second
	// MaxRetryAfterDefault is the longest Retry-After the client waits
	// for; a longer one ends the call with ErrRateLimited and the wait in
	// Error.RetryAfter, for the caller (a job, say) to come back later.
	MaxRetryAfterDefault = time.Minute
)

// Options configures [New].
type Options struct {
	// Provider names the API in errors and logs ("stripe", "kit").
	Provider string
	// BaseURL is the API's address; request paths are joined to it.
	BaseURL string
	// Header is sent with every request, e.g. Authorization. Its values
	// are secrets: never logged, and cut out of error texts.
	Header http.Header
	// Secrets are further values to cut out of logs and error texts (an
	// API key sent in a query string or a body, say).
	Secrets []string
	// HTTPClient sends the requests; a client on a clone of
	// http.DefaultTransport when nil. Its own Timeout, if any, applies
	// beside Timeout.
	HTTPClient *http.Client
	// Timeout bounds one attempt; TimeoutDefault when zero.
	Timeout time.Duration
	// MaxResponseBytes caps a response body; MaxResponseBytesDefault
	// when zero.
	MaxResponseBytes int64
	// MaxAttempts is how many times a request may be sent in all;
	// MaxAttemptsDefault when zero, 1 for no retries.
	MaxAttempts int
	// BaseDelay, MaxDelay and MaxRetryAfter shape the waits between
	// attempts; the defaults above when zero.
	BaseDelay, MaxDelay, MaxRetryAfter time.Duration
	// ErrorMessage reads the provider's message out of an error body;
	// the usual JSON shapes ({"error": {"message"}}, {"message"},
	// {"errors": [...]}, {"detail"}, {"error_description"}) when nil.
	ErrorMessage func(body []byte) string
	// Logger receives a warning for each retry; nil discards.
	Logger *slog.Logger
	// Now and Jitter are the clock and the randomness (a number in
	// [0, 1)); time.Now and math/rand/v2 when nil.
	Now    func() time.Time
	Jitter func() float64
}

// Client calls one external API. Safe for concurrent use.
type Client struct {
	opts     Options
	base     *url.URL
	redactor *strings.Replacer
}

// New returns a client for opts.BaseURL.
func New(opts Options) (*Client, error) {
	o := opts
	base, err := url.Parse(strings.TrimSuffix(o.BaseURL, "/"))
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("outbound: %s: base URL %q is not an http(s) URL", o.Provider, o.BaseURL)
	}
	if o.Timeout < 0 || o.MaxResponseBytes < 0 || o.MaxAttempts < 0 || o.BaseDelay < 0 || o.MaxDelay < 0 || o.MaxRetryAfter < 0 {
		return nil, fmt.Errorf("outbound: %s: negative option", o.Provider)
	}
	o.Timeout = cmp.Or(o.Timeout, TimeoutDefault)
	o.MaxResponseBytes = cmp.Or(o.MaxResponseBytes, MaxResponseBytesDefault)
	o.MaxAttempts = cmp.Or(o.MaxAttempts, MaxAttemptsDefault)
	o.BaseDelay = cmp.Or(o.BaseDelay, BaseDelayDefault)
	o.MaxDelay = cmp.Or(o.MaxDelay, MaxDelayDefault)
	o.MaxRetryAfter = cmp.Or(o.MaxRetryAfter, MaxRetryAfterDefault)
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Transport: defaultTransport()}
	}
	if o.ErrorMessage == nil {
		o.ErrorMessage = ErrorMessage
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Jitter == nil {
		o.Jitter = rand.Float64
	}
	o.Header = o.Header.Clone()
	var pairs []string
	for _, vs := range o.Header {
		pairs = appendSecrets(pairs, vs...)
	}
	pairs = appendSecrets(pairs, o.Secrets...)
	return &Client{opts: o, base: base, redactor: strings.NewReplacer(pairs...)}, nil
}

// appendSecrets adds the replacement of each secret, and of a bearer
// token's token alone, to pairs.
func appendSecrets(pairs []string, secrets ...string) []string {
	for _, s := range secrets {
		if len(s) < 4 {
			continue // too short to find safely; nothing would be hidden
		}
		pairs = append(pairs, s, Redacted)
		if _, token, ok := strings.Cut(s, " "); ok && len(token) >= 4 {
			pairs = append(pairs, token, Redacted)
		}
		if esc := url.QueryEscape(s); esc != s {
			pairs = append(pairs, esc, Redacted)
		}
	}
	return pairs
}

// Redacted stands where a secret was.
const Redacted = "[REDACTED]"

// Redact cuts the client's secrets out of s.
func (c *Client) Redact(s string) string { return c.redactor.Replace(s) }

var (
	transportOnce sync.Once
	transport     http.RoundTripper
)

// defaultTransport is one clone of http.DefaultTransport for every client
// that brings none, so that connections to a provider are reused.
func defaultTransport() http.RoundTripper {
	transportOnce.Do(func() { transport = http.DefaultTransport.(*http.Transport).Clone() })
	return transport
}

// UserAgent is what every request says of itself: groundwork/<version of
// the groundwork module in this build>.
var UserAgent = "groundwork/" + moduleVersion()

func moduleVersion() string {
	const module = "github.com/groundwork-go/groundwork"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	version := ""
	if info.Main.Path == module {
		version = info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == module {
			version = d.Version
		}
	}
	if version == "" || version == "(devel)" {
		return "devel"
	}
	return version
}

// Request is one call. Body, when set, is sent again on every attempt.
type Request struct {
	Method string
	// Path is joined to the base URL; Query is its query string.
	Path  string
	Query url.Values
	// Header adds to (and replaces) the client's headers.
	Header http.Header
	Body   []byte
	// Idempotent marks a request that may be sent again after a server
	// error or a broken connection: GET, HEAD, PUT, DELETE and OPTIONS
	// are, and a POST the provider de-duplicates (an idempotency key, an
	// upsert) may say so. Any request is sent again after a 429 or a
	// failure to connect, which the provider never acted on.
	Idempotent bool
	// HTTPClient sends this request instead of the client's own: one
	// authorized for the caller (a user's OAuth connection, say).
	HTTPClient *http.Client
}

// Response is a provider's successful (2xx) answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends r until it succeeds, fails in a way another try would not
// mend, or runs out of attempts or of ctx. Anything but a 2xx answer is an
// *Error.
func (c *Client) Do(ctx context.Context, r *Request) (*Response, error) {
	method := cmp.Or(r.Method, http.MethodGet)
	idempotent := r.Idempotent || method == http.MethodGet || method == http.MethodHead || method == http.MethodPut ||
		method == http.MethodDelete || method == http.MethodOptions
	u := *c.base
	// r.Path is sent as written: an escaped segment ("%3A") stays
	// escaped, so Path holds its decoded form and RawPath the written one.
	rel := strings.TrimPrefix(r.Path, "/")
	u.Path, u.RawPath = c.base.Path+"/"+rel, ""
	if c.base.RawPath != "" || strings.Contains(rel, "%") {
		if dec, err := url.PathUnescape(rel); err == nil {
			u.Path = c.base.Path + "/" + dec
		}
		u.RawPath = c.base.EscapedPath() + "/" + rel
	}
	u.RawQuery = r.Query.Encode()
	for attempt := 1; ; attempt++ {
		res, err := c.attempt(ctx, method, &u, r)
		if err == nil {
			return res, nil
		}
		err.Provider, err.Method, err.Path, err.Attempts = c.opts.Provider, method, c.Redact(u.Path), attempt
		err.Message = c.Redact(err.Message)
		if attempt >= c.opts.MaxAttempts {
			return nil, err
		}
		wait, retry := c.retryAfter(err, attempt, idempotent)
		if !retry {
			return nil, err
		}
		if deadline, ok := ctx.Deadline(); ok && c.opts.Now().Add(wait).After(deadline) {
			return nil, err // no time for another try
		}
		c.opts.Logger.WarnContext(ctx, "outbound: retrying", "provider", c.opts.Provider, "method", method, "path", err.Path,
			"attempt", attempt, "status", err.Status, "error", err.Error(), "wait", wait)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, err
		case <-timer.C:
		}
	}
}

// attempt sends r once.
func (c *Client) attempt(ctx context.Context, method string, u *url.URL, r *Request) (*Response, *Error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, &Error{Class: ClassTransport, Err: err}
	}
	for k, vs := range c.opts.Header {
		req.Header[k] = vs
	}
	for k, vs := range r.Header {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	req.Header.Set("User-Agent", UserAgent)
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	hc := c.opts.HTTPClient
	if r.HTTPClient != nil {
		hc = r.HTTPClient
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, &Error{Class: ClassTransport, Err: c.redactErr(err), notSent: notSent(err)}
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, c.opts.MaxResponseBytes+1))
	if err != nil {
		return nil, &Error{Class: ClassTransport, Status: res.StatusCode, Err: c.redactErr(err)}
	}
	if int64(len(data)) > c.opts.MaxResponseBytes {
		return nil, &Error{Class: ClassTransport, Status: res.StatusCode,
			Err: fmt.Errorf("the response is larger than %d bytes", c.opts.MaxResponseBytes), tooLarge: true}
	}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		return &Response{Status: res.StatusCode, Header: res.Header, Body: data}, nil
	}
	e := &Error{Class: classOf(res.StatusCode), Status: res.StatusCode, Message: c.opts.ErrorMessage(data)}
	if ra, ok := parseRetryAfter(res.Header.Get("Retry-After"), c.opts.Now()); ok {
		e.RetryAfter = ra
	}
	return nil, e
}

// redactErr is err with the client's secrets cut out of its text (a URL
// in a *url.Error may carry a key in its query).
func (c *Client) redactErr(err error) error {
	if s := err.Error(); c.Redact(s) != s {
		return redactedError{msg: c.Redact(s), err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// notSent reports whether a transport error happened before the request
// left: a failure to resolve or connect.
func notSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// retryAfter decides whether err is worth another attempt, and after how
// long.
func (c *Client) retryAfter(err *Error, attempt int, idempotent bool) (time.Duration, bool) {
	switch {
	case err.tooLarge:
		return 0, false
	case err.Class == ClassRateLimited:
	case err.Class == ClassTransport && err.notSent:
	case idempotent && (err.Class == ClassServer || err.Class == ClassTransport):
		if err.Status == http.StatusNotImplemented || err.Status == http.StatusHTTPVersionNotSupported {
			return 0, false
		}
	default:
		return 0, false
	}
	if err.RetryAfter > 0 {
		if err.RetryAfter > c.opts.MaxRetryAfter {
			return 0, false // the caller may come back then
		}
		return err.RetryAfter, true
	}
	// Exponential, half of it jittered: d/2 + [0, d/2).
	d := c.opts.BaseDelay << (attempt - 1)
	if d <= 0 || d > c.opts.MaxDelay {
		d = c.opts.MaxDelay
	}
	return d/2 + time.Duration(c.opts.Jitter()*float64(d/2)), true
}

// parseRetryAfter reads Retry-After as seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(min(secs, int64(24*time.Hour/time.Second))) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// GetJSON sends a GET and decodes the answer into out.
func (c *Client) GetJSON(ctx context.Context, path string, query url.Values, out any) error {
	res, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: path, Query: query})
	if err != nil {
		return err
	}
	return c.decode(res, path, out)
}

// DoDecode sends r (no body) and decodes the answer into out.
func (c *Client) DoDecode(ctx context.Context, r *Request, out any) error {
	res, err := c.Do(ctx, r)
	if err != nil {
		return err
	}
	return c.decode(res, r.Path, out)
}

// SendJSON sends in as a JSON body with method and decodes the answer
// into out (unless out is nil).
func (c *Client) SendJSON(ctx context.Context, method, path string, idempotent bool, in, out any) error {
	return c.DoJSON(ctx, &Request{Method: method, Path: path, Idempotent: idempotent}, in, out)
}

// DoJSON sends r with in as its JSON body and decodes the answer into out
// (unless out is nil); r's Body and Content-Type are set here.
func (c *Client) DoJSON(ctx context.Context, r *Request, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("outbound: %s: encode %s: %w", c.opts.Provider, r.Path, err)
	}
	req := *r
	req.Body = body
	req.Header = req.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(ctx, &req)
	if err != nil {
		return err
	}
	return c.decode(res, r.Path, out)
}

func (c *Client) decode(res *Response, path string, out any) error {
	if out == nil || len(res.Body) == 0 && res.Status == http.StatusNoContent {
		return nil
	}
	if err := json.Unmarshal(res.Body, out); err != nil {
		return &Error{Provider: c.opts.Provider, Class: ClassServer, Status: res.Status, Path: c.Redact(path), Attempts: 1,
			Err: fmt.Errorf("the answer is not the JSON expected: %w", err)}
	}
	return nil
}

// ErrorMessage reads a provider's message out of an error body in the
// usual JSON shapes, or takes the start of a plain-text body; "" when
// there is none.
func ErrorMessage(body []byte) string {
	var v struct {
		Error            json.RawMessage `json:"error"`
		ErrorDescription string          `json:"error_description"`
		Message          string          `json:"message"`
		Detail           string          `json:"detail"`
		Title            string          `json:"title"`
		Errors           json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(body, &v) != nil {
		s := strings.TrimSpace(string(body))
		if strings.HasPrefix(s, "<") {
			return "" // an HTML error page says nothing useful
		}
		return clip(s, 300)
	}
	var nested struct {
		Message string `json:"message"`
	}
	var flat string
	switch {
	case json.Unmarshal(v.Error, &nested) == nil && nested.Message != "":
		return clip(nested.Message, 300)
	case v.ErrorDescription != "":
		return clip(v.ErrorDescription, 300)
	case v.Message != "":
		return clip(v.Message, 300)
	case v.Detail != "":
		return clip(v.Detail, 300)
	case json.Unmarshal(v.Error, &flat) == nil && flat != "":
		return clip(flat, 300)
	case v.Title != "":
		return clip(v.Title, 300)
	}
	var list []json.RawMessage
	if json.Unmarshal(v.Errors, &list) == nil && len(list) > 0 {
		var s string
		if json.Unmarshal(list[0], &s) == nil {
			return clip(s, 300)
		}
		var o struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(list[0], &o) == nil {
			return clip(o.Message, 300)
		}
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
