package api_test

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/tenant"
)

type colourBody struct {
	Foreground string   `json:"foreground"`
	Colors     []string `json:"colors"`
	Tint       bool     `json:"tint"`
	Count      int      `json:"count"`
	Ratio      float64  `json:"ratio"`
	Structure  struct {
		Headings []struct {
			Level int `json:"level"`
		} `json:"headings"`
	} `json:"structure"`
	Meta map[string]int `json:"meta"`
}

// decodeHandler decodes into colourBody and echoes it, as a real endpoint
// would.
func decodeHandler(limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in colourBody
		if err := api.DecodeJSON(w, r, &in, limit); err != nil {
			api.WriteError(w, r, nil, nil, err)
			return
		}
		reply.WriteData(w, http.StatusOK, in)
	})
}

type envelope struct {
	Message string              `json:"message"`
	Errors  map[string][]string `json:"errors"`
}

func TestDecodeJSON(t *testing.T) {
	t.Parallel()
	big := `{"foreground": "` + strings.Repeat("a", 2000) + `"}`
	tests := []struct {
		name        string
		contentType string
		body        string
		status      int
		message     string
		errors      map[string][]string
	}{
		{"Valid", "application/json", `{"foreground": "#fff", "colors": ["#000"], "unknown": 1}`, 200, "", nil},
		{"ValidWithCharset", "application/json; charset=utf-8", `{"foreground": "#fff"}`, 200, "", nil},
		{"VendorJSON", "application/vnd.api+json", `{}`, 200, "", nil},
		{"EmptyBodyIsEmptyObject", "", ``, 200, "", nil},
		{"WhitespaceBody", "application/json", " \n ", 200, "", nil},
		{"WrongContentType", "text/plain", `{"foreground": "#fff"}`, 415, "The request body must be JSON, sent with Content-Type: application/json.", nil},
		{"FormContentType", "application/x-www-form-urlencoded", `foreground=%23fff`, 415, "The request body must be JSON, sent with Content-Type: application/json.", nil},
		{"NoContentType", "", `{"foreground": "#fff"}`, 415, "The request body must be JSON, sent with Content-Type: application/json.", nil},
		{"Oversized", "application/json", big, 413, "The request body must not be larger than 1 KiB.", nil},
		{"Truncated", "application/json", `{"foreground": "#fff"`, 400, "The request body is not valid JSON: unexpected end of JSON input at byte 21.", nil},
		{"TrailingComma", "application/json", `{"foreground": "#fff",}`, 400, "The request body is not valid JSON: invalid character '}' looking for beginning of object key string at byte 23.", nil},
		{"TrailingGarbage", "application/json", `{"foreground": "#fff"} x`, 400, "The request body is not valid JSON: invalid character 'x' after top-level value at byte 24.", nil},
		{"TwoObjects", "application/json", `{} {}`, 400, "The request body is not valid JSON: invalid character '{' after top-level value at byte 4.", nil},
		{"TopLevelArray", "application/json", `["#fff"]`, 400, "The request body must be a JSON object.", nil},
		{"TopLevelString", "application/json", `"#fff"`, 400, "The request body must be a JSON object.", nil},
		{"TopLevelNull", "application/json", `null`, 400, "The request body must be a JSON object.", nil},
		{"NotJSONAtAll", "application/json", `<xml/>`, 400, "The request body is not valid JSON: invalid character '<' looking for beginning of value at byte 1.", nil},
		{"StringGotNumber", "application/json", `{"foreground": 5}`, 422, "The foreground field must be a string.", map[string][]string{"foreground": {"The foreground field must be a string."}}},
		{"StringGotObject", "application/json", `{"foreground": {"a": 1}}`, 422, "The foreground field must be a string.", map[string][]string{"foreground": {"The foreground field must be a string."}}},
		{"ArrayElement", "application/json", `{"colors": ["#fff", 3]}`, 422, "The colors.1 field must be a string.", map[string][]string{"colors.1": {"The colors.1 field must be a string."}}},
		{"ArrayGotString", "application/json", `{"colors": "#fff"}`, 422, "The colors field must be an array.", map[string][]string{"colors": {"The colors field must be an array."}}},
		{"BoolGotString", "application/json", `{"tint": "yes"}`, 422, "The tint field must be true or false.", map[string][]string{"tint": {"The tint field must be true or false."}}},
		{"IntGotFloat", "application/json", `{"count": 1.5}`, 422, "The count field must be an integer.", map[string][]string{"count": {"The count field must be an integer."}}},
		{"IntOverflow", "application/json", `{"count": 1e400}`, 422, "The count field must be an integer.", map[string][]string{"count": {"The count field must be an integer."}}},
		{"FloatGotString", "application/json", `{"ratio": "4.5"}`, 422, "The ratio field must be a number.", map[string][]string{"ratio": {"The ratio field must be a number."}}},
		{"NestedArrayObject", "application/json", `{"structure": {"headings": [{"level": 1}, {"level": "two"}]}}`, 422, "The structure.headings.1.level field must be an integer.", map[string][]string{"structure.headings.1.level": {"The structure.headings.1.level field must be an integer."}}},
		{"ObjectGotArray", "application/json", `{"structure": [1]}`, 422, "The structure field must be an object.", map[string][]string{"structure": {"The structure field must be an object."}}},
		{"MapValue", "application/json", `{"meta": {"a": 1, "b": "x"}}`, 422, "The meta.b field must be an integer.", map[string][]string{"meta.b": {"The meta.b field must be an integer."}}},
		{"EscapedKeys", "application/json", `{"colors": ["\u0023fff", {"x": "]"}]}`, 422, "The colors.1 field must be a string.", map[string][]string{"colors.1": {"The colors.1 field must be a string."}}},
		{"NULEscape", "application/json", `{"foreground": "#f\u0000ff"}`, 400, `The request body must not contain NUL characters (\u0000).`, nil},
		{"NULEscapeInKey", "application/json", `{"a\u0000": 1}`, 400, `The request body must not contain NUL characters (\u0000).`, nil},
		{"EscapedBackslashBeforeU0000", "application/json", `{"foreground": "\\u0000 and \\\\u0000"}`, 200, "", nil},
		{"NULAfterEscapedBackslash", "application/json", `{"foreground": "\\\u0000"}`, 400, `The request body must not contain NUL characters (\u0000).`, nil},
		{"DeepNesting", "application/json", `{"foreground": ` + strings.Repeat("[", 400) + strings.Repeat("]", 400) + `}`, 422, "The foreground field must be a string.", map[string][]string{"foreground": {"The foreground field must be a string."}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(tc.body))
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			w := httptest.NewRecorder()
			decodeHandler(1024).ServeHTTP(w, r)
			require.Equal(t, tc.status, w.Code, w.Body.String())
			require.Equal(t, "application/json", w.Header().Get("Content-Type"))
			if tc.status == 200 {
				return
			}
			var env envelope
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &env))
			require.Equal(t, tc.message, env.Message)
			require.Equal(t, tc.errors, env.Errors)
		})
	}
}

