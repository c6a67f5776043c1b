package forms_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Racing submissions on two instances (two connection pools on one
// database) against a limit of 10: exactly 10 accepted, the rest told the
// form is full; spam takes no place. On both databases.
func TestResponseLimitAcrossInstances(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db, one, two := twoInstances(t, d)
		limit := int64(10)
		form := &forms.Form{Name: "Workshop", IsActive: true, MaxResponses: &limit}
		require.NoError(t, one.CreateForm(ctx, form))
		require.NoError(t, one.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeText, Label: "Name", IsRequired: true}))
		fields, err := one.Fields(ctx, form.ID)
		require.NoError(t, err)
		// A spam submission first: stored, counted as no place.
		_, err = one.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{fields[0].Name: {"Bot"}}, Honeypot: "x", LoadedAt: "1"})
		require.NoError(t, err)

		accepted, full := 0, 0
		for _, err := range race(30, one, two, func(svc *forms.Service) error {
			_, err := svc.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{fields[0].Name: {"Ann"}}, LoadedAt: "1"})
			return err
		}) {
			switch {
			case err == nil:
				accepted++
			case errors.Is(err, forms.ErrFull):
				full++
			default:
				t.Errorf("submission: %v", err)
			}
		}
		require.Equal(t, 10, accepted, "exactly the limit")
		require.Equal(t, 20, full, "the rest told the form is full")
		var stored int
		require.NoError(t, db.Get(&stored, db.Rebind(`SELECT COUNT(*) FROM forms_submissions WHERE form_id = ? AND is_spam = ?`), form.ID, false))
		require.Equal(t, 10, stored)
		isFull, err := two.Full(ctx, form)
		require.NoError(t, err)
		require.True(t, isFull)
	})
}

// Dates and the limit through the API and the page: a form not open yet
// or closed answers 409 with its own words, its render definition says it
// is not accepting, and its page says so instead of the form; a full
// form the same; bad dates and limits are refused with the field named.
func TestFormDatesAndLimitOverHTTP(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slug := b.contactForm(t)
	now := b.clock.Now()
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"max_responses": 0}, "max_responses"},
		{map[string]any{"opens_at": "tomorrow"}, "opens_at"},
		{map[string]any{"opens_at": now.Format(time.RFC3339), "closes_at": now.Add(-time.Hour).Format(time.RFC3339)}, "closes_at"},
	} {
		r := b.api(t, "PATCH", "/"+slug, c.body)
		require.Equal(t, 422, r.status, "%v: %s", c.body, r.body)
		require.Contains(t, r.body, `"`+c.field+`"`)
	}

	// Not open yet, in the form's words.
	r := b.api(t, "PATCH", "/"+slug, map[string]any{"opens_at": now.Add(time.Hour).Format(time.RFC3339),
		"closed_message": "Registration opens at nine; come back then."})
	require.Equal(t, 200, r.status, r.body)
	require.Equal(t, now.Add(time.Hour).UTC().Format("2006-01-02T15:04:05.000000Z"), r.data(t)["opens_at"])
	def := b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/render", "", "", nil)
	require.Equal(t, 200, def.status)
	require.Equal(t, false, def.data(t)["accepting"])
	require.Equal(t, "Registration opens at nine; come back then.", def.data(t)["closed_message"])
	r = b.submit(t, slug, valid()...)
	require.Equal(t, 409, r.status, r.body)
	require.JSONEq(t, `{"message":"Registration opens at nine; come back then."}`, r.body)
	page := b.request(t, "GET", "/forms/"+slug, "", "", nil)
	require.Equal(t, 200, page.status)
	require.Contains(t, page.body, "Registration opens at nine; come back then.")
	require.NotContains(t, page.body, "<form", "no form to fill")

	// Open, with a limit of one: the first taken, then full.
	b.clock.Advance(2 * time.Hour)
	r = b.api(t, "PATCH", "/"+slug, map[string]any{"max_responses": 1, "closed_message": ""})
	require.Equal(t, 200, r.status, r.body)
	require.EqualValues(t, 1, r.data(t)["max_responses"])
	require.Equal(t, 201, b.submit(t, slug, valid()...).status)
	r = b.submit(t, slug, valid()...)
	require.Equal(t, 409, r.status)
	require.JSONEq(t, `{"message":"This form has all the responses it takes, so it is closed."}`, r.body)
	def = b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/render", "", "", nil)
	require.Equal(t, false, def.data(t)["accepting"])
	page = b.request(t, "GET", "/forms/"+slug, "", "", nil)
	require.Contains(t, page.body, "This form has all the responses it takes, so it is closed.")

	// No limit, closed since an hour.
	r = b.api(t, "PATCH", "/"+slug, map[string]any{"max_responses": nil, "opens_at": nil,
		"closes_at": b.clock.Now().Add(-time.Hour).Format(time.RFC3339)})
	require.Equal(t, 200, r.status, r.body)
	require.Nil(t, r.data(t)["max_responses"])
	r = b.submit(t, slug, valid()...)
	require.Equal(t, 409, r.status)
	require.JSONEq(t, `{"message":"This form is not taking responses now."}`, r.body)
	r = b.api(t, "PATCH", "/"+slug, map[string]any{"closes_at": nil})
	require.Equal(t, 200, r.status, r.body)
	r = b.submit(t, slug, valid()...)
	require.Equal(t, 201, r.status, "open again: %s", r.body)
}

