package useradmin_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/useradmin"
	"github.com/groundwork-go/groundwork/store"
)

// A site whose administrators manage the users at /admin/users: the
// header offers the page to those with its capability, and the page
// refuses everyone else. What the page does, a host may do from its
// own code too (Service.SetDisabled, SignOutEverywhere,
// TurnOffTwoFactor).
func ExampleNew() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "groundwork-example")
	defer os.RemoveAll(dir)
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "app.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if err := store.Migrate(ctx, db, authsql.Migrations); err != nil {
		panic(err)
	}

	users, _ := auth.NewService(authsql.New(db), nil)
	signIn, _ := auth.NewWeb(users, &auth.WebOptions{NavLinks: []groundwork.NavLink{
		{Text: "Users", URL: useradmin.PagePath, Capability: useradmin.Capability}}})
	admin, err := useradmin.New(&useradmin.Options{Users: users, SignIn: signIn, Navigator: signIn,
		Key: []byte("a key of thirty-two bytes, exact")})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	signIn.Mount(mux)
	admin.Mount(mux)

	mallory, _ := users.CreateUser(ctx, auth.NewUser{Name: "Mallory", Email: "mallory@example.com", Password: "correct horse battery"})
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", useradmin.PagePath, nil))
	fmt.Println(w.Code, w.Header().Get("Location"))

	mallory, _ = users.SetDisabled(ctx, mallory.ID, true)
	_, err = users.CheckCredentials(ctx, "mallory@example.com", "correct horse battery", "192.0.2.1")
	fmt.Println(mallory.DisabledAt != nil, err)
	// Output:
	// 302 /login
	// true auth: user disabled
}
