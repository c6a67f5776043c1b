package webhooks

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/google/uuid"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
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
	svc    *Service
	opts   InboundHandlerOptions
	base   *api.Base
	logger *slog.Logger
	// perIP and perProvider are the two allowances; nil when off.
	perIP, perProvider *api.Throttle
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
	throttle := func(name string, limit, def int) *api.Throttle {
		if limit < 0 {
			return nil
		}
		return &api.Throttle{Name: name, Limiter: b.Throttle.Limiter, Limit: cmp.Or(limit, def), Window: time.Minute, Logger: b.Logger}
	}
	h := &InboundHandler{svc: svc, opts: o, base: b, logger: b.Logger,
		perIP: throttle("webhooks-inbound-ip", o.PerIP, PerIPDefault), perProvider: throttle("webhooks-inbound-provider", o.PerProvider, PerProviderDefault)}
	b.Handle("/{provider}", api.Methods{http.MethodPost: h.receive})
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *InboundHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.base.ServeHTTP(w, r) }

// Routes lists the routes the handler serves, as "METHOD /path/{param}".
func (h *InboundHandler) Routes() []string { return h.base.Routes() }

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

// allow counts a hit on key against t (nil: no limit); over the limit
// it answers 429. err is the limiter's failure, for a 503.
func allow(w http.ResponseWriter, r *http.Request, t *api.Throttle, key string) (bool, error) {
	if t == nil {
		return true, nil
	}
	ok, err := t.Hit(w, r, key)
	if err == nil && !ok {
		api.WriteJSON(w, http.StatusTooManyRequests, coded{Code: "rate_limited", Message: "Too many webhooks; try again later."})
	}
	return ok, err
}

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

func (h *InboundHandler) receive(w http.ResponseWriter, r *http.Request) {
	provider := r.PathValue("provider")
	ip := api.ClientIPString(r, h.opts.TrustedProxies)
	if ok, err := allow(w, r, h.perIP, ip); err != nil {
		unavailable(w)
		return
	} else if !ok {
		return
	}
	if _, ok := h.svc.Gateway(provider); !ok {
		api.WriteJSON(w, http.StatusNotFound, coded{Code: "gateway_not_registered",
			Message: fmt.Sprintf("Payment gateway %q is not registered.", provider)})
		return
	}
	tooLarge := coded{Code: "payload_too_large", Message: fmt.Sprintf("The webhook must not be larger than %d bytes.", h.opts.MaxBytes)}
	if r.ContentLength > h.opts.MaxBytes {
		api.WriteJSON(w, http.StatusRequestEntityTooLarge, tooLarge)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBytes))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		api.WriteJSON(w, http.StatusRequestEntityTooLarge, tooLarge)
		return
	}
	if err != nil {
		api.WriteJSON(w, http.StatusBadRequest, coded{Code: "unreadable_body", Message: "The webhook body could not be read."})
		return
	}
	correlation := r.Header.Get("X-Request-Id")
	if !requestIDPattern.MatchString(correlation) {
		if id, ok := RequestIDFrom(r.Context()); ok {
			correlation = id
		} else {
			correlation = uuid.NewString()
		}
	}
	var limiterErr error
	allowProvider := func() (bool, error) {
		ok, err := allow(w, r, h.perProvider, provider)
		limiterErr = err
		return ok, err
	}
	res, err := h.svc.ReceiveWebhook(r.Context(), provider, r.Header, body, correlation, allowProvider)
	switch {
	case limiterErr != nil:
		unavailable(w)
	case err != nil:
		h.logger.ErrorContext(r.Context(), "webhooks: inbound", "provider", provider, "error", err)
		api.WriteJSON(w, http.StatusInternalServerError, coded{Code: "webhook_failed",
			Message: "The webhook could not be handled; send it again."})
	case res.Status == http.StatusBadRequest:
		api.WriteJSON(w, http.StatusBadRequest, coded{Code: res.Refusal.Code, Message: res.Refusal.Message})
	case res.Status == http.StatusTooManyRequests:
		// hit wrote the answer.
	default:
		api.WriteJSON(w, http.StatusOK, receivedBody{Received: true, EventID: res.Event.ID, Type: res.Event.Type, Duplicate: res.Duplicate})
	}
}

// unavailable answers a request whose allowance could not be checked
// (the throttle logged why).
func unavailable(w http.ResponseWriter) {
	api.WriteJSON(w, http.StatusServiceUnavailable, coded{Code: "unavailable", Message: api.MsgUnavailable})
}
