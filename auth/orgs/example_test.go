package orgs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/orgs"
	"github.com/groundwork-go/groundwork/auth/orgs/orgssql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/tenant"
)

// Two organizations on one app: what a member makes while working in
// theirs is theirs, and the other organization's members do not find it.
func ExampleService_Tenancy() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "groundwork-example")
	defer os.RemoveAll(dir)
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "app.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if err := store.Migrate(ctx, db, authsql.Migrations, formssql.Migrations); err != nil {
		panic(err)
	}
	users, _ := auth.NewService(authsql.New(db), nil)
	ann, _ := users.CreateUser(ctx, auth.NewUser{Name: "Ann", Email: "ann@example.com", Password: "correct horse battery"})
	bo, _ := users.CreateUser(ctx, auth.NewUser{Name: "Bo", Email: "bo@example.com", Password: "correct horse battery"})
	// The host's sign-in, in short: the user is the X-User header.
	organizations, _ := orgs.New(orgssql.New(db), &orgs.Options{User: func(r *http.Request) (int64, bool) {
		var id int64
		_, err := fmt.Sscan(r.Header.Get("X-User"), &id)
		return id, err == nil
	}})
	_, _ = organizations.Create(ctx, "Acme", ann.ID)
	_, _ = organizations.Create(ctx, "Globex", bo.ID)
	formsSvc, _ := forms.NewService(formssql.New(db), nil)

	// The host's routes, behind Tenancy: make a form, or find one.
	app := organizations.Tenancy(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			_ = formsSvc.CreateForm(r.Context(), &forms.Form{Name: "Quote", Slug: "quote"})
		}
		key, _ := tenant.Of(r.Context())
		if _, err := formsSvc.Form(r.Context(), "quote"); err != nil {
			fmt.Fprintf(w, "%s: no form", key)
			return
		}
		fmt.Fprintf(w, "%s: the form", key)
	}))
	ask := func(method string, user int64) string {
		r := httptest.NewRequest(method, "/", nil)
		r.Header.Set("X-User", fmt.Sprint(user))
		w := httptest.NewRecorder()
		app.ServeHTTP(w, r)
		return w.Body.String()
	}
	fmt.Println(ask(http.MethodPost, ann.ID))
	fmt.Println(ask(http.MethodGet, bo.ID))
	// Output:
	// org:1: the form
	// org:2: no form
}
