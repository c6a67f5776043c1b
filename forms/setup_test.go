package forms_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/store/storetest"
)

type clock = testkit.Clock

func newClock() *clock { return testkit.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)) }

type tokens = testkit.Tokens

var testTokens = tokens{
	"admin":  {"forms:*"},
	"viewer": {"forms:viewAny", "forms:view"},
	"reader": {"forms:viewSubmissions"},
	"acme":   {"forms:*", "tenant:acme"},
	"globex": {"forms:*", "tenant:globex"},
}

type bundle struct {
	svc     *forms.Service
	server  *httptest.Server
	db      *store.DB
	outbox  *mail.Outbox
	queue   *store.Queue
	blobDir string
	clock   *clock
	limiter groundwork.RateLimiter
	uuids   atomic.Int64
}

type setupOptions struct {
	dialect     store.Dialect
	submitLimit int
	// sqlLimiter counts the submit limit in the database, as instances on
	// one database do, instead of in memory.
	sqlLimiter bool
	queue      bool
	handler    func(*forms.HandlerOptions)
	page       func(*forms.PageOptions)
	service    func(*forms.Options)
	// dsn and blobDir, when set, are a database and a folder of files
	// another bundle shares: two instances of one site.
	dsn, blobDir string
}

// setup wires a Service on a fresh database, its handler and page handler
// behind one httptest server. Options: the dialect (SQLite by default),
// the submission limit (off by default), and a running queue.
func setup(t testing.TB, configure ...func(*setupOptions)) *bundle {
	t.Helper()
	o := setupOptions{dialect: store.SQLite, submitLimit: -1}
	for _, c := range configure {
		c(&o)
	}
	ctx := context.Background()
	b := &bundle{clock: newClock(), blobDir: o.blobDir}
	if o.dsn != "" {
		b.db = storetest.OpenDSN(t, o.dsn, formssql.Migrations)
	} else {
		b.db = storetest.Open(t, o.dialect, formssql.Migrations)
	}
	if b.blobDir == "" {
		b.blobDir = t.TempDir()
	}
	b.outbox = mail.NewOutbox(&mail.OutboxOptions{From: "forms@example.test"})
	blobs, err := forms.NewDirBlobStore(b.blobDir)
	require.NoError(t, err)
	t.Cleanup(func() { blobs.Close() })
	b.queue, err = store.NewQueue(b.db, &store.QueueOptions{TestOnly: true, FetchPollInterval: 50 * time.Millisecond})
	require.NoError(t, err)
	so := &forms.Options{Now: b.clock.Now, FormTokenKey: testFormKey, Enqueuer: b.queue, Mailer: b.outbox, Blobs: blobs, AdminRecipients: "team@example.test",
		NewUUID: func() string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", b.uuids.Add(1)) }}
	if o.service != nil {
		o.service(so)
	}
	b.svc, err = forms.NewService(formssql.New(b.db), so)
	require.NoError(t, err)
	if o.queue {
		require.NoError(t, forms.RegisterWorkers(b.queue.Workers(), b.svc))
		require.NoError(t, b.queue.Start(ctx))
		t.Cleanup(func() { require.NoError(t, b.queue.Stop(context.Background())) })
	}
	var limiter groundwork.RateLimiter = driverless.NewMemoryRateLimiter(&driverless.RateLimiterOptions{Now: b.clock.Now})
	if o.sqlLimiter {
		limiter = store.NewSQLRateLimiter(b.db, &driverless.RateLimiterOptions{Now: b.clock.Now})
	}
	b.limiter = limiter
	ho := &forms.HandlerOptions{HTTPOptions: groundwork.HTTPOptions{RateLimiter: limiter}, Tokens: testTokens, SubmitLimit: o.submitLimit}
	if o.handler != nil {
		o.handler(ho)
	}
	h, err := forms.NewHandler(b.svc, ho)
	require.NoError(t, err)
	po := &forms.PageOptions{HTTPOptions: groundwork.HTTPOptions{RateLimiter: limiter}, SubmitLimit: o.submitLimit}
	if o.page != nil {
		o.page(po)
	}
	pages, err := forms.NewPageHandler(b.svc, po)
	require.NoError(t, err)
	mux := http.NewServeMux()
	checked := apitest.Of(t, h).Handler(h)   // every JSON answer against the description
	mux.Handle(forms.PrefixDefault, checked) // POST /api/v1/forms has no slash
	mux.Handle(forms.PrefixDefault+"/", checked)
	mux.Handle("/forms/", pages)
	summary, err := forms.NewSummaryPage(b.svc, nil)
	require.NoError(t, err)
	mux.Handle(forms.SummaryPathDefault+"/", summary)
	b.server = httptest.NewServer(mux)
	t.Cleanup(b.server.Close)
	return b
}

func onPostgres(o *setupOptions) { o.dialect = store.Postgres }
func withQueue(o *setupOptions)  { o.queue = true }

type reply struct {
	status int
	header http.Header
	body   string
}

// json decodes the reply's body.
func (r reply) json(t testing.TB) map[string]any {
	t.Helper()
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.body), &out), r.body)
	return out
}

// data is the reply's "data" object.
func (r reply) data(t testing.TB) map[string]any {
	t.Helper()
	d, ok := r.json(t)["data"].(map[string]any)
	require.True(t, ok, r.body)
	return d
}

