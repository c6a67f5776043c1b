package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/tenant"
)

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

// Forbidden is the 403 of a bearer token that may not use ability: the
// usual message, and the ability the route needed, so whoever made the
// token sees what to grant ({"message": "This action is unauthorized.",
// "ability": "forms:create"}).
func Forbidden(ability string) *Error {
	return &Error{Status: http.StatusForbidden, Message: reply.MsgForbidden, Body: forbiddenBody{Message: reply.MsgForbidden, Ability: ability}}
}

type forbiddenBody struct {
	Message string `json:"message"`
	Ability string `json:"ability"`
}

// Guard authenticates requests by bearer token and authorizes abilities.
type Guard struct {
	Tokens groundwork.TokenVerifier
	// Authorizer decides abilities; nil means the token's own abilities
	// decide, through [Can].
	Authorizer groundwork.Authorizer
	Logger     *slog.Logger
}

// Require answers 401 without a valid token and 403 when the token may not
// use ability (an empty ability admits any valid token); otherwise it
// calls next with the [groundwork.Caller] in the request's context, which
// acts for the tenant the token is bound to, if any (tenant.AbilityPrefix).
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
		return nil, &Error{Status: http.StatusServiceUnavailable, Message: reply.MsgUnavailable, Err: err}
	}
	if caller == "" {
		return nil, ErrUnauthenticated
	}
	if ability != "" {
		allowed := groundwork.Can(abilities, ability)
		if g.Authorizer != nil {
			if allowed, err = g.Authorizer.Authorize(ctx, caller, abilities, ability); err != nil {
				return nil, &Error{Status: http.StatusServiceUnavailable, Message: reply.MsgUnavailable, Err: err}
			}
		}
		if !allowed {
			return nil, Forbidden(ability)
		}
	}
	for _, a := range abilities {
		if t, ok := strings.CutPrefix(a, tenant.AbilityPrefix); ok {
			ctx = tenant.With(ctx, t) // a token bound to a tenant acts for it alone
			break
		}
	}
	return groundwork.WithCaller(ctx, groundwork.Caller{ID: caller, Abilities: abilities}), nil
}
