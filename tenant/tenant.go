// Package tenant is groundwork's one key of tenancy: a host serving many
// customers from one app keeps each one's data apart with one key, the
// tenant (an organization's key, or the host's own account id), the same
// in every domain. A request's context carries it (With): then each
// domain's owner-facing routes and methods act for that tenant alone —
// what they make is the tenant's, their lists hold only the tenant's, and
// another tenant's form, service, provider, site, subscription or token is
// not found (404), on the API, GraphQL and the pages alike. A context
// without one acts for every tenant: the host's own code and the
// background jobs. Public routes (a form's page, a booking page, the
// analytics collector) serve whoever asks, whatever tenant the visitor's
// own session is in.
//
// A host's tenancy is one line: a middleware around its mux that puts the
// key in the context, either auth's organizations (orgs.Service.Tenancy)
// or its own:
//
//	next.ServeHTTP(w, r.WithContext(tenant.With(r.Context(), accountOf(r))))
//
// A bearer token acts for the tenant its abilities name (AbilityPrefix),
// whatever the context said.
package tenant

import "context"

// AbilityPrefix binds a token to a tenant: a token whose abilities
// include "tenant:acme" acts for acme alone. Tokens made under a tenant
// carry it; nobody may grant it by hand.
const AbilityPrefix = "tenant:"

type tenantKey struct{}

// With returns ctx acting for tenant alone (see the package's
// comment). The empty key is a tenant too: the one a host without
// tenancy keeps everything in.
func With(ctx context.Context, tenant string) context.Context {
	return context.WithValue(ctx, tenantKey{}, tenant)
}

// Of is the tenant ctx acts for; ok is false when it acts for
// every tenant.
func Of(ctx context.Context) (tenant string, ok bool) {
	tenant, ok = ctx.Value(tenantKey{}).(string)
	return tenant, ok
}

// Sees reports whether ctx may see what belongs to tenant: it acts
// for every tenant, or for that one.
func Sees(ctx context.Context, tenant string) bool {
	t, ok := Of(ctx)
	return !ok || t == tenant
}

// All returns ctx acting for every tenant, whatever tenant it acted for:
// for a public route, which serves whoever asks (a customer's booking, a
// form's page), under a host's tenancy middleware that put the visitor's
// own tenant in the context.
func All(ctx context.Context) context.Context {
	return context.WithValue(ctx, tenantKey{}, nil)
}