func (b *bundle) request(t testing.TB, method, path, token, contentType string, body io.Reader, headers ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, b.server.URL+path, body)
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return reply{res.StatusCode, res.Header, string(out)}
}

// api sends JSON as the admin (or as token).
func (b *bundle) api(t testing.TB, method, path string, body any, token ...string) reply {
	t.Helper()
	tok := "admin"
	if len(token) > 0 {
		tok = token[0]
	}
	var rd io.Reader
	ct := ""
	if body != nil {
		raw, ok := body.(string)
		if !ok {
			b, err := json.Marshal(body)
			require.NoError(t, err)
			raw = string(b)
		}
		rd, ct = strings.NewReader(raw), "application/json"
	}
	return b.request(t, method, forms.PrefixDefault+path, tok, ct, rd)
}

// createForm creates a form through the API and returns its JSON.
func (b *bundle) createForm(t testing.TB, body map[string]any) map[string]any {
	t.Helper()
	r := b.api(t, "POST", "", body)
	require.Equal(t, 201, r.status, r.body)
	return r.data(t)
}

// addField adds a field through the API and returns its JSON.
func (b *bundle) addField(t testing.TB, form string, body map[string]any) map[string]any {
	t.Helper()
	r := b.api(t, "POST", "/"+form+"/fields", body)
	require.Equal(t, 201, r.status, r.body)
	return r.data(t)
}

// contactForm makes the form most tests use: name (required), email
// (required), topic (select), message (textarea), cv (file, pdf/txt).
func (b *bundle) contactForm(t testing.TB) string {
	t.Helper()
	b.createForm(t, map[string]any{"name": "Contact", "success_message": "Thanks, we got it."})
	b.addField(t, "contact", map[string]any{"type": "text", "label": "Name", "is_required": true})
	b.addField(t, "contact", map[string]any{"type": "email", "label": "Email", "is_required": true})
	b.addField(t, "contact", map[string]any{"type": "select", "label": "Topic",
		"field_config": map[string]any{"options": []any{map[string]any{"value": "sales", "label": "Sales"}, map[string]any{"value": "support", "label": "Support"}}}})
	b.addField(t, "contact", map[string]any{"type": "textarea", "label": "Message"})
	b.addField(t, "contact", map[string]any{"type": "file", "label": "CV", "field_config": map[string]any{"allowed_types": []any{"pdf", "txt"}, "max_size": 8}})
	return "contact"
}

// part is one part of a multipart body.
type part struct {
	name, filename, content string
}

// multipartBody builds a multipart body from parts.
func multipartBody(t *testing.T, parts ...part) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		var pw io.Writer
		var err error
		if p.filename != "" {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.name, p.filename))
			h.Set("Content-Type", "application/octet-stream")
			pw, err = w.CreatePart(h)
		} else {
			pw, err = w.CreateFormField(p.name)
		}
		require.NoError(t, err)
		_, err = io.WriteString(pw, p.content)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return w.FormDataContentType(), &buf
}

// testFormKey signs form-load tokens on every instance of a test.
var testFormKey = bytes.Repeat([]byte("form-load token key "), 2)

// withFormToken adds a form-load token from the form's render route to
// parts, and lets MinFillTime pass, as a person would, unless parts name
// the token already: one with empty content is left out (a submission
// without a token).
func withFormToken(t *testing.T, c *clock, get func(path string) reply, form string, parts []part) []part {
	t.Helper()
	for i, p := range parts {
		if p.name == forms.FormTokenField {
			if p.content == "" {
				return slices.Delete(slices.Clone(parts), i, i+1)
			}
			return parts
		}
	}
	r := get(forms.PrefixDefault + "/" + form + "/render")
	if r.status != http.StatusOK {
		return parts // a missing or inactive form: no token to have
	}
	token, _ := r.data(t)["config"].(map[string]any)["form_token"].(string)
	require.NotEmpty(t, token, r.body)
	c.Advance(forms.MinFillTime)
	return append([]part{{name: forms.FormTokenField, content: token}}, parts...)
}

// noToken makes a submission without a form-load token.
var noToken = part{name: forms.FormTokenField}

// submit posts a multipart submission, with a form-load token.
func (b *bundle) submit(t *testing.T, form string, parts ...part) reply {
	t.Helper()
	parts = withFormToken(t, b.clock, func(path string) reply { return b.request(t, "GET", path, "", "", nil) }, form, parts)
	ct, body := multipartBody(t, parts...)
	return b.request(t, "POST", forms.PrefixDefault+"/"+form+"/submit", "", ct, body)
}

// valid is a complete, valid answer to the contact form.
func valid(extra ...part) []part {
	return append([]part{{name: "name", content: "Ann"}, {name: "email", content: "ann@example.test"},
		{name: "topic", content: "support"}, {name: "message", content: "Hello there"}}, extra...)
}

// envelope is a 422 body.
type envelope struct {
	Message string              `json:"message"`
	Errors  map[string][]string `json:"errors"`
}

func (r reply) errors(t *testing.T) envelope {
	t.Helper()
	var e envelope
	require.NoError(t, json.Unmarshal([]byte(r.body), &e), r.body)
	return e
}
