package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
)

// TokenVerifier checks bearer tokens. Every domain declares this same
// interface under its own name, and auth's token service satisfies them
// all.
type TokenVerifier interface {
	// VerifyToken returns a key naming the caller and the abilities the
	// token grants. An unknown, malformed, revoked or expired token gives
	// an empty caller and a nil error; err reports only a failure to check.
	VerifyToken(ctx context.Context, token string) (caller string, abilities []string, err error)
}

// Authorizer decides whether a caller may use an ability.
type Authorizer interface {
	// Authorize reports whether caller, holding abilities, may perform
	// ability (e.g. "forms:create"). err reports only a failure to decide.
	Authorize(ctx context.Context, caller string, abilities []string, ability string) (bool, error)
}

// Can reports whether the granted abilities cover ability. A granted "*"
// covers everything; one ending in ":*" or ".*" covers every ability that
// extends its prefix ("forms:*" covers "forms:create",
// "webhookSubscription.*" covers "webhookSubscription.delete"); anything
// else covers only itself.
func Can(granted []string, ability string) bool {
	if ability == "" {
		return false
	}
	for _, g := range granted {
		if g == "*" || g == ability {
			return true
		}
		if strings.HasSuffix(g, ":*") || strings.HasSuffix(g, ".*") {
			prefix := g[:len(g)-1]
			if len(ability) > len(prefix) && strings.HasPrefix(ability, prefix) {
				return true
			}
		}
	}
	return false
}

// Caller is who made a request, once a token has been verified.
type Caller struct {
	ID        string
	Abilities []string
}

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller ctx carries.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// BearerToken returns the token of an "Authorization: Bearer <token>"
// header; the scheme is case-insensitive.
func BearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// Guard authenticates requests by bearer token and authorizes abilities.
type Guard struct {
	Tokens TokenVerifier
	// Authorizer decides abilities; nil means the token's own abilities
	// decide, through [Can].
	Authorizer Authorizer
	Logger     *slog.Logger
}

// Require answers 401 without a valid token and 403 when the token may not
// use ability (an empty ability admits any valid token); otherwise it
// calls next with the [Caller] in the request's context.
func (g *Guard) Require(ability string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, err := g.Check(r, ability)
		if err != nil {
			WriteError(w, r, g.Logger, nil, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// Check is Require without the handler: it returns the request's context
// with the caller, or an *Error to answer.
func (g *Guard) Check(r *http.Request, ability string) (context.Context, error) {
	ctx := r.Context()
	token, ok := BearerToken(r)
	if !ok {
		return nil, ErrUnauthenticated
	}
	caller, abilities, err := g.Tokens.VerifyToken(ctx, token)
	if err != nil {
		return nil, &Error{Status: http.StatusServiceUnavailable, Message: MsgUnavailable, Err: err}
	}
	if caller == "" {
		return nil, ErrUnauthenticated
	}
	if ability != "" {
		allowed := Can(abilities, ability)
		if g.Authorizer != nil {
			if allowed, err = g.Authorizer.Authorize(ctx, caller, abilities, ability); err != nil {
				return nil, &Error{Status: http.StatusServiceUnavailable, Message: MsgUnavailable, Err: err}
			}
		}
		if !allowed {
			return nil, ErrForbidden
		}
	}
	return WithCaller(ctx, Caller{ID: caller, Abilities: abilities}), nil
}
