package main

import (
	"slices"
	"strings"
)

// routes are every route the reference server mounts, as "METHOD
// /path/{param}": help and the index list them, and a test checks them
// against the handlers' own Routes (and the inbound route, mounted
// whatever the configuration; a provider without a gateway answers 404).
var routes = []string{
	"GET /healthz",
	"GET /{$}",
	"GET /api/v1/auth/token",
	"GET /login",
	"POST /login",
	"GET /register",
	"POST /register",
	"GET /forgot-password",
	"POST /forgot-password",
	"GET /reset-password",
	"GET /reset-password/{token}",
	"POST /reset-password",
	"GET /verify-email",
	"GET /verify-email/{id}/{hash}",
	"POST /email/verification-notification",
	"GET /confirm-password",
	"POST /confirm-password",
	"POST /logout",
	"GET /settings/tokens",
	"POST /settings/tokens",
	"POST /settings/tokens/{id}/revoke",
	"GET /auth/_assets/{file}",
	"GET /dashboard",
	"POST /api/a11y/contrast-check",
	"POST /api/a11y/generate-text-color",
	"POST /api/a11y/audit-palette",
	"POST /api/v1/a11y/contrast-check",
	"POST /api/v1/a11y/generate-text-color",
	"POST /api/v1/a11y/audit-palette",
	"POST /api/v1/a11y/ai/content-analysis",
	"POST /api/v1/a11y/ai/aria-suggestion",
	"POST /api/v1/a11y/ai/contrast-explanation",
	"GET /api/v1/forms",
	"POST /api/v1/forms",
	"GET /api/v1/forms/{$}",
	"POST /api/v1/forms/{$}",
	"DELETE /api/v1/forms/{form}",
	"GET /api/v1/forms/{form}",
	"PATCH /api/v1/forms/{form}",
	"PUT /api/v1/forms/{form}",
	"GET /api/v1/forms/{form}/fields",
	"POST /api/v1/forms/{form}/fields",
	"POST /api/v1/forms/{form}/fields/reorder",
	"DELETE /api/v1/forms/{form}/fields/{field}",
	"PATCH /api/v1/forms/{form}/fields/{field}",
	"PUT /api/v1/forms/{form}/fields/{field}",
	"GET /api/v1/forms/{form}/steps",
	"POST /api/v1/forms/{form}/steps",
	"POST /api/v1/forms/{form}/steps/reorder",
	"DELETE /api/v1/forms/{form}/steps/{step}",
	"PATCH /api/v1/forms/{form}/steps/{step}",
	"PUT /api/v1/forms/{form}/steps/{step}",
	"GET /api/v1/forms/{form}/submissions",
	"GET /api/v1/forms/{form}/submissions/export",
	"POST /api/v1/forms/{form}/submissions/bulk",
	"DELETE /api/v1/forms/{form}/submissions/{submission}",
	"GET /api/v1/forms/{form}/submissions/{submission}",
	"PATCH /api/v1/forms/{form}/submissions/{submission}",
	"PUT /api/v1/forms/{form}/submissions/{submission}",
	"GET /api/v1/forms/submissions/{submission}/uploads/{upload}/download",
	"GET /api/v1/forms/{form}/notifications",
	"POST /api/v1/forms/{form}/notifications",
	"DELETE /api/v1/forms/{form}/notifications/{notification}",
	"PATCH /api/v1/forms/{form}/notifications/{notification}",
	"PUT /api/v1/forms/{form}/notifications/{notification}",
	"GET /api/v1/forms/{form}/render",
	"POST /api/v1/forms/{form}/submit",
	"GET /forms/{form}",
	"HEAD /forms/{form}",
	"POST /forms/{form}",
	"GET /forms/_assets/{file}",
	"GET /api/ecommerce/v1/admin/webhook-subscriptions",
	"POST /api/ecommerce/v1/admin/webhook-subscriptions",
	"DELETE /api/ecommerce/v1/admin/webhook-subscriptions/{subscription}",
	"GET /api/ecommerce/v1/admin/webhook-subscriptions/{subscription}",
	"PATCH /api/ecommerce/v1/admin/webhook-subscriptions/{subscription}",
	"PUT /api/ecommerce/v1/admin/webhook-subscriptions/{subscription}",
	"GET /api/ecommerce/v1/admin/webhook-subscriptions/{subscription}/deliveries",
	"GET /api/ecommerce/v1/admin/webhook-subscriptions/{subscription}/deliveries/{delivery}",
	"POST /api/ecommerce/v1/admin/webhook-subscriptions/{subscription}/replay/{delivery}",
	"POST /api/ecommerce/v1/admin/webhook-subscriptions/{subscription}/replay-parked",
	"POST /api/ecommerce/v1/graphql",
	"POST /ecommerce/webhooks/{provider}",
	"GET /api/bookings/services",
	"GET /api/bookings/services/{slug}/providers",
	"GET /api/bookings/services/{slug}/slots",
	"POST /api/bookings/services/{slug}/holds",
	"GET /api/bookings/manage/{token}",
	"POST /api/bookings/manage/{token}/cancel",
	"POST /api/bookings/manage/{token}/reschedule",
	"POST /api/bookings",
	"POST /api/bookings/{$}",
	"GET /api/bookings/admin/bookings",
	"GET /api/bookings/admin/bookings/{id}",
	"POST /api/bookings/admin/bookings/{id}/confirm",
	"POST /api/bookings/admin/bookings/{id}/cancel",
	"POST /api/bookings/admin/bookings/{id}/complete",
	"POST /api/bookings/admin/bookings/{id}/no-show",
	"POST /api/bookings/admin/bookings/{id}/reschedule",
	"POST /api/bookings/admin/bookings/{id}/reassign",
	"POST /api/bookings/admin/bookings/{id}/manage-token",
	"GET /api/bookings/admin/services",
	"POST /api/bookings/admin/services",
	"GET /api/bookings/admin/services/{slug}",
	"PATCH /api/bookings/admin/services/{slug}",
	"PUT /api/bookings/admin/services/{slug}",
	"DELETE /api/bookings/admin/services/{slug}/providers/{provider}",
	"PUT /api/bookings/admin/services/{slug}/providers/{provider}",
	"GET /api/bookings/admin/providers",
	"POST /api/bookings/admin/providers",
	"GET /api/bookings/admin/providers/{provider}",
	"PATCH /api/bookings/admin/providers/{provider}",
	"PUT /api/bookings/admin/providers/{provider}",
	"GET /api/bookings/admin/providers/{provider}/hours",
	"POST /api/bookings/admin/providers/{provider}/hours",
	"DELETE /api/bookings/admin/providers/{provider}/hours/{id}",
	"GET /api/bookings/admin/providers/{provider}/overrides",
	"POST /api/bookings/admin/providers/{provider}/overrides",
	"POST /api/bookings/admin/providers/{provider}/feed-token",
	"DELETE /api/bookings/admin/providers/{provider}/feed-token",
	"DELETE /api/bookings/admin/providers/{provider}/overrides/{id}",
	"GET /api/bookings/admin/blackouts",
	"POST /api/bookings/admin/blackouts",
	"DELETE /api/bookings/admin/blackouts/{id}",
	"GET /bookings/{slug}",
	"POST /bookings/{slug}",
	"GET /bookings/manage/{token}",
	"POST /bookings/manage/{token}/cancel",
	"POST /bookings/manage/{token}/reschedule",
	"GET /bookings/_assets/{file}",
	"GET /bookings/ical/providers/{file}",
	"GET /bookings/ical/customers/{file}",
	"GET /admin/emailmarketing/feeds",
	"POST /admin/emailmarketing/feeds",
	"DELETE /admin/emailmarketing/feeds/{id}",
	"GET /admin/emailmarketing/feeds/{id}",
	"PATCH /admin/emailmarketing/feeds/{id}",
	"PUT /admin/emailmarketing/feeds/{id}",
	"POST /admin/emailmarketing/feeds/{id}/test",
	"POST /emailmarketing/subscribers",
}

// endpoints groups routes by path, in the order they first appear:
// "GET|POST /api/v1/forms". A path ending in {$} is shown with its slash.
func endpoints() []string {
	var paths []string
	methods := map[string][]string{}
	for _, r := range routes {
		method, path, _ := strings.Cut(r, " ")
		path = strings.TrimSuffix(path, "{$}")
		if _, seen := methods[path]; !seen {
			paths = append(paths, path)
		}
		if !slices.Contains(methods[path], method) {
			methods[path] = append(methods[path], method)
		}
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = strings.Join(methods[p], "|") + " " + p
	}
	return out
}
