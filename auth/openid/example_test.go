package openid_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/openid"
	"github.com/groundwork-go/groundwork/auth/openid/openidsql"
	"github.com/groundwork-go/groundwork/store"
)

// A site whose users may sign in with Google: the sign-in page offers
// it, and its link sends the browser to Google with this site's client,
// callback, PKCE challenge and nonce. (Google's discovery document is
// read at the first sign-in; here a stand-in serves it.)
func ExampleNew() {
	ctx := context.Background()
	google := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		issuer := "http://" + r.Host
		fmt.Fprintf(w, `{"issuer":%q,"authorization_endpoint":%q,"token_endpoint":%q,"jwks_uri":%q,"id_token_signing_alg_values_supported":["RS256"]}`,
			issuer, issuer+"/o/oauth2/v2/auth", issuer+"/token", issuer+"/certs")
	}))
	defer google.Close()
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

	providers := []openid.Provider{{Name: "google", Label: "Google", Issuer: google.URL, ClientID: "my-client-id", ClientSecret: "my-secret"}}
	users, _ := auth.NewService(authsql.New(db), nil)
	signIn, _ := auth.NewWeb(users, &auth.WebOptions{SignInWith: openid.SignInButtons(providers),
		ProfileLinks: []groundwork.NavLink{{Text: "Accounts you sign in with", URL: openid.PagePath}}})
	sso, err := openid.New(openidsql.New(db), &openid.Options{Providers: providers, Users: users, SignIn: signIn,
		Key: []byte("a key of thirty-two bytes, exact"), BaseURL: &url.URL{Scheme: "https", Host: "app.example"}})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	signIn.Mount(mux)
	sso.Mount(mux)

	fmt.Println(openid.SignInButtons(providers)[0].Text)
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", "https://app.example/login/openid/google", nil))
	to, _ := http.NewRequest("GET", w.Header().Get("Location"), nil)
	q := to.URL.Query()
	fmt.Println(w.Code, to.URL.Path, q.Get("client_id"), q.Get("redirect_uri"), q.Get("code_challenge_method"), q.Get("nonce") != "")
	// Output:
	// Sign in with Google
	// 302 /o/oauth2/v2/auth my-client-id https://app.example/login/openid/google/callback S256 true
}
