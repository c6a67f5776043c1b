package webhooks

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"time"

	"github.com/google/uuid"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
)

// Inbound endpoint defaults: a body of at most 512 KiB, and the
// throttles per client IP and per provider.
const (
	// InboundPrefixDefault is where providers post: outside the API
	// prefix.
	InboundPrefixDefault = "/ecommerce/webhooks"
	// PerIPDefault requests a minute from one address, counting every
	// request.
	PerIPDefault = 120
	// PerProviderDefault verified events a minute per provider.
	PerProviderDefault = 1000
)

// InboundHandlerOptions configures NewInboundHandler.
type InboundHandlerOptions struct {
	// HTTPOptions: its RateLimiter counts the two allowances; give a
	// store.SQLRateLimiter so they hold across instances on a database.
	groundwork.HTTPOptions
	// Prefix is where the endpoint is mounted; InboundPrefixDefault when
	// empty.
	Prefix string
	// PerIP and PerProvider a minute: the defaults above when zero,
	// off when negative.
	PerIP       int
	PerProvider int
	// MaxBytes caps a webhook's body; InboundMaxBytesDefault when zero.
	MaxBytes int64
}

// InboundHandler serves POST {prefix}/{provider}, the endpoint payment
// providers post their webhooks to (B3): answers, in order, 429 when the
// sender's address is over its allowance (every request counts), 404 for
// a provider without a gateway, 413 for a body over the limit (by header
// or by count), 400 when the signature does not verify, 429 when the
// provider's allowance of verified events is used up, and 200
// {received, event_id, type}, with duplicate: true for an event handled
// before. Routes match the whole path, prefix included, so mount the
// handler at its prefix with a trailing slash, and name any other prefix
// in InboundHandlerOptions.Prefix too (not with http.StripPrefix):
//
//	mux.Handle("/ecommerce/webhooks/", h)
//
//	h, err := webhooks.NewInboundHandler(svc, &webhooks.InboundHandlerOptions{Prefix: "/pay/hooks"})
//	mux.Handle("/pay/hooks/", h) // POST /pay/hooks/stripe
//
// A mux answers the bare prefix with a 307 redirect to it with a slash.
type InboundHandler struct {
	svc  *Service
	opts InboundHandlerOptions
	base *api.Base
	// perIP and perProvider are the two allowances; nil when off.
	perIP, perProvider *throttle.Throttle
}

// NewInboundHandler returns the inbound endpoint for svc.
func NewInboundHandler(svc *Service, opts *InboundHandlerOptions) (*InboundHandler, error) {
	if svc == nil {
		return nil, errors.New("webhooks: new inbound handler: service is nil")
	}
	var o InboundHandlerOptions
	if opts != nil {
		o = *opts
	}
	b, err := api.NewBase(o.Prefix, InboundPrefixDefault, o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("webhooks: new inbound handler: %w", err)
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = InboundMaxBytesDefault
	}
	throttle := func(name string, limit, def int) *throttle.Throttle {
		if limit < 0 {
			return nil
		}
		return &throttle.Throttle{Name: name, Limiter: b.Throttle.Limiter, Limit: cmp.Or(limit, def), Window: time.Minute, Logger: b.Logger}
	}
	h := &InboundHandler{svc: svc, opts: o, base: b,
		perIP: throttle("webhooks-inbound-ip", o.PerIP, PerIPDefault), perProvider: throttle("webhooks-inbound-provider", o.PerProvider, PerProviderDefault)}
	b.Handle("/{provider}", api.Methods{http.MethodPost: b.Func(h.receive)})
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *InboundHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.base.ServeHTTP(w, r) }

// Routes lists the routes the handler serves, as "METHOD /path/{param}".
func (h *InboundHandler) Routes() []string { return h.base.Routes() }

// OpenAPI describes the inbound route, under the handler's prefix, as an
// OpenAPI 3.1 part to merge into a host's document; see
// groundwork.OpenAPI.
func (h *InboundHandler) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIDescription, h.base.Prefix, InboundPrefixDefault, h.Routes())
}

