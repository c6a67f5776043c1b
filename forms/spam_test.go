package forms_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// renderToken is a form-load token from the form's render route, as a
// client gets it, with no time let pass.
func (b *bundle) renderToken(t *testing.T, form string) string {
	t.Helper()
	r := b.request(t, "GET", forms.PrefixDefault+"/"+form+"/render", "", "", nil)
	require.Equal(t, 200, r.status, r.body)
	return r.data(t)["config"].(map[string]any)["form_token"].(string)
}

func TestSpam(t *testing.T) {
	t.Parallel()
	meter := &testkit.Meter{}
	var logs testkit.Buffer
	b := setup(t, withQueue, func(o *setupOptions) {
		o.service = func(so *forms.Options) { so.Meter = meter; so.Logger = slog.New(slog.NewTextHandler(&logs, nil)) }
	})
	form := b.contactForm(t)
	b.createForm(t, map[string]any{"name": "Other"})
	r := b.api(t, "POST", "/contact/notifications", map[string]any{"type": "admin"})
	require.Equal(t, 201, r.status)
	tok := func(p string) part { return part{name: forms.FormTokenField, content: p} }
	fresh := func() string { return b.renderToken(t, form) }
	aged := func() string { s := fresh(); b.clock.Advance(forms.MinFillTime); return s }
	reused := aged()
	forged := aged()
	forged = forged[:len(forged)-2] + map[bool]string{true: "AA", false: "AB"}[strings.HasSuffix(forged, "AB")]

	cases := []struct {
		name  string
		extra func() []part
		spam  bool
	}{
		{"PatientPerson", func() []part { return []part{tok(aged())} }, false},
		{"FirstUse", func() []part { return []part{tok(reused)} }, false},
		{"Replayed", func() []part { return []part{tok(reused)} }, true},
		{"Honeypot", func() []part { return []part{tok(aged()), {name: "website_url", content: "http://spam.test"}} }, true},
		{"NoToken", func() []part { return []part{noToken} }, true},
		{"OnlyALoadTime", func() []part {
			// A _form_loaded_at, set far enough back, no
			// longer gets a bot through.
			return []part{noToken, {name: forms.LoadedAtField, content: fmt.Sprint(b.clock.Now().Unix() - 60)}}
		}, true},
		{"TooFresh", func() []part { return []part{tok(fresh())} }, true},
		{"Expired", func() []part {
			s := fresh()
			b.clock.Advance(forms.FormTokenMaxAgeDefault + time.Second)
			return []part{tok(s)}
		}, true},
		{"Forged", func() []part { return []part{tok(forged)} }, true},
		{"Malformed", func() []part { return []part{tok("1.2.3")} }, true},
		{"ForAnotherForm", func() []part {
			s := b.renderToken(t, "other")
			b.clock.Advance(forms.MinFillTime)
			return []part{tok(s)}
		}, true},
	}
	for _, c := range cases {
		r := b.submit(t, form, valid(c.extra()...)...)
		require.Equal(t, 201, r.status, c.name)
		out := r.json(t)
		require.Equal(t, true, out["success"], "spam looks the same: %s", c.name)
		sub := b.api(t, "GET", fmt.Sprintf("/contact/submissions/%v", out["submission_id"]), nil).data(t)
		require.Equal(t, c.spam, sub["is_spam"], c.name)
	}
	// Each is in the log at Info with its reason, and none of the answers.
	for _, why := range []string{"its form-load token is used before", "its honeypot field is filled", "its form-load token is missing",
		"its form-load token is sent too soon after the form was shown", "its form-load token is expired", "its form-load token is forged",
		"its form-load token is malformed", "its form-load token is for another form"} {
		require.Contains(t, logs.String(), `level=INFO msg="forms: submission stored as spam: `+why+`" form=1 slug=contact`)
	}
	require.NotContains(t, logs.String(), "ann@example.test")
	require.NotContains(t, logs.String(), "Hello there")

	// Only the two real submissions queued a notification.
	var jobs int
	require.NoError(t, b.db.Get(&jobs, "SELECT COUNT(*) FROM river_job WHERE kind = 'forms_notification'"))
	require.Equal(t, 2, jobs)
	list := b.api(t, "GET", "/contact/submissions?is_spam=1", nil).json(t)
	require.EqualValues(t, len(cases)-2, list["meta"].(map[string]any)["total"])

	// A refused submission does not use its token up: the corrected one
	// sent with it is no replay.
	s := aged()
	r = b.submit(t, form, tok(s), part{name: "email", content: "ann@example.test"})
	require.Equal(t, 422, r.status)
	r = b.submit(t, form, valid(tok(s))...)
	require.Equal(t, 201, r.status)
	sub := b.api(t, "GET", fmt.Sprintf("/contact/submissions/%v", r.json(t)["submission_id"]), nil).data(t)
	require.Equal(t, false, sub["is_spam"])
	// Counted as stored: the refused one not at all.
	require.Equal(t, 3.0, meter.Count(groundwork.MetricSubmissions, "accepted"))
	require.Equal(t, float64(len(cases)-2), meter.Count(groundwork.MetricSubmissions, "spam"))
}

