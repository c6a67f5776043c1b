package forms_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// A form's routing through the admin API: kept and answered as given,
// each mistake named at its place; null takes it off.
func TestRoutingThroughTheAPI(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		routing := map[string]any{"routes": []any{
			map[string]any{"when": map[string]any{"logic": "all", "rules": []any{map[string]any{"field": "company_size", "operator": "greater_than", "value": 50}}},
				"service": "enterprise-demo", "providers": []any{"sales"}},
			map[string]any{"service": "intro-call"}}, "not_booked_after_minutes": 30}
		f := b.createForm(t, map[string]any{"name": "Book a demo", "routing": routing})
		require.Equal(t, map[string]any{"routes": []any{
			map[string]any{"when": map[string]any{"action": "", "logic": "all", "rules": []any{map[string]any{"field": "company_size",
				"operator": "greater_than", "value": float64(50)}}}, "service": "enterprise-demo", "providers": []any{"sales"}},
			map[string]any{"service": "intro-call"}}, "not_booked_after_minutes": float64(30)}, f["routing"])
		// What was read may be sent back as it is.
		r := b.api(t, "PUT", "/"+f["slug"].(string), map[string]any{"name": "Book a demo", "routing": f["routing"]})
		require.Equal(t, 200, r.status)
		plain := b.createForm(t, map[string]any{"name": "Contact"})
		require.Nil(t, plain["routing"])

		r = b.api(t, "POST", "", map[string]any{"name": "Broken", "routing": map[string]any{"routes": []any{
			map[string]any{"service": " ", "when": map[string]any{"logic": "most", "rules": []any{map[string]any{"field": "", "operator": "equals"}}}}},
			"not_booked_after_minutes": -1}})
		require.Equal(t, 422, r.status)
		require.Equal(t, map[string][]string{
			"routing.not_booked_after_minutes":    {"The not booked after minutes field must be between 0 and 10080."},
			"routing.routes.0.service":            {"Each route needs the slug of the service to book."},
			"routing.routes.0.when.logic":         {"The logic must be all or any."},
			"routing.routes.0.when.rules.0.field": {"Each rule names the field it reads."}}, r.errors(t).Errors)
		r = b.api(t, "POST", "", map[string]any{"name": "Empty", "routing": map[string]any{"routes": []any{}}})
		require.Equal(t, 422, r.status)
		require.Equal(t, map[string][]string{"routing.routes": {"The routing needs 1 to 20 routes."}}, r.errors(t).Errors)
		r = b.api(t, "POST", "", map[string]any{"name": "Typo", "routing": map[string]any{"routes": []any{map[string]any{"service": "x", "servce": "y"}}}})
		require.Equal(t, 422, r.status, "an unknown key is refused")
	})
}
