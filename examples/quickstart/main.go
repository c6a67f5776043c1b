// Command quickstart is the README's first program: a host's own mux with a
// groundwork form page on it, on a SQLite file.
package main

import (
	"context"
	"log"
	"net/http"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/store"
)

func main() {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:app.db") // or your own *sql.DB: store.New(ctx, pool)
	if err != nil {
		log.Fatal(err)
	}
	if err := store.Migrate(ctx, db, formssql.Migrations); err != nil {
		log.Fatal(err)
	}
	svc, err := forms.NewService(formssql.New(db), nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := svc.Form(ctx, "contact"); err != nil { // make the form once
		form := &forms.Form{Name: "Contact", IsActive: true}
		if err := svc.CreateForm(ctx, form); err != nil {
			log.Fatal(err)
		}
		if err := svc.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeEmail, Label: "Email", IsRequired: true}); err != nil {
			log.Fatal(err)
		}
	}
	pages, err := forms.NewPageHandler(svc, nil)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux() // your own mux, beside your own routes
	mux.Handle(forms.PagePrefixDefault+"/", pages)
	log.Print("http://127.0.0.1:8084/forms/contact")
	log.Fatal(http.ListenAndServe("127.0.0.1:8084", mux))
}
