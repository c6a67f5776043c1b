// Command hostapp is a host application that brings its own database pool
// and mounts two groundwork handlers on its own mux, beside its own page:
// the colour endpoints of package a11y, and the page of a contact form
// from package forms. It runs no job queue, so its database has no River
// tables.
//
//	go run ./examples/hostapp            # http://127.0.0.1:8081/forms/contact
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"

	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/store"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "where to listen")
	path := flag.String("db", "hostapp.db", "the host's SQLite file")
	flag.Parse()

	// The host opens its own pool; groundwork works on it.
	pool, err := sql.Open("sqlite", store.SQLiteDSN(*path))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	app, err := newApp(context.Background(), pool)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("listening on http://%s/forms/contact", *addr)
	log.Fatal(http.ListenAndServe(*addr, app.mux))
}

// app is the host: its mux, and the forms service it keeps.
type app struct {
	mux   *http.ServeMux
	forms *forms.Service
}

// newApp puts groundwork's tables beside the host's on pool and mounts
// the handlers.
func newApp(ctx context.Context, pool *sql.DB) (*app, error) {
	db, err := store.New(ctx, pool)
	if err != nil {
		return nil, err
	}
	if err := store.MigrateWithOptions(ctx, db, &store.MigrateOptions{WithoutQueue: true}, formssql.Migrations); err != nil {
		return nil, err
	}
	// No Enqueuer: without a queue, forms sends no notifications.
	svc, err := forms.NewService(formssql.New(db), nil)
	if err != nil {
		return nil, err
	}
	if err := contactForm(ctx, svc); err != nil {
		return nil, err
	}
	pages, err := forms.NewPageHandler(svc, nil)
	if err != nil {
		return nil, err
	}
	colours, err := a11y.NewHandler(nil, nil)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "The host's own page. Try /forms/contact, or POST /api/a11y/contrast-check.")
	})
	mux.Handle(a11y.PrefixDefault+"/", colours)
	mux.Handle(forms.PagePrefixDefault+"/", pages)
	return &app{mux: mux, forms: svc}, nil
}

// contactForm makes the contact form on first start.
func contactForm(ctx context.Context, svc *forms.Service) error {
	if _, err := svc.Form(ctx, "contact"); !errors.Is(err, forms.ErrNotFound) {
		return err
	}
	form := &forms.Form{Name: "Contact", Slug: "contact", IsActive: true, SuccessMessage: "Thanks, we will be in touch."}
	if err := svc.CreateForm(ctx, form); err != nil {
		return err
	}
	for _, f := range []*forms.Field{
		{Type: forms.TypeText, Label: "Name", IsRequired: true},
		{Type: forms.TypeEmail, Label: "Email", IsRequired: true},
		{Type: forms.TypeTextarea, Label: "Message"},
	} {
		f.FormID = form.ID
		if err := svc.CreateField(ctx, f); err != nil {
			return err
		}
	}
	return nil
}