// The page of a closed form in Chromium: the message in words, no form;
// axe-core finds nothing, light and dark, at 320 px and on a desktop.
func TestBrowserClosedFormPage(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 60*time.Second)
	b := setup(t)
	slug := b.contactForm(t)
	r := b.api(t, "PATCH", "/"+slug, map[string]any{"closes_at": b.clock.Now().Add(-time.Minute).Format(time.RFC3339),
		"closed_message": "Entries have closed. The results are on our home page."})
	require.Equal(t, 200, r.status, r.body)
	for _, width := range []int64{320, 1280} {
		browsertest.Do(t, ctx, chromedp.EmulateViewport(width, 800), chromedp.Navigate(b.server.URL+"/forms/"+slug),
			chromedp.WaitVisible(chromedp.CSS(".notice")))
		require.Contains(t, browsertest.Text(t, ctx, "main"), "Entries have closed. The results are on our home page.")
		for _, scheme := range []string{"light", "dark"} {
			require.NoError(t, browsertest.SetScheme(ctx, scheme))
			browsertest.NoViolations(t, ctx, "a closed form's page, "+scheme)
		}
	}
	require.NoError(t, browsertest.SetScheme(ctx, "light"))
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "form-closed")
}

// Per-option quotas: a workshop with two places, racing submissions on
// two instances: exactly two take it, the rest are told at the field; the
// render definition and the page give the places left. On both
// databases.
func TestOptionQuotas(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		_, one, two := twoInstances(t, d)
		form := &forms.Form{Name: "Workshops", IsActive: true}
		require.NoError(t, one.CreateForm(ctx, form))
		require.NoError(t, one.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeSelect, Label: "Workshop", IsRequired: true,
			FieldConfig: map[string]any{"options": []any{map[string]any{"value": "clay", "label": "Clay", "quota": float64(2)}, "paint"}}}))
		fields, err := one.Fields(ctx, form.ID)
		require.NoError(t, err)
		name := fields[0].Name
		took, refused := 0, 0
		for _, err := range race(12, one, two, func(svc *forms.Service) error {
			_, err := svc.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{name: {"clay"}}, LoadedAt: "1"})
			return err
		}) {
			var ve *forms.ValidationError
			switch {
			case err == nil:
				took++
			case errors.As(err, &ve):
				require.Equal(t, []string{"No places are left for Clay; choose another."}, ve.Fields()[name])
				refused++
			default:
				t.Errorf("submission: %v", err)
			}
		}
		require.Equal(t, 2, took, "exactly the quota")
		require.Equal(t, 10, refused)
		_, err = one.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{name: {"paint"}}, LoadedAt: "1"})
		require.NoError(t, err, "an option without a quota")
		left, err := two.Remaining(ctx, form, fields)
		require.NoError(t, err)
		require.Equal(t, map[string]map[string]int64{name: {"clay": 0}}, left)
	})
}