// TestSpamWithoutTokens: a host whose clients cannot send a token judges
// those without one by _form_loaded_at, and still checks a token sent.
func TestSpamWithoutTokens(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) { o.service = func(so *forms.Options) { so.FormTokenOptional = true } })
	form := b.contactForm(t)
	now := b.clock.Now().Unix()
	cases := []struct {
		name  string
		extra []part
		spam  bool
	}{
		{"TooFast", []part{noToken, {name: "_form_loaded_at", content: fmt.Sprint(now - 1)}}, true},
		{"FromTheFuture", []part{noToken, {name: "_form_loaded_at", content: fmt.Sprint(now + 60)}}, true},
		{"PatientPerson", []part{noToken, {name: "_form_loaded_at", content: fmt.Sprint(now - 2)}}, false},
		{"NoTimestamp", []part{noToken}, false},
		{"Honeypot", []part{noToken, {name: "website_url", content: "x"}}, true},
		{"GoodToken", nil, false},
		{"BadToken", []part{{name: forms.FormTokenField, content: "1.2.3.4"}}, true},
	}
	for _, c := range cases {
		r := b.submit(t, form, valid(c.extra...)...)
		require.Equal(t, 201, r.status, c.name)
		sub := b.api(t, "GET", fmt.Sprintf("/contact/submissions/%v", r.json(t)["submission_id"]), nil).data(t)
		require.Equal(t, c.spam, sub["is_spam"], c.name)
	}
}

// TestFormTokenAcrossInstances: a token issued by one instance is good on
// another with the same key, and once only across both when they count
// uses in the database.
func TestFormTokenAcrossInstances(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d, formssql.Migrations)
		c := newClock()
		instance := func() *forms.Service {
			svc, err := forms.NewService(formssql.New(db), &forms.Options{Now: c.Now, FormTokenKey: testFormKey,
				FormTokenUses: store.NewSQLRateLimiter(db, &driverless.RateLimiterOptions{Now: c.Now})})
			require.NoError(t, err)
			return svc
		}
		a, b := instance(), instance()
		form := &forms.Form{Name: "Contact", IsActive: true}
		require.NoError(t, a.CreateForm(ctx, form))
		require.NoError(t, a.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeText, Label: "Name"}))
		fields, err := a.Fields(ctx, form.ID)
		require.NoError(t, err)
		token := a.FormToken(form.ID)
		c.Advance(forms.MinFillTime)
		submit := func(svc *forms.Service) bool {
			res, err := svc.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{"name": {"Ann"}}, FormToken: token})
			require.NoError(t, err)
			return res.Spam
		}
		require.False(t, submit(b), "issued by a, good on b")
		require.True(t, submit(a), "used on b, a replay on a")

		other, err := forms.NewService(formssql.New(db), &forms.Options{Now: c.Now, FormTokenKey: bytes.Repeat([]byte("x"), 32)})
		require.NoError(t, err)
		token = a.FormToken(form.ID)
		c.Advance(forms.MinFillTime)
		require.True(t, submit(other), "another key: forged")

		_, err = forms.NewService(formssql.New(db), &forms.Options{FormTokenKey: []byte("short")})
		require.ErrorContains(t, err, "FormTokenKey")
	})
}

