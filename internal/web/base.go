package web

import (
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// Problem is a failure a page answers with the error page: its status,
// what the page says, headers to add (Retry-After), and the cause, for
// logs and errors.Is. A page handler returns one, or a domain error that
// its Base's Explain turns into one, and [Base.Fail] answers it.
type Problem struct {
	Status int
	ErrorPage
	// Header holds response headers to add.
	Header http.Header
	// JSON, when set, is what a client that asked for JSON gets instead
	// of the page: {"message": JSON}.
	JSON string
	// Err is the cause; never shown.
	Err error
}

// Error implements error.
func (p *Problem) Error() string {
	if p.Err != nil {
		return fmt.Sprintf("%d %s: %v", p.Status, p.Heading, p.Err)
	}
	return fmt.Sprintf("%d %s", p.Status, p.Heading)
}

// Unwrap returns the cause.
func (p *Problem) Unwrap() error { return p.Err }

// HandlerFunc is a page handler that returns its failure instead of
// drawing it; [Base.Func] answers the error.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// BaseOptions configures [NewBase]: what every domain's pages share.
type BaseOptions struct {
	// Domain names the package in errors and logs ("forms").
	Domain string
	// Prefix is where the pages are served, Default when empty; "" with
	// an empty Default for pages at the root.
	Prefix, Default string
	// AssetPrefix is where the stylesheet and script are served;
	// Prefix+"/_assets" when empty.
	AssetPrefix string
	// Pages, Override, Key, Funcs, Logger, Brand and Navigator are the
	// renderer's (see [Options]).
	Pages, Override fs.FS
	Key             []byte
	Funcs           template.FuncMap
	Logger          *slog.Logger
	Brand           groundwork.Brand
	Navigator       groundwork.Navigator
	// NotFound is the page of an address under the prefix that names
	// nothing, and of a path that is not text.
	NotFound ErrorPage
	// Failure answers an error no one expected (logged): its status
	// (500 when 0), page and JSON message.
	Failure Problem
	// Explain turns the domain's own errors into their pages; nil for an
	// error it does not know, which is a Failure.
	Explain func(error) *Problem
	// Protect refuses state-changing requests from other origins (see
	// [Renderer.Protect]), trusting TrustedOrigins besides the page's own.
	Protect        bool
	TrustedOrigins []string
	// FrameOrigins may frame the pages (see Options.FrameOrigins).
	FrameOrigins []string
	// MaxFormBytes, when set, limits every request body, and a
	// urlencoded one is read before the handler (and before Protect
	// looks for its CSRF token): 413 past the limit, 400 when it does
	// not parse. Without it a handler must limit its own body.
	MaxFormBytes int64
}

// Base is what every domain's HTML pages start from, as api.Base is for
// its JSON: a cleaned prefix, the renderer, a mux whose unknown
// addresses under the prefix answer the not-found page, a logger, and
// the one error path, [Base.Fail]. Page handlers are [HandlerFunc]s
// registered with [Base.Func]; ServeHTTP refuses a path or query that is
// not text before the mux sees it.
type Base struct {
	Prefix string
	Render *Renderer
	Mux    *http.ServeMux
	Logger *slog.Logger

	o       BaseOptions
	handler http.Handler
}

// NewBase makes the renderer of o.Pages and the base around it.
func NewBase(o BaseOptions) (*Base, error) {
	prefix := strings.TrimSuffix(o.Prefix, "/")
	if o.Prefix == "" {
		prefix = o.Default
	}
	if prefix != "" && !strings.HasPrefix(prefix, "/") {
		return nil, errors.New(o.Domain + ": new page handler: the prefix must start with /")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.AssetPrefix == "" {
		o.AssetPrefix = prefix + "/_assets"
	}
	if o.Failure.Status == 0 {
		o.Failure.Status = http.StatusInternalServerError
	}
	r, err := New(Options{Pages: o.Pages, Override: o.Override, AssetPrefix: o.AssetPrefix, Key: o.Key, Funcs: o.Funcs, Logger: o.Logger,
		Brand: o.Brand, Navigator: o.Navigator, FrameOrigins: o.FrameOrigins})
	if err != nil {
		return nil, fmt.Errorf("%s: new page handler: %w", o.Domain, err)
	}
	b := &Base{Prefix: prefix, Render: r, Mux: http.NewServeMux(), Logger: o.Logger, o: o}
	b.Mux.Handle("GET "+o.AssetPrefix+"/{file}", r.Assets())
	if prefix != "" {
		b.Mux.HandleFunc(prefix+"/", func(w http.ResponseWriter, r *http.Request) {
			b.Fail(w, r, &Problem{Status: http.StatusNotFound, ErrorPage: o.NotFound})
		})
	}
	b.handler = b.Mux
	if o.Protect {
		if b.handler, err = r.Protect(b.Mux, o.TrustedOrigins...); err != nil {
			return nil, fmt.Errorf("%s: new page handler: %w", o.Domain, err)
		}
	}
	return b, nil
}

// Func adapts fn to an http.HandlerFunc that answers fn's error, if any,
// with [Base.Fail].
func (b *Base) Func(fn HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			b.Fail(w, r, err)
		}
	}
}