// coded is an inbound answer's body.
type coded struct {
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

// received is the 200 body.
type receivedBody struct {
	Received  bool   `json:"received"`
	EventID   string `json:"event_id"`
	Type      string `json:"type"`
	Duplicate bool   `json:"duplicate,omitempty"`
}

// inboundError is an inbound answer in its {"code", "message"} envelope;
// cause is for the log.
func inboundError(status int, code, msg string, cause error) *api.Error {
	return &api.Error{Status: status, Message: msg, Body: coded{Code: code, Message: msg}, Err: cause}
}

// errTooManyWebhooks answers a client over an allowance.
var errTooManyWebhooks = inboundError(http.StatusTooManyRequests, "rate_limited", "Too many webhooks; try again later.", nil)

// allow counts a hit on key against t (nil: no limit): nil when allowed,
// errTooManyWebhooks over the limit (the rate-limit headers set), a 503
// when the limiter fails.
func allow(w http.ResponseWriter, r *http.Request, t *throttle.Throttle, key string) error {
	if t == nil {
		return nil
	}
	ok, err := t.Hit(w, r, key)
	switch {
	case err != nil:
		return inboundError(http.StatusServiceUnavailable, "unavailable", reply.MsgUnavailable, err)
	case !ok:
		return errTooManyWebhooks
	}
	return nil
}

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

func (h *InboundHandler) receive(w http.ResponseWriter, r *http.Request) error {
	provider := r.PathValue("provider")
	if err := allow(w, r, h.perIP, proxies.ClientIPString(r, h.opts.TrustedProxies)); err != nil {
		return err
	}
	if _, ok := h.svc.Gateway(provider); !ok {
		return inboundError(http.StatusNotFound, "gateway_not_registered", fmt.Sprintf("Payment gateway %q is not registered.", provider), nil)
	}
	tooLarge := inboundError(http.StatusRequestEntityTooLarge, "payload_too_large",
		fmt.Sprintf("The webhook must not be larger than %d bytes.", h.opts.MaxBytes), nil)
	if r.ContentLength > h.opts.MaxBytes {
		return tooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBytes))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge
	}
	if err != nil {
		return inboundError(http.StatusBadRequest, "unreadable_body", "The webhook body could not be read.", err)
	}
	correlation := r.Header.Get("X-Request-Id")
	if !requestIDPattern.MatchString(correlation) {
		if id, ok := RequestIDFrom(r.Context()); ok {
			correlation = id
		} else {
			correlation = uuid.NewString()
		}
	}
	// The provider's allowance is counted once the webhook is verified;
	// its refusal (429, or 503 when the limiter fails) is the answer.
	var refused error
	allowProvider := func() (bool, error) {
		refused = allow(w, r, h.perProvider, provider)
		if refused == errTooManyWebhooks {
			return false, nil
		}
		return refused == nil, refused
	}
	res, err := h.svc.ReceiveWebhook(r.Context(), provider, r.Header, body, correlation, allowProvider)
	switch {
	case refused != nil:
		return refused
	case err != nil:
		err = fmt.Errorf("webhooks: inbound %s: %w", provider, err)
		if e := api.Unavailable(r.Context(), h.base.Logger, err); e != nil {
			e.Body = coded{Code: "unavailable", Message: "The webhook could not be stored for now; send it again."}
			return e
		}
		return inboundError(http.StatusInternalServerError, "webhook_failed", "The webhook could not be handled; send it again.", err)
	case res.Status == http.StatusBadRequest:
		return inboundError(http.StatusBadRequest, res.Refusal.Code, res.Refusal.Message, nil)
	}
	reply.WriteJSON(w, http.StatusOK, receivedBody{Received: true, EventID: res.Event.ID, Type: res.Event.Type, Duplicate: res.Duplicate})
	return nil
}
