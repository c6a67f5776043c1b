// Command quickstart is the README's first program: a host's own mux with a
// groundwork form page on it, on a SQLite file, joined in one call.
package main

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/store"
)

func main() {
	ctx := context.Background()
	// What every domain shares: the database (or your own *sql.DB:
	// store.NewEnv), the job queue, the mailer, and one secret for every key.
	env, err := store.OpenEnv(ctx, "sqlite:app.db", &store.EnvOptions{Secret: []byte(os.Getenv("GROUNDWORK_SECRET"))})
	if err != nil {
		log.Fatal(err)
	}
	f, err := formssql.Join(env, nil) // the service, its API, its pages and its jobs
	if err == nil {
		err = env.Migrate(ctx) // every joined domain's tables
	}
	if err == nil {
		err = env.Start(ctx) // the queue: notifications, sweeps
	}
	if err != nil {
		log.Fatal(err)
	}
	defer env.Stop(ctx)
	if _, err := f.Service.Form(ctx, "contact"); err != nil { // make the form once
		form := &forms.Form{Name: "Contact", IsActive: true}
		if err := f.Service.CreateForm(ctx, form); err != nil {
			log.Fatal(err)
		}
		if err := f.Service.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeEmail, Label: "Email", IsRequired: true}); err != nil {
			log.Fatal(err)
		}
	}
	mux := http.NewServeMux() // your own mux, beside your own routes
	f.Mount(mux)              // the pages at /forms/, the API at /api/v1/forms
	log.Print("http://127.0.0.1:8084/forms/contact")
	log.Fatal(http.ListenAndServe("127.0.0.1:8084", mux))
}