// Unavailable is the page a browser gets while the database cannot serve
// (the answer carries a Retry-After).
var Unavailable = ErrorPage{Heading: "Not available right now",
	Message: "This page cannot be shown for a moment. Wait a few seconds, then try again."}

// Fail is the pages' one error writer. A *Problem in err's chain, or the
// one Explain finds, is answered as it says; anything else is the
// Failure page, logged. A client that asked for JSON gets {"message"}
// where the problem has a JSON message. A request whose client went away
// gets nothing but the status 499 (see api.AnswerClientGone).
func (b *Base) Fail(w http.ResponseWriter, r *http.Request, err error) {
	if api.ClientGone(r) {
		api.AnswerClientGone(w, r, b.Logger, err)
		return
	}
	var p *Problem
	if !errors.As(err, &p) && b.o.Explain != nil {
		p = b.o.Explain(err)
	}
	if p == nil {
		// A database that cannot serve at the moment: come back in a moment.
		if e := api.Unavailable(r.Context(), b.Logger, err); e != nil {
			p = &Problem{Status: e.Status, Header: e.Header, Err: e, JSON: e.Message, ErrorPage: Unavailable}
		}
	}
	if p == nil {
		if r.Context().Err() == nil {
			b.Logger.ErrorContext(r.Context(), b.o.Domain+": page", "method", r.Method, "path", r.URL.Path, "error", driverless.ExplainMissingTable(err))
		}
		p = &b.o.Failure
	}
	for k, vs := range p.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if p.JSON != "" && WantsJSON(r) {
		reply.WriteMessage(w, p.Status, p.JSON)
		return
	}
	b.Render.Error(w, r, p.Status, p.ErrorPage)
}

// CheckText is the Problem of a request whose path or query is not text
// (see api.CheckRequestText): the not-found page for the path, "Address
// not understood" for the query; nil when the request is fit to read.
func (b *Base) CheckText(r *http.Request) error {
	e := api.CheckRequestText(r)
	switch {
	case e == nil:
		return nil
	case e.Status == http.StatusNotFound:
		return &Problem{Status: http.StatusNotFound, ErrorPage: b.o.NotFound, Err: e}
	default:
		return &Problem{Status: e.Status, Err: e, ErrorPage: ErrorPage{Heading: "Address not understood",
			Message: "The address of this page holds characters it cannot take. Check the link, or go back and try again."}}
	}
}

// ServeHTTP refuses a path or query that is not text (see CheckText),
// reads a urlencoded body within MaxFormBytes, and serves the rest on the
// mux (behind Protect when asked), draining a refused body after a 413
// (see api.ServeDrained).
func (b *Base) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	api.ServeDrained(w, r, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := b.CheckText(r)
		if err == nil && b.o.MaxFormBytes > 0 && r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, b.o.MaxFormBytes)
			if isURLEncodedForm(r) {
				err = parseForm(r)
			}
		}
		if err != nil {
			b.Fail(w, r, err)
			return
		}
		b.handler.ServeHTTP(w, r)
	}))
}

// parseForm reads a urlencoded body: a Problem (400, or 413 past the
// body's limit) when it cannot.
func parseForm(r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		status := http.StatusBadRequest
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			status = http.StatusRequestEntityTooLarge
		}
		return &Problem{Status: status, Err: err, ErrorPage: ErrorPage{Heading: "Form not understood",
			Message: "The form could not be read. Go back and try again."}}
	}
	return nil
}

// Hit counts a request in t under key: nil while within the limit, else
// a 429 Problem that says how long to wait and offers back as the way on
// (the rate-limit headers are set either way); the limiter's failure as
// it is.
func Hit(w http.ResponseWriter, r *http.Request, t *throttle.Throttle, key string, back ErrorPage) error {
	allowed, err := t.Hit(w, r, key)
	switch {
	case err != nil:
		return err
	case allowed:
		return nil
	}
	back.Heading, back.Message = "Too many requests", WaitMessage(w, t.Message)
	return &Problem{Status: http.StatusTooManyRequests, ErrorPage: back}
}

// WaitMessage says when to try again after a 429, from the Retry-After
// header a throttle set on w; fallback without one.
func WaitMessage(w http.ResponseWriter, fallback string) string {
	if wait := w.Header().Get("Retry-After"); wait != "" {
		return "Too many requests. Please wait " + wait + " seconds and try again."
	}
	return fallback
}
