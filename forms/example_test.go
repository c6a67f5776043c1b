package forms_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Build a form and take a submission through the service.
func ExampleService_Submit() {
	ctx := context.Background()
	db, done := storetest.Temp(formssql.Migrations) // your *store.DB, migrated
	defer done()
	clock := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) // a settable clock, for the example
	svc, _ := forms.NewService(formssql.New(db), &forms.Options{Now: func() time.Time { return clock }})

	form := &forms.Form{Name: "Contact us", IsActive: true}
	if err := svc.CreateForm(ctx, form); err != nil {
		panic(err)
	}
	for _, f := range []*forms.Field{
		{FormID: form.ID, Type: forms.TypeText, Label: "Your name", IsRequired: true},
		{FormID: form.ID, Type: forms.TypeEmail, Label: "Email", IsRequired: true},
	} {
		if err := svc.CreateField(ctx, f); err != nil {
			panic(err)
		}
	}
	fields, _ := svc.Fields(ctx, form.ID)
	fmt.Println(form.Slug, fields[0].Name, fields[1].Name)

	// The form is shown with a form-load token (the page and the render
	// definition carry one); a person takes a while to fill it in.
	token := svc.FormToken(form.ID)
	clock = clock.Add(30 * time.Second)

	_, err := svc.Submit(ctx, form, fields, &forms.SubmitRequest{FormToken: token,
		Values: map[string][]string{"your_name": {"Ann"}, "email": {"nope"}}})
	fmt.Println(err)

	res, err := svc.Submit(ctx, form, fields, &forms.SubmitRequest{FormToken: token,
		Values: map[string][]string{"your_name": {"Ann"}, "email": {"ann@example.com"}}})
	fmt.Println(res.Message, res.Spam, err)

	// Without a token (or with one used before, forged or too fresh) the
	// submission is stored as spam, and answered the same.
	res, err = svc.Submit(ctx, form, fields, &forms.SubmitRequest{
		Values: map[string][]string{"your_name": {"Bot"}, "email": {"bot@example.com"}}})
	fmt.Println(res.Message, res.Spam, err)
	// Output:
	// contact-us your_name email
	// The Email field must be a valid email address.
	// Form submitted successfully. false <nil>
	// Form submitted successfully. true <nil>
}

// Mount the API in a host's mux; the admin routes want a bearer token
// (an *auth.Service satisfies TokenVerifier), render and submit do not.
func ExampleNewHandler() {
	db, done := storetest.Temp(formssql.Migrations)
	defer done()
	svc, _ := forms.NewService(formssql.New(db), nil)
	_ = svc.CreateForm(context.Background(), &forms.Form{Name: "Feedback", IsActive: true})

	h, err := forms.NewHandler(svc, &forms.HandlerOptions{Tokens: noTokens{}})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/v1/forms", h)
	mux.Handle("/api/v1/forms/", h)

	for _, req := range []*http.Request{
		httptest.NewRequest("GET", "/api/v1/forms", nil),
		httptest.NewRequest("POST", "/api/v1/forms/feedback/submit", strings.NewReader(`{}`)),
	} {
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, req)
		fmt.Println(req.Method, req.URL.Path, w.Code)
	}
	// Output:
	// GET /api/v1/forms 401
	// POST /api/v1/forms/feedback/submit 201
}

// noTokens accepts no token at all.
type noTokens struct{}

func (noTokens) VerifyToken(context.Context, string) (string, []string, error) { return "", nil, nil }

