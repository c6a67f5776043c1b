package store_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/store"
)

// One environment, a domain joined in one call, one Migrate, Start and
// Stop: the form page is served on the host's own mux, and the forms'
// jobs run on the environment's queue.
func ExampleOpenEnv() {
	dir, _ := os.MkdirTemp("", "groundwork-env")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	env, err := store.OpenEnv(ctx, "sqlite:"+filepath.Join(dir, "app.db"), &store.EnvOptions{
		Secret: []byte("the host's one secret, 32 bytes or more"),
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	defer env.Close()
	f, err := formssql.Join(env, nil) // the service, its API and pages, its jobs, its tables
	if err != nil {
		panic(err)
	}
	if err := env.Migrate(ctx); err != nil {
		panic(err)
	}
	if err := env.Start(ctx); err != nil {
		panic(err)
	}
	defer env.Stop(ctx)

	form := &forms.Form{Name: "Contact", IsActive: true}
	if err := f.Service.CreateForm(ctx, form); err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	f.Mount(mux)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/forms/contact", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"))
	// Output: 200 text/html; charset=utf-8
}
