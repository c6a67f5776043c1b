package webhooks

import (
	"context"
	"errors"
	"strings"
	"unicode"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/tenant"
)

// Owners: a subscription, its deliveries and the events it receives
// belong to an owner, an opaque string the host chooses (an account id),
// so a SaaS's customers each keep their own endpoints. The default owner
// is "": a host that uses no owners has every subscription there and sees
// no owner on the wire.
const (
	// DefaultOwner owns what names no owner.
	DefaultOwner = ""
	// AllOwners, as the owner of an event (DispatchFor), sends it to the
	// subscriptions of every owner: a system event. It is no owner's name.
	AllOwners = "*"
	// MaxOwnerLength caps an owner's name.
	MaxOwnerLength = 200
	// OwnerAbilityPrefix binds a token to an owner: a token whose
	// abilities include "webhookOwner:acct_1" sees and changes only
	// acct_1's subscriptions and deliveries, whatever else it may do.
	OwnerAbilityPrefix = "webhookOwner:"
)

// ErrOwner is an owner's name that cannot be one: too long, "*", or with
// control characters.
var ErrOwner = errors.New("webhooks: not an owner's name")

// checkOwner reports whether owner can name an owner.
func checkOwner(owner string) error {
	if len(owner) > MaxOwnerLength || owner == AllOwners || strings.ContainsFunc(owner, unicode.IsControl) {
		return ErrOwner
	}
	return nil
}

type ownerScopeKey struct{}

// ScopeToOwner returns ctx under which the Service acts for owner alone:
// its lists hold only owner's subscriptions, another owner's subscription
// or delivery is ErrNotFound, and a subscription made is owner's. The
// API handlers scope each request of a token bound to an owner (see
// OwnerAbilityPrefix), and the portal each of its pages; a host's own Go
// code is unscoped (every owner) unless it scopes itself.
func ScopeToOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerScopeKey{}, owner)
}

// OwnerScope is the owner ctx is scoped to, if any: the one ScopeToOwner
// named, else the tenant ctx acts for (package tenant: a tenant is an
// owner).
func OwnerScope(ctx context.Context) (string, bool) {
	if o, ok := ctx.Value(ownerScopeKey{}).(string); ok {
		return o, true
	}
	return tenant.Of(ctx)
}

// OwnerOf is the owner a caller's token is bound to (its first
// OwnerAbilityPrefix ability), if any.
func OwnerOf(c groundwork.Caller) (string, bool) {
	for _, a := range c.Abilities {
		if o, ok := strings.CutPrefix(a, OwnerAbilityPrefix); ok {
			return o, true
		}
	}
	return "", false
}

// scopedFor is ctx scoped to the owner its caller is bound to, if any.
func scopedFor(ctx context.Context) context.Context {
	if c, ok := groundwork.CallerFrom(ctx); ok {
		if o, ok := OwnerOf(c); ok {
			return ScopeToOwner(ctx, o)
		}
	}
	return ctx
}

// sees reports whether ctx's scope (if any) covers owner.
func sees(ctx context.Context, owner string) bool {
	o, ok := OwnerScope(ctx)
	return !ok || o == owner
}

type eventOwnerKey struct{}

// ForOwner returns ctx under which Dispatch and DispatchTx send events to
// owner's subscriptions (AllOwners: every owner's): for events dispatched
// by code the host does not call itself (a domain's hook linked to
// webhooks), under a request the host knows the owner of. Without it,
// Dispatch sends to the subscriptions of the tenant ctx acts for (package
// tenant), or else the default owner's.
func ForOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, eventOwnerKey{}, owner)
}

// eventOwner is the owner ctx names for its events: ForOwner's, else the
// tenant ctx acts for, else the default owner.
func eventOwner(ctx context.Context) string {
	if o, ok := ctx.Value(eventOwnerKey{}).(string); ok {
		return o
	}
	if t, ok := tenant.Of(ctx); ok {
		return t
	}
	return DefaultOwner
}
