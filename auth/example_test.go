package auth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authtest"
)

// Issue a token, then guard a host handler with it.
func ExampleService_Middleware() {
	ctx := context.Background()
	svc, err := auth.NewService(authtest.NewFake(), nil) // authsql.New(db) in production
	if err != nil {
		panic(err)
	}
	plaintext, _, err := svc.CreateToken(ctx, auth.NewToken{Name: "reports", Abilities: []string{"reports:*"}})
	if err != nil {
		panic(err)
	}

	report := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller, _, _ := auth.CallerFromContext(r.Context())
		fmt.Fprintln(w, "report for", caller)
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
	fmt.Println(auth.Can(granted, "forms:create"))
	fmt.Println(auth.Can(granted, "webhookSubscription.delete"))
	fmt.Println(auth.Can(granted, "bookings:create"))
	// Output:
	// true
	// true
	// false
}
