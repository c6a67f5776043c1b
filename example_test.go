package groundwork_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// A service answers bad input with a *ValidationError; a caller finds it
// with errors.As and reads the messages field by field.
func ExampleValidationError() {
	v := &groundwork.ValidationError{}
	v.Add("email", "The email field must be a valid email address.")
	v.Add("name", "The name field is required.")
	var err error = fmt.Errorf("create: %w", v.Err())

	var ve *groundwork.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(ve.FieldNames())
		fmt.Println(ve.Message())
		body, _ := json.Marshal(ve)
		fmt.Println(string(body))
	}
	// Output:
	// [email name]
	// The email field must be a valid email address. (and 1 more error)
	// {"message":"The email field must be a valid email address. (and 1 more error)","errors":{"email":["The email field must be a valid email address."],"name":["The name field is required."]}}
}

func ExamplePageRequest() {
	p := groundwork.PageRequest{Page: 3, PerPage: groundwork.PerPageDefault}
	fmt.Println(p.Offset())
	// Output: 30
}

// A host mounts three domains on its own mux and database, with one
// TokenVerifier (auth's token service) and no options: each handler
// answers under its default prefix, and one token opens all three.
func Example_threeDomainsOneVerifier() {
	ctx := context.Background()
	db, done := storetest.Temp(authsql.Migrations, webhookssql.Migrations, bookingssql.Migrations) // your *store.DB, migrated
	defer done()
	tokens, _ := auth.NewService(authsql.New(db), nil)
	hooks, _ := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: webhooks.GenerateSecretKey()})
	desk, _ := bookings.NewService(bookingssql.New(db), nil)

	whoami, _ := auth.NewHandler(tokens, nil)
	subscriptions, _ := webhooks.NewHandler(hooks, tokens, nil)
	admin, _ := bookings.NewAdminHandler(desk, tokens, nil)
	mux := http.NewServeMux()
	mux.Handle(auth.PrefixDefault+"/", whoami)
	mux.Handle(webhooks.PrefixDefault+"/", subscriptions)
	mux.Handle(bookings.AdminPrefixDefault+"/", admin)

	token, _, _ := tokens.CreateToken(ctx, auth.NewToken{Name: "ops", Abilities: []string{"webhookSubscription.*", "bookings:*"}})
	for _, path := range []string{"/api/v1/auth/token", "/api/ecommerce/v1/admin/webhook-subscriptions", "/api/bookings/admin/bookings"} {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		fmt.Println(w.Code, path)
	}
	// Output:
	// 200 /api/v1/auth/token
	// 200 /api/ecommerce/v1/admin/webhook-subscriptions
	// 200 /api/bookings/admin/bookings
}

// A host that mounts the colour checks under its own prefix serves a
// document of exactly those routes.
func ExampleOpenAPI_Merge() {
	colours, err := a11y.NewHandler(nil, &a11y.HandlerOptions{Prefix: "/colours"})
	if err != nil {
		panic(err)
	}
	part, err := colours.OpenAPI()
	if err != nil {
		panic(err)
	}
	doc := groundwork.NewOpenAPI("Shop API", "1.0.0")
	if err := doc.Merge(part); err != nil {
		panic(err)
	}
	for _, path := range slices.Sorted(maps.Keys(doc.Paths)) {
		fmt.Println(path)
	}
	// http.Handle("GET /openapi.json", doc) serves it.
	// Output:
	// /colours/audit-palette
	// /colours/contrast-check
	// /colours/generate-text-color
}