func TestDecodeJSONOversizedByHeader(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(`{}`))
	r.Header.Set("Content-Type", "application/json")
	r.ContentLength = api.MaxBodyDefault + 1
	w := httptest.NewRecorder()
	decodeHandler(0).ServeHTTP(w, r)
	require.Equal(t, 413, w.Code)
	require.JSONEq(t, `{"message": "The request body must not be larger than 1 MiB."}`, w.Body.String())
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"colors": ["#fff", 3]}`, `{"structure": {"headings": [{"level": "x"}]}}`, `[`, `{"a":}`, `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		decodeHandler(4096).ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%q answered %d: %s", body, w.Code, w.Body)
		}
		if w.Code != 200 {
			var env envelope
			if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || env.Message == "" {
				t.Fatalf("%q answered %d without the envelope: %s", body, w.Code, w.Body)
			}
		}
	})
}

func TestValidationError(t *testing.T) {
	t.Parallel()
	v := &api.ValidationError{}
	require.NoError(t, v.Err())
	require.True(t, v.Empty())

	v.Add("foreground", api.MsgRequired("foreground"))
	require.Equal(t, "The foreground field is required.", v.Message())
	v.Add("colors.1", api.MsgFormat("colors.1"))
	require.Equal(t, "The foreground field is required. (and 1 more error)", v.Message())
	v.Add("foreground", api.MsgString("foreground"))
	v.Add("per_page", api.MsgBetween("per_page", 1, 100))
	require.Equal(t, "The foreground field is required. (and 3 more errors)", v.Error())
	require.True(t, v.Has("colors.1"))
	require.Equal(t, []string{"foreground", "colors.1", "per_page"}, v.FieldNames())

	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.Equal(t, `{"message":"The foreground field is required. (and 3 more errors)","errors":{"foreground":["The foreground field is required.","The foreground field must be a string."],"colors.1":["The colors.1 field format is invalid."],"per_page":["The per page field must be between 1 and 100."]}}`, string(b))

	var target *api.ValidationError
	require.ErrorAs(t, error(v), &target)
	status, _, _, ok := api.Table(nil).Lookup(v)
	require.True(t, ok)
	require.Equal(t, 422, status)
}

