package auth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Issue a token, then guard a host handler with it.
func ExampleService_Middleware() {
	ctx := context.Background()
	db, done := storetest.Temp(authsql.Migrations) // your *store.DB, migrated
	defer done()
	// reports:view is the host's own route's ability, so tokens may carry it.
	svc, err := auth.NewService(authsql.New(db), &auth.Options{Abilities: []string{"reports:view"}})
	if err != nil {
		panic(err)
	}
	plaintext, _, err := svc.CreateToken(ctx, auth.NewToken{Name: "reports", Abilities: []string{"reports:*"}})
	if err != nil {
		panic(err)
	}

	report := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller, _ := groundwork.CallerFrom(r.Context())
		fmt.Fprintln(w, "report for", caller.ID)
	})
	h := svc.Middleware("reports:view")(report)

	for _, token := range []string{plaintext, ""} {
		r := httptest.NewRequest("GET", "/report", nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Println(w.Code, strings.TrimSpace(w.Body.String()))
	}
	// Output:
	// 200 report for token:1
	// 401 {"message":"Unauthenticated."}
}

func ExampleCan() {
	granted := []string{"forms:*", "webhookSubscription.*"}
	fmt.Println(groundwork.Can(granted, "forms:create"))
	fmt.Println(groundwork.Can(granted, "webhookSubscription.delete"))
	fmt.Println(groundwork.Can(granted, "bookings:create"))
	// Output:
	// true
	// true
	// false
}

// Mount the sign-in pages on a host's mux and keep a page of the host's
// own for signed-in users.
func ExampleWeb_RequireUser() {
	db, done := storetest.Temp(authsql.Migrations) // your *store.DB, migrated
	defer done()
	svc, err := auth.NewService(authsql.New(db), nil) // and a Mailer, in production
	if err != nil {
		panic(err)
	}
	signIn, err := auth.NewWeb(svc, nil)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	signIn.Mount(mux) // /login, /register, /forgot-password, ...
	mux.Handle("GET /dashboard", signIn.RequireUser(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := auth.UserFrom(r.Context())
		fmt.Fprintln(w, "Hello,", u.Name)
	})))

	// A guest is sent to sign in; a script asking for JSON gets 401.
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", "/dashboard", nil))
	fmt.Println(w.Code, w.Header().Get("Location"))
	r := httptest.NewRequest("GET", "/dashboard", nil)
	r.Header.Set("Accept", "application/json")
	w = httptest.NewRecorder()
	mux.ServeHTTP(w, r)
	fmt.Println(w.Code, strings.TrimSpace(w.Body.String()))

	// The login page is the host's now.
	w = httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", "/login", nil))
	fmt.Println(w.Code, strings.Contains(w.Body.String(), "<h1>Sign in to your account</h1>"))
	// Output:
	// 302 /login
	// 401 {"message":"Unauthenticated."}
	// 200 true
}

// Make a user, then check a sign-in as the login page does.
func ExampleService_CheckCredentials() {
	ctx := context.Background()
	db, done := storetest.Temp(authsql.Migrations)
	defer done()
	svc, err := auth.NewService(authsql.New(db), nil)
	if err != nil {
		panic(err)
	}
	_, err = svc.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "Ada@Example.com", Password: "correct horse battery",
		Capabilities: []string{"view_search_reporting"}})
	if err != nil {
		panic(err)
	}
	u, err := svc.CheckCredentials(ctx, "ada@example.com", "correct horse battery", "192.0.2.7")
	fmt.Println(u.Email, u.Can("view_search_reporting"), err)
	_, err = svc.CheckCredentials(ctx, "ada@example.com", "wrong", "192.0.2.7")
	fmt.Println(err)
	// Output:
	// ada@example.com true <nil>
	// These credentials do not match our records.
}