// TestMinFillSecondsPerForm: how fast a person may fill a form in is the
// form's own setting, two seconds unless it says otherwise; zero turns the
// check off, and a setting out of range is refused.
func TestMinFillSecondsPerForm(t *testing.T) {
	t.Parallel()
	b := setup(t)
	form := b.contactForm(t)
	require.EqualValues(t, forms.MinFillSecondsDefault, b.api(t, "GET", "/contact", nil).data(t)["min_fill_seconds"])
	tok := func(p string) part { return part{name: forms.FormTokenField, content: p} }
	spamAfter := func(wait time.Duration) bool {
		s := b.renderToken(t, form)
		b.clock.Advance(wait)
		r := b.submit(t, form, valid(tok(s))...)
		require.Equal(t, 201, r.status, r.body)
		return b.api(t, "GET", fmt.Sprintf("/contact/submissions/%v", r.json(t)["submission_id"]), nil).data(t)["is_spam"].(bool)
	}
	require.True(t, spamAfter(time.Second), "a second is quicker than the default two")
	require.False(t, spamAfter(2*time.Second))

	for _, bad := range []any{-1, 61, "soon", 1.5} {
		r := b.api(t, "PATCH", "/contact", map[string]any{"min_fill_seconds": bad})
		require.Equal(t, 422, r.status, "%v", bad)
		require.Contains(t, r.body, "min_fill_seconds")
	}
	r := b.api(t, "PATCH", "/contact", map[string]any{"min_fill_seconds": 0})
	require.Equal(t, 200, r.status, r.body)
	require.EqualValues(t, 0, r.data(t)["min_fill_seconds"])
	require.False(t, spamAfter(0), "no minimum: sent at once is fine")

	r = b.api(t, "PATCH", "/contact", map[string]any{"min_fill_seconds": 10})
	require.Equal(t, 200, r.status, r.body)
	require.True(t, spamAfter(9*time.Second))
	require.False(t, spamAfter(10*time.Second))

	r = b.api(t, "PATCH", "/contact", map[string]any{"min_fill_seconds": nil})
	require.Equal(t, 200, r.status, r.body)
	require.EqualValues(t, forms.MinFillSecondsDefault, r.data(t)["min_fill_seconds"], "null is the default")

	r = b.api(t, "POST", "", map[string]any{"name": "Quick poll", "min_fill_seconds": 0})
	require.Equal(t, 201, r.status, r.body)
	require.EqualValues(t, 0, r.data(t)["min_fill_seconds"])
}

// TestMarkNotSpam: a submission kept as spam that an admin marks as not
// spam, one at a time or in bulk, is treated as a submission just made:
// its notifications go out and the submission hooks run, once however
// often it is marked.
func TestMarkNotSpam(t *testing.T) {
	t.Parallel()
	b := setup(t, withQueue)
	form := b.contactForm(t)
	r := b.api(t, "POST", "/contact/notifications", map[string]any{"type": "admin"})
	require.Equal(t, 201, r.status)
	var hooked, hookedTx atomic.Int64
	b.svc.OnSubmissionAccepted(func(_ context.Context, e forms.SubmissionEvent) {
		require.False(t, e.Submission.IsSpam)
		hooked.Add(1)
	})
	b.svc.OnSubmissionAcceptedTx(func(context.Context, *sql.Tx, forms.SubmissionEvent) error { hookedTx.Add(1); return nil })
	jobs := func() (n int) {
		require.NoError(t, b.db.Get(&n, "SELECT COUNT(*) FROM river_job WHERE kind = 'forms_notification'"))
		return n
	}
	spam := func() string {
		r := b.submit(t, form, valid(part{name: "website_url", content: "http://spam.test"})...)
		require.Equal(t, 201, r.status, r.body)
		return fmt.Sprint(r.json(t)["submission_id"])
	}
	one, two, three := spam(), spam(), spam()
	require.Zero(t, jobs())

	r = b.api(t, "PATCH", "/contact/submissions/"+one, map[string]any{"is_spam": false, "is_starred": true})
	require.Equal(t, 200, r.status, r.body)
	require.Equal(t, false, r.data(t)["is_spam"])
	require.Equal(t, true, r.data(t)["is_starred"])
	require.Equal(t, 1, jobs())
	r = b.api(t, "PATCH", "/contact/submissions/"+one, map[string]any{"is_spam": false, "admin_notes": "a real person"})
	require.Equal(t, 200, r.status, r.body)
	require.Equal(t, 1, jobs(), "marking it again sends nothing more")

	r = b.api(t, "POST", "/contact/submissions/bulk", map[string]any{"action": "mark_not_spam", "ids": []any{one, two, three, 999999}})
	require.Equal(t, 200, r.status, r.body)
	require.EqualValues(t, 3, r.json(t)["affected"])
	require.Equal(t, 3, jobs())
	require.EqualValues(t, 3, hooked.Load())
	require.EqualValues(t, 3, hookedTx.Load())
	list := b.api(t, "GET", "/contact/submissions?is_spam=1", nil).json(t)
	require.EqualValues(t, 0, list["meta"].(map[string]any)["total"])
}