var errGone = errors.New("gone")

func TestWriteError(t *testing.T) {
	t.Parallel()
	table := api.Table{{Err: errGone, Status: 404, Message: "No such thing."}}
	cases := []struct {
		err    error
		status int
		body   string
	}{
		{errGone, 404, `{"message":"No such thing."}`},
		{errors.Join(errors.New("ctx"), errGone), 404, `{"message":"No such thing."}`},
		{api.ErrForbidden, 403, `{"message":"This action is unauthorized."}`},
		{api.ErrUnauthenticated, 401, `{"message":"Unauthenticated."}`},
		{api.Errorf(409, "Taken %s.", "x"), 409, `{"message":"Taken x."}`},
		{errors.New("driver exploded: password=hunter2"), 500, `{"message":"Server Error."}`},
	}
	for _, c := range cases {
		w := httptest.NewRecorder()
		api.WriteError(w, httptest.NewRequest("GET", "/", nil), nil, table, c.err)
		require.Equal(t, c.status, w.Code)
		require.JSONEq(t, c.body, w.Body.String())
	}
	w := httptest.NewRecorder()
	api.WriteError(w, httptest.NewRequest("GET", "/", nil), nil, table, api.ErrUnauthenticated)
	require.Equal(t, "Bearer", w.Header().Get("WWW-Authenticate"))

	// A 5xx is logged, unless it says it was logged where it happened.
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	api.WriteError(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil), logger, table,
		&api.Error{Status: 503, Message: "Busy.", Err: errors.New("queue full"), Logged: true})
	require.Empty(t, logs.String())
	api.WriteError(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil), logger, table,
		&api.Error{Status: 503, Message: "Busy.", Err: errors.New("queue full")})
	require.Contains(t, logs.String(), "queue full")
}

func TestCan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		granted []string
		ability string
		want    bool
	}{
		{[]string{"*"}, "forms:create", true},
		{[]string{"*"}, "webhookSubscription.delete", true},
		{[]string{"forms:*"}, "forms:create", true},
		{[]string{"forms:*"}, "forms:submissions:export", true},
		{[]string{"forms:*"}, "forms:", false},
		{[]string{"forms:*"}, "forms", false},
		{[]string{"forms:*"}, "formsx:create", false},
		{[]string{"forms:*"}, "bookings:create", false},
		{[]string{"forms:*"}, "forms.create", false},
		{[]string{"webhookSubscription.*"}, "webhookSubscription.create", true},
		{[]string{"webhookSubscription.*"}, "webhookSubscription.*", true},
		{[]string{"webhookSubscription.create"}, "webhookSubscription.*", false},
		{[]string{"forms:create"}, "forms:create", true},
		{[]string{"forms:create"}, "forms:delete", false},
		{[]string{"forms:view", "a11y:ai"}, "a11y:ai", true},
		{[]string{"Forms:*"}, "forms:create", false},
		{[]string{"fo*"}, "forms:create", false},
		{nil, "forms:create", false},
		{[]string{"*"}, "", false},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, groundwork.Can(tc.granted, tc.ability), "%v can %q", tc.granted, tc.ability)
	}
}

type fakeTokens map[string][]string

func (f fakeTokens) VerifyToken(_ context.Context, token string) (string, []string, error) {
	if token == "broken" {
		return "", nil, errors.New("db down")
	}
	abilities, ok := f[token]
	if !ok {
		return "", nil, nil
	}
	return "token:" + token, abilities, nil
}

type denyAll struct{}

func (denyAll) Authorize(context.Context, string, []string, string) (bool, error) { return false, nil }

func TestGuard(t *testing.T) {
	t.Parallel()
	tokens := fakeTokens{"good": {"forms:*"}, "narrow": {"forms:view"}, "acme": {"forms:*", "tenant:acme"}}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := groundwork.CallerFrom(r.Context())
		if t, bound := tenant.Of(r.Context()); bound {
			c.ID += " for " + t
		}
		reply.WriteMessage(w, 200, c.ID)
	})
	g := &api.Guard{Tokens: tokens}
	h := g.Require("forms:create", ok)
	do := func(h http.Handler, auth string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/", nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for _, auth := range []string{"", "Bearer", "Bearer ", "Basic Z29vZA==", "Token good", "Bearer unknown", "good"} {
		w := do(h, auth)
		require.Equal(t, 401, w.Code, auth)
		require.JSONEq(t, `{"message": "Unauthenticated."}`, w.Body.String())
	}
	w := do(h, "Bearer narrow")
	require.Equal(t, 403, w.Code)
	require.JSONEq(t, `{"message": "This action is unauthorized.", "ability": "forms:create"}`, w.Body.String())
	w = do(h, "bearer good")
	require.Equal(t, 200, w.Code)
	require.JSONEq(t, `{"message": "token:good"}`, w.Body.String())
	require.Equal(t, 200, do(g.Require("", ok), "Bearer narrow").Code, "any valid token passes an empty ability")
	require.Equal(t, 503, do(h, "Bearer broken").Code)
	require.JSONEq(t, `{"message": "token:acme for acme"}`, do(h, "Bearer acme").Body.String(), "a token bound to a tenant acts for it")

	custom := &api.Guard{Tokens: tokens, Authorizer: denyAll{}}
	require.Equal(t, 403, do(custom.Require("forms:create", ok), "Bearer good").Code)
}