// Quotas over HTTP: refused on a field that holds several answers or
// when not a whole number; the render definition's remaining places and
// the page's labels follow the submissions.
func TestOptionQuotasOverHTTP(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createForm(t, map[string]any{"name": "Camp"})
	r := b.api(t, "POST", "/camp/fields", map[string]any{"type": "checkbox_group", "label": "Days",
		"field_config": map[string]any{"options": []any{map[string]any{"value": "mon", "quota": 5}}}})
	require.Equal(t, 422, r.status, r.body)
	require.Contains(t, r.body, "field_config.options.0.quota")
	r = b.api(t, "POST", "/camp/fields", map[string]any{"type": "radio", "label": "Week",
		"field_config": map[string]any{"options": []any{map[string]any{"value": "one", "quota": 0.5}}}})
	require.Equal(t, 422, r.status, r.body)
	b.addField(t, "camp", map[string]any{"type": "radio", "label": "Week", "is_required": true,
		"field_config": map[string]any{"options": []any{map[string]any{"value": "one", "label": "Week one", "quota": 1}, map[string]any{"value": "two", "label": "Week two", "quota": 3}}}})
	def := b.request(t, "GET", forms.PrefixDefault+"/camp/render", "", "", nil)
	require.Equal(t, 200, def.status, def.body)
	require.Contains(t, def.body, `"quota":1,"remaining":1`)
	require.Equal(t, 201, b.submit(t, "camp", part{name: "week", content: "one"}).status)
	r = b.submit(t, "camp", part{name: "week", content: "one"})
	require.Equal(t, 422, r.status)
	require.Contains(t, r.body, "No places are left for Week one; choose another.")
	def = b.request(t, "GET", forms.PrefixDefault+"/camp/render", "", "", nil)
	require.Contains(t, def.body, `"quota":1,"remaining":0`)
	require.Contains(t, def.body, `"quota":3,"remaining":3`)
	page := b.request(t, "GET", "/forms/camp", "", "", nil)
	require.Contains(t, page.body, "Week one (full)")
	require.Contains(t, page.body, "Week two (3 places left)")
}

// One response a person: ten submissions of one person racing on two
// instances keep one; another person's is taken; no one is told to sign
// in; spam takes no one's place. On both databases.
func TestOneResponsePerPerson(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db, one, two := twoInstances(t, d)
		form := &forms.Form{Name: "Vote", IsActive: true, OnePerPerson: true}
		require.NoError(t, one.CreateForm(ctx, form))
		require.NoError(t, one.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeText, Label: "Choice", IsRequired: true}))
		fields, err := one.Fields(ctx, form.ID)
		require.NoError(t, err)
		req := func(who string) *forms.SubmitRequest {
			return &forms.SubmitRequest{Values: map[string][]string{fields[0].Name: {"A"}}, LoadedAt: "1", Respondent: who}
		}
		_, err = one.Submit(ctx, form, fields, req(""))
		require.ErrorIs(t, err, forms.ErrSignInRequired)
		spam := req("user:1")
		spam.Honeypot = "x"
		_, err = one.Submit(ctx, form, fields, spam)
		require.NoError(t, err, "spam is answered as any other")

		kept, again := 0, 0
		for _, err := range race(10, one, two, func(svc *forms.Service) error {
			_, err := svc.Submit(ctx, form, fields, req("user:1"))
			return err
		}) {
			switch {
			case err == nil:
				kept++
			case errors.Is(err, forms.ErrResponded):
				again++
			default:
				t.Errorf("submission: %v", err)
			}
		}
		require.Equal(t, 1, kept, "one response a person")
		require.Equal(t, 9, again)
		_, err = two.Submit(ctx, form, fields, req("user:2"))
		require.NoError(t, err, "another person")
		var stored int
		require.NoError(t, db.Get(&stored, db.Rebind(`SELECT COUNT(*) FROM forms_submissions WHERE form_id = ? AND is_spam = ?`), form.ID, false))
		require.Equal(t, 2, stored)
	})
}

