// Command hooks is a host that changes groundwork's behaviour with Go
// callbacks: a threshold hook holds every normal-text contrast check to
// AAA's 7:1 (a house rule stricter than WCAG AA), and a submission hook
// hands each accepted form submission to the host's own code (here, a
// log line; in a real host, a CRM or a chat message).
//
//	go run ./examples/hooks              # http://127.0.0.1:8082/forms/feedback
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/store"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8082", "where to listen")
	dsn := flag.String("db", "sqlite:hooks.db", "the database")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	h, err := newHost(context.Background(), *dsn, func(e forms.SubmissionEvent) {
		logger.Info("new feedback", "form", e.Form.Slug, "submission", e.Submission.ID)
	})
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("listening on http://%s/forms/feedback", *addr)
	log.Fatal(http.ListenAndServe(*addr, h))
}

// houseThreshold is the contrast normal text must reach here.
const houseThreshold = 7.0

// newHost wires a11y and forms with the host's hooks; onFeedback gets
// every accepted submission.
func newHost(ctx context.Context, dsn string, onFeedback func(forms.SubmissionEvent)) (http.Handler, error) {
	colours, err := a11y.NewService(nil)
	if err != nil {
		return nil, err
	}
	colours.OnContrastThreshold(func(t float64, l a11y.Level) float64 {
		if l == a11y.AA {
			return max(t, houseThreshold)
		}
		return t
	})
	colourAPI, err := a11y.NewHandler(colours, nil)
	if err != nil {
		return nil, err
	}

	db, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := store.MigrateWithOptions(ctx, db, &store.MigrateOptions{WithoutQueue: true}, formssql.Migrations); err != nil {
		return nil, err
	}
	svc, err := forms.NewService(formssql.New(db), nil)
	if err != nil {
		return nil, err
	}
	// Runs after the submission is stored, never for spam.
	svc.OnSubmissionAccepted(func(_ context.Context, e forms.SubmissionEvent) { onFeedback(e) })
	if err := feedbackForm(ctx, svc); err != nil {
		return nil, err
	}
	pages, err := forms.NewPageHandler(svc, nil)
	if err != nil {
		return nil, err
	}

	mux := http.NewServeMux()
	mux.Handle(a11y.PrefixDefault+"/", colourAPI)
	mux.Handle(forms.PagePrefixDefault+"/", pages)
	return mux, nil
}

// feedbackForm makes the feedback form on first start.
func feedbackForm(ctx context.Context, svc *forms.Service) error {
	if _, err := svc.Form(ctx, "feedback"); !errors.Is(err, forms.ErrNotFound) {
		return err
	}
	form := &forms.Form{Name: "Feedback", Slug: "feedback", IsActive: true}
	if err := svc.CreateForm(ctx, form); err != nil {
		return err
	}
	return svc.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeTextarea, Label: "What could be better?", IsRequired: true})
}