func TestCheckRequestText(t *testing.T) {
	t.Parallel()
	for target, want := range map[string]int{
		"/forms/contact?page=2":       0,
		"/forms/caf%C3%A9":            0,
		"/forms/%00":                  404,
		"/forms/%FF":                  404,
		"/forms/a%C3%28":              404,
		"/forms/x?page=%00":           422,
		"/forms/x?q=%E2%82":           422,
		"/forms/x?%FF=1":              400,
		"/forms/x?a=%zz":              400,
		"/forms/x?a=1&a=%00":          422,
		"/forms/x?=%FF":               400, // no name to give
		"/forms/x?=1":                 0,
		"/forms/x?filter%5Bname%5D=é": 0,
	} {
		e := api.CheckRequestText(httptest.NewRequest("GET", target, nil))
		if want == 0 {
			require.Nil(t, e, target)
			continue
		}
		require.NotNil(t, e, target)
		require.Equal(t, want, e.Status, target)
	}
	e := api.CheckRequestText(httptest.NewRequest("GET", "/x?per_page=%FF", nil))
	var ve *groundwork.ValidationError
	require.ErrorAs(t, e, &ve)
	require.Equal(t, map[string][]string{"per_page": {"The per page field must be text: valid UTF-8 without NUL characters."}}, ve.Fields())
}

type kindError struct{ kind string }

func (e kindError) Error() string { return "kind " + e.kind }

// Route handlers return their errors; the Base answers each through its
// table: a sentinel, a domain type (As), another envelope (Body), and an
// unexpected error as a 500. A GET route answers HEAD.
func TestBaseAnswersReturnedErrors(t *testing.T) {
	t.Parallel()
	errGone := errors.New("gone")
	b, err := api.NewBase("/x", "", groundwork.HTTPOptions{})
	require.NoError(t, err)
	b.Errors = api.Table{
		{As: func(err error) *api.Error {
			var k kindError
			if errors.As(err, &k) {
				return api.Errorf(http.StatusConflict, "Kind %s.", k.kind)
			}
			return nil
		}},
		{Err: errGone, Status: http.StatusGone, Message: "Gone."},
	}
	routes := map[string]error{
		"/sentinel": fmt.Errorf("wrapped: %w", errGone),
		"/kind":     kindError{"blue"},
		"/body":     &api.Error{Status: http.StatusTeapot, Body: map[string]string{"code": "teapot"}},
		"/boom":     errors.New("boom"),
		"/ok":       nil,
	}
	for path, e := range routes {
		b.Handle(path, api.Methods{http.MethodGet: b.Func(func(w http.ResponseWriter, r *http.Request) error {
			if e == nil {
				reply.WriteMessage(w, http.StatusOK, "fine")
			}
			return e
		})})
	}
	for path, want := range map[string]struct {
		status int
		body   string
	}{
		"/sentinel": {http.StatusGone, `{"message":"Gone."}`},
		"/kind":     {http.StatusConflict, `{"message":"Kind blue."}`},
		"/body":     {http.StatusTeapot, `{"code":"teapot"}`},
		"/boom":     {http.StatusInternalServerError, `{"message":"Server Error."}`},
		"/ok":       {http.StatusOK, `{"message":"fine"}`},
	} {
		w := httptest.NewRecorder()
		b.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/x"+path, nil))
		require.Equal(t, want.status, w.Code, path)
		require.JSONEq(t, want.body, w.Body.String(), path)
	}
	w := httptest.NewRecorder()
	b.ServeHTTP(w, httptest.NewRequest(http.MethodHead, "/x/ok", nil))
	require.Equal(t, http.StatusOK, w.Code, "HEAD is served by GET's handler")
	w = httptest.NewRecorder()
	b.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/x/ok", nil))
	require.Equal(t, http.StatusMethodNotAllowed, w.Code)
	require.Equal(t, "GET", w.Header().Get("Allow"))
}