// One response a person through the page and the API: the host's session
// names the person (PageOptions.Respondent); no one is asked to sign in,
// a second response is refused in words, the API without a person is
// 401.
func TestOneResponsePerPersonOverHTTP(t *testing.T) {
	t.Parallel()
	who := func(r *http.Request) (string, bool) {
		u := r.Header.Get("X-Test-User")
		return u, u != ""
	}
	b := setup(t, func(o *setupOptions) {
		o.page = func(po *forms.PageOptions) { po.Respondent = who }
	})
	slug := b.contactForm(t)
	r := b.api(t, "PATCH", "/"+slug, map[string]any{"one_per_person": true})
	require.Equal(t, 200, r.status, r.body)
	require.Equal(t, true, r.data(t)["one_per_person"])
	r = b.submit(t, slug, valid()...)
	require.Equal(t, 401, r.status, r.body)
	require.JSONEq(t, `{"message":"Sign in to respond to this form: it takes one response a person."}`, r.body)
	page := b.request(t, "GET", "/forms/"+slug, "", "", nil)
	require.Equal(t, 200, page.status)
	require.Contains(t, page.body, "Sign in to respond to this form")
	require.NotContains(t, page.body, "<form")
	page = b.request(t, "GET", "/forms/"+slug, "", "", nil, "X-Test-User", "user:7")
	require.Contains(t, page.body, "<form", "a signed-in person gets the form")

	// Through the page, as user:7: taken, then refused.
	token := formTokenOf(t, page.body)
	b.clock.Advance(forms.MinFillTime)
	post := func() reply {
		form := url.Values{"name": {"Ann"}, "email": {"ann@example.test"}, "topic": {"support"}, "message": {"Hi"},
			forms.FormTokenField: {token}}
		return b.request(t, "POST", "/forms/"+slug, "", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()),
			"X-Test-User", "user:7", "Origin", b.server.URL)
	}
	require.Equal(t, 303, post().status)
	page = b.request(t, "GET", "/forms/"+slug, "", "", nil, "X-Test-User", "user:7")
	require.Contains(t, page.body, "You have responded to this form already")
	page = b.request(t, "GET", "/forms/"+slug, "", "", nil, "X-Test-User", "user:8")
	require.Contains(t, page.body, "<form", "another person still may")
}

var formTokenInput = regexp.MustCompile(`name="` + forms.FormTokenField + `" value="([^"]+)"`)

func formTokenOf(t *testing.T, page string) string {
	t.Helper()
	m := formTokenInput.FindStringSubmatch(page)
	require.NotNil(t, m, "the page carries a form-load token")
	return m[1]
}

// twoInstances are two services on one fresh database, each with its own
// connection pool, as two servers are; and the database.
func twoInstances(t *testing.T, d store.Dialect) (*store.DB, *forms.Service, *forms.Service) {
	t.Helper()
	dsn := storetest.DSN(t, d)
	db := storetest.OpenDSN(t, dsn, formssql.Migrations)
	other, err := store.Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = other.Close() })
	one, err := forms.NewService(formssql.New(db), &forms.Options{FormTokenOptional: true})
	require.NoError(t, err)
	two, err := forms.NewService(formssql.New(other), &forms.Options{FormTokenOptional: true})
	require.NoError(t, err)
	return db, one, two
}

// race runs submit n times at once, on one and two in turn, and returns
// their errors.
func race(n int, one, two *forms.Service, submit func(*forms.Service) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = submit([]*forms.Service{one, two}[i%2])
		})
	}
	close(start)
	wg.Wait()
	return errs
}
