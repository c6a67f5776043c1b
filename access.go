package groundwork

import (
	"context"
	"net/http"
	"strings"
)

// TokenVerifier checks bearer tokens; auth's token service satisfies it,
// and every domain that takes tokens takes this one interface, so one
// verifier serves them all.
type TokenVerifier interface {
	// VerifyToken returns a key naming the caller and the abilities the
	// token grants. An unknown, malformed, revoked or expired token gives
	// an empty caller and a nil error; err reports only a failure to check.
	VerifyToken(ctx context.Context, token string) (caller string, abilities []string, err error)
}

// Authorizer decides whether a caller may use an ability (one of
// [Abilities], such as "forms:create"). A handler without one lets the
// token's own abilities decide, through [Can].
type Authorizer interface {
	// Authorize reports whether caller, holding abilities, may perform
	// ability. err reports only a failure to decide.
	Authorize(ctx context.Context, caller string, abilities []string, ability string) (bool, error)
}

// AuthorizerFunc is a function as an [Authorizer].
type AuthorizerFunc func(ctx context.Context, caller string, abilities []string, ability string) (bool, error)

// Authorize implements [Authorizer].
func (f AuthorizerFunc) Authorize(ctx context.Context, caller string, abilities []string, ability string) (bool, error) {
	return f(ctx, caller, abilities, ability)
}

// Caller is who made a request, once a bearer token has been verified: a
// handler puts it in the request's context before its route runs.
type Caller struct {
	// ID is the verifier's key for the caller ("token:12", say).
	ID string
	// Abilities are what the token grants.
	Abilities []string
}

// Can reports whether the caller's abilities cover ability (see [Can]).
func (c Caller) Can(ability string) bool { return Can(c.Abilities, ability) }

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller ctx carries: inside a route behind a
// bearer token, the token's holder.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// Can reports whether the granted abilities cover ability. A granted "*"
// covers everything; one ending in ":*" or ".*" covers every ability that
// extends its prefix ("forms:*" covers "forms:create",
// "webhookSubscription.*" covers "webhookSubscription.delete"); anything
// else covers only itself. An empty ability is never covered.
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

// Access is what a [RequestAuthorizer] says of a request.
type Access int

// The answers of a RequestAuthorizer.
const (
	// Allowed: the request may go on.
	Allowed Access = iota
	// Unauthenticated: nobody is signed in and no token was given (a
	// route answers 401, or 403 where its contract says so).
	Unauthenticated
	// Forbidden: the caller may not use the ability here (403).
	Forbidden
)

// RequestAuthorizer decides from the whole request whether it may use an
// ability, for the routes a signed-in user may reach as well as a bearer
// token (the reports, the email-list feeds): only the host knows how a
// session's capabilities and a token's abilities map onto each other.
// resource is what the route names, resolved before the question, or nil
// for a list or a create; a domain never passes a typed nil (a nil
// *emaillist.Feed in an interface, which compares unequal to nil), so
// "resource == nil" is the test for "no resource". Each handler's
// constructor says which type it passes: emaillist a *emaillist.Feed,
// reporting none.
type RequestAuthorizer interface {
	AuthorizeRequest(r *http.Request, ability string, resource any) Access
}

// RequestAuthorizerFunc is a function as a [RequestAuthorizer].
type RequestAuthorizerFunc func(r *http.Request, ability string, resource any) Access

// AuthorizeRequest implements [RequestAuthorizer].
func (f RequestAuthorizerFunc) AuthorizeRequest(r *http.Request, ability string, resource any) Access {
	return f(r, ability, resource)
}