// countingBody is a request body that counts what was read of it.
type countingBody struct {
	*strings.Reader
	read int
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.Reader.Read(p)
	b.read += n
	return n, err
}

func (*countingBody) Close() error { return nil }

// ServeDrained reads what is left of a refused body, whether the writer
// it is handed is a plain one, a StatusWriter that has seen nothing (the
// metrics' own, which it then uses and which learns the status) or one
// that has (which it leaves alone); an accepted request's body is left.
func TestServeDrained(t *testing.T) {
	t.Parallel()
	const size = 64 << 10
	refuse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = r.Body.Read(make([]byte, 100))
		http.Error(w, "too large", http.StatusRequestEntityTooLarge)
	})
	accept := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = r.Body.Read(make([]byte, 100))
		w.WriteHeader(http.StatusNoContent)
	})
	for _, c := range []struct {
		name      string
		h         http.Handler
		outer     *api.StatusWriter // nil: a plain writer
		wantRead  int
		wantOuter int
	}{
		{"Plain", refuse, nil, size, 0},
		{"UnderAFreshStatusWriter", refuse, &api.StatusWriter{}, size, http.StatusRequestEntityTooLarge},
		{"UnderAUsedStatusWriter", refuse, &api.StatusWriter{Status: http.StatusOK}, size, http.StatusOK},
		{"Accepted", accept, &api.StatusWriter{}, 100, http.StatusNoContent},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := &countingBody{Reader: strings.NewReader(strings.Repeat("x", size))}
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r.Body = body
			rec := httptest.NewRecorder()
			var w http.ResponseWriter = rec
			if c.outer != nil {
				c.outer.ResponseWriter = rec
				w = c.outer
			}
			api.ServeDrained(w, r, c.h)
			require.Equal(t, c.wantRead, body.read)
			if c.outer != nil {
				require.Equal(t, c.wantOuter, c.outer.Status)
			}
		})
	}
}

// A request whose client went away (its context canceled while it was
// served) is answered with the status 499 alone, whatever failed after:
// a query canceled with it is not the database away, so no outage is
// recorded and nothing is logged above debug.
func TestClientGoneIsNotAnOutage(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	before, _ := api.LastOutage()
	for _, err := range []error{driver.ErrBadConn, context.Canceled, fmt.Errorf("forms: list: %w", syscall.ECONNRESET), errors.New("interrupted")} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		w := httptest.NewRecorder()
		api.WriteError(w, httptest.NewRequest("GET", "/", nil).WithContext(ctx), logger, nil, err)
		require.Equal(t, api.StatusClientClosedRequest, w.Code, err)
		require.Empty(t, w.Body.String(), "nothing the client cannot read")
		require.Equal(t, "close", w.Header().Get("Connection"))
	}
	after, _ := api.LastOutage()
	require.Equal(t, before, after, "no outage recorded")
	require.Empty(t, logs.String())

	// The same failure for a client still there is the database away.
	w := httptest.NewRecorder()
	api.WriteError(w, httptest.NewRequest("GET", "/", nil), logger, nil, driver.ErrBadConn)
	require.Equal(t, http.StatusServiceUnavailable, w.Code)
	require.Contains(t, logs.String(), "database unavailable")
}

// Answer writes a resource as {"data": …}, nothing with a 204 for none,
// and leaves an error to the error writer; PathID takes positive numbers
// only.
func TestAnswerAndPathID(t *testing.T) {
	w := httptest.NewRecorder()
	require.NoError(t, api.Answer(w, http.StatusCreated, map[string]int{"id": 7}, nil))
	require.Equal(t, http.StatusCreated, w.Code)
	require.JSONEq(t, `{"data":{"id":7}}`, w.Body.String())
	w = httptest.NewRecorder()
	require.NoError(t, api.Answer(w, http.StatusOK, nil, nil))
	require.Equal(t, http.StatusNoContent, w.Code)
	require.Empty(t, w.Body.String())
	w = httptest.NewRecorder()
	boom := errors.New("boom")
	require.ErrorIs(t, api.Answer(w, http.StatusOK, "x", boom), boom)
	require.Empty(t, w.Body.String(), "the error writer answers, not Answer")
	for value, want := range map[string]int64{"12": 12, "0": 0, "-3": 0, "x": 0, "": 0} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.SetPathValue("id", value)
		id, ok := api.PathID(r, "id")
		require.Equal(t, want != 0, ok, value)
		require.Equal(t, want, id, value)
	}
}
