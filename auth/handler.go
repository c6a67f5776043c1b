package auth

import (
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
)

// PrefixDefault is where [NewHandler] serves unless told otherwise.
const PrefixDefault = "/api/v1/auth"

// HandlerOptions configures [NewHandler]. Nil means the defaults.
type HandlerOptions struct {
	// HTTPOptions: its RateLimiter counts the "api" throttle (60 a minute
	// per token); give a store.SQLRateLimiter to share it across
	// instances.
	groundwork.HTTPOptions
	// Prefix is the path the handler is mounted at; PrefixDefault when
	// empty. Mount it with mux.Handle(prefix+"/", h).
	Prefix string
	// APILimit is the "api" throttle's requests a minute per token:
	// groundwork.APILimitDefault when zero, no limit when negative (for a
	// load test, or a host that limits in front).
	APILimit int
}

// Handler serves the token endpoint:
//
//	GET {prefix}/token   describes the calling token: {"data": Token}
//
// Routes match the whole path, prefix included, so mount the handler at
// its prefix with a trailing slash, and name any other prefix in
// HandlerOptions.Prefix too (not with http.StripPrefix):
//
//	h, err := auth.NewHandler(tokens, &auth.HandlerOptions{Prefix: "/me"})
//	mux.Handle("/me/", h) // GET /me/token
//
// A mux answers the bare prefix ("/me") with a 307 redirect to "/me/".
type Handler struct {
	svc      *Service
	base     *api.Base
	throttle *throttle.Throttle
	logger   *slog.Logger
}

// NewHandler returns the handler for svc.
func NewHandler(svc *Service, opts *HandlerOptions) (*Handler, error) {
	if svc == nil {
		return nil, errors.New("auth: new handler: service is nil")
	}
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	b, err := api.NewBase(o.Prefix, PrefixDefault, o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("auth: new handler: %w", err)
	}
	b.Throttle = throttle.APIOf(b.Throttle.Limiter, o.APILimit, o.TrustedProxies, b.Logger)
	if b.Throttle != nil {
		// Retry-After is counted on the service's clock, as the limits
		// of its sign-in pages are.
		b.Throttle.Now = svc.now
	}
	h := &Handler{svc: svc, base: b, logger: b.Logger, throttle: b.Throttle}
	b.Handle("/token", api.Methods{http.MethodGet: h.describeToken})
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.base.ServeHTTP(w, r) }

// Routes lists the routes the handler serves, as "METHOD /path/{param}".
func (h *Handler) Routes() []string { return h.base.Routes() }

func (h *Handler) describeToken(w http.ResponseWriter, r *http.Request) {
	plaintext, ok := api.BearerToken(r)
	if !ok {
		api.WriteError(w, r, h.logger, errorTable, api.ErrUnauthenticated)
		return
	}
	t, err := h.svc.Authenticate(r.Context(), plaintext)
	if err == nil && t.UserID != nil {
		// A disabled user's tokens do not answer, as on every route.
		u, uerr := h.svc.User(r.Context(), *t.UserID)
		switch {
		case errors.Is(uerr, ErrNotFound) || uerr == nil && u.DisabledAt != nil:
			err = ErrInvalidToken
		case uerr != nil:
			err = uerr
		}
	}
	if err != nil {
		if errors.Is(err, ErrInvalidToken) {
			err = api.ErrUnauthenticated
		}
		api.WriteError(w, r, h.logger, errorTable, err)
		return
	}
	r = r.WithContext(groundwork.WithCaller(r.Context(), groundwork.Caller{ID: callerID(t), Abilities: t.Abilities}))
	if !h.throttle.Allow(w, r, throttle.CallerOrIP(r, nil)) {
		return
	}
	reply.WriteData(w, http.StatusOK, t)
}

//go:embed openapi.json
var openAPIDescription []byte

// OpenAPI describes the handler's routes, under its prefix, as an
// OpenAPI 3.1 part to merge into a host's document; see
// groundwork.OpenAPI.
func (h *Handler) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIDescription, h.base.Prefix, PrefixDefault, h.Routes())
}