// With no options the API serves only the public routes: render and
// submit. The admin routes answer 404.
func ExampleNewHandler_publicOnly() {
	db, done := storetest.Temp(formssql.Migrations)
	defer done()
	svc, _ := forms.NewService(formssql.New(db), nil)
	_ = svc.CreateForm(context.Background(), &forms.Form{Name: "Feedback", IsActive: true})

	h, err := forms.NewHandler(svc, nil)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/v1/forms/", h)

	for _, req := range []*http.Request{
		httptest.NewRequest("GET", "/api/v1/forms/feedback/render", nil),
		httptest.NewRequest("POST", "/api/v1/forms/feedback/submit", strings.NewReader(`{}`)),
		httptest.NewRequest("GET", "/api/v1/forms/feedback/submissions", nil),
		httptest.NewRequest("GET", "/api/v1/forms", nil),
	} {
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, req)
		fmt.Println(req.Method, req.URL.Path, w.Code)
	}
	// Output:
	// GET /api/v1/forms/feedback/render 200
	// POST /api/v1/forms/feedback/submit 201
	// GET /api/v1/forms/feedback/submissions 404
	// GET /api/v1/forms 307
}

// Serve each form's page under a prefix of the host's: it posts to itself
// and, once a submission is taken, redirects back to the page.
func ExampleNewPageHandler() {
	db, done := storetest.Temp(formssql.Migrations)
	defer done()
	svc, _ := forms.NewService(formssql.New(db), nil)
	form := &forms.Form{Name: "Feedback", IsActive: true}
	_ = svc.CreateForm(context.Background(), form)
	_ = svc.CreateField(context.Background(), &forms.Field{FormID: form.ID, Type: forms.TypeTextarea, Label: "Your thoughts"})

	pages, err := forms.NewPageHandler(svc, &forms.PageOptions{Prefix: "/contact"})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/contact/", pages)

	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", "/contact/feedback", nil))
	fmt.Println(w.Code, strings.Contains(w.Body.String(), `<form method="post" action="/contact/feedback"`))

	req := httptest.NewRequest("POST", "/contact/feedback", strings.NewReader("your_thoughts=Lovely"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w = httptest.NewRecorder()
	mux.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Header().Get("Location"))
	// Output:
	// 200 true
	// 303 /contact/feedback
}

// Open a form with answers the person must not change: the host signs
// them, the link carries them, and a submission with the token has them
// whatever else it says.
func ExampleService_PrefillToken() {
	ctx := context.Background()
	db, done := storetest.Temp(formssql.Migrations)
	defer done()
	clock := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	svc, _ := forms.NewService(formssql.New(db), &forms.Options{Now: func() time.Time { return clock }})
	form := &forms.Form{Name: "Upgrade", IsActive: true}
	_ = svc.CreateForm(ctx, form)
	_ = svc.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeHidden, Name: "account", Label: "Account"})
	_ = svc.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeText, Name: "note", Label: "Note"})
	fields, _ := svc.Fields(ctx, form.ID)

	prefill := svc.PrefillToken(form.ID, map[string]string{"account": "A-17"}, 24*time.Hour)
	fmt.Println("https://example.com/forms/upgrade?" + forms.PrefillQuery + "=…")

	formToken := svc.FormToken(form.ID)
	clock = clock.Add(30 * time.Second)
	res, err := svc.Submit(ctx, form, fields, &forms.SubmitRequest{FormToken: formToken, Prefill: prefill,
		Values: map[string][]string{"account": {"B-99"}, "note": {"Please"}}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Submission.Answers()["account"], res.Submission.Answers()["note"])
	// Output:
	// https://example.com/forms/upgrade?prefill=…
	// A-17 Please
}

// A form that asks Cloudflare Turnstile about each submission: the
// service is given the verifier, the form turns it on.
func ExampleNewTurnstile() {
	captcha, err := forms.NewTurnstile(forms.CaptchaOptions{SiteKey: "0x4AAAA-site-key", Secret: "the secret"})
	if err != nil {
		panic(err)
	}
	w := captcha.Widget()
	fmt.Println(w.Class, w.ResponseField, w.Script)
	// svc, _ := forms.NewService(store, &forms.Options{Captcha: captcha})
	// then PATCH /api/v1/forms/{form} {"captcha": true}

	// Output:
	// cf-turnstile cf-turnstile-response https://challenges.cloudflare.com/turnstile/v0/api.js
}
