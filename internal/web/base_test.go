package web_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/store/driverless"
)

var errGone = errors.New("gone")

// newBase is a base at /things with one page, /things/{name}, whose
// handler returns what fail gives for its name.
func newBase(t *testing.T, logs *bytes.Buffer, fail func(name string) error) *web.Base {
	t.Helper()
	pages := fstest.MapFS{"thing.html": {Data: []byte(`{{define "content"}}<h1>{{.Data}}</h1>{{end}}`)}}
	b, err := web.NewBase(web.BaseOptions{Domain: "things", Default: "/things", Pages: pages, Protect: true, MaxFormBytes: 16,
		Logger:   slog.New(slog.NewTextHandler(logs, nil)),
		NotFound: web.ErrorPage{Heading: "No such thing", Message: "Nothing is here."},
		Failure:  web.Problem{Status: 503, ErrorPage: web.ErrorPage{Heading: "Things unavailable", Message: "Try later."}, JSON: "Service Unavailable."},
		Explain: func(err error) *web.Problem {
			if errors.Is(err, errGone) {
				return &web.Problem{Status: http.StatusGone, ErrorPage: web.ErrorPage{Heading: "Gone", Message: "It went."}}
			}
			return nil
		}})
	require.NoError(t, err)
	b.Mux.HandleFunc("GET /things/{name}", b.Func(func(w http.ResponseWriter, r *http.Request) error {
		if err := fail(r.PathValue("name")); err != nil {
			return err
		}
		b.Render.Render(w, r, 200, "thing.html", &web.Page{Title: "Thing", Data: r.PathValue("name")})
		return nil
	}))
	b.Mux.HandleFunc("POST /things/{name}", b.Func(func(w http.ResponseWriter, r *http.Request) error {
		b.Render.Render(w, r, 200, "thing.html", &web.Page{Title: "Thing", Data: r.PostFormValue("a")})
		return nil
	}))
	return b
}

// The base's one error path: a returned Problem as it says, a domain
// error through Explain, anything else the logged Failure (JSON for a
// client that asked), addresses that name nothing or are not text.
func TestBaseAnswersEveryFailureAsAPage(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	b := newBase(t, &logs, func(name string) error {
		switch name {
		case "teapot":
			return &web.Problem{Status: 418, Header: http.Header{"Retry-After": {"7"}}, ErrorPage: web.ErrorPage{Heading: "Short and stout", Message: "Tip me over."}}
		case "gone":
			return errGone
		case "broken":
			return errors.New("disk on fire")
		}
		return nil
	})
	get := func(path string, header ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		b.ServeHTTP(w, r)
		return w
	}
	w := get("/things/kettle")
	require.Equal(t, 200, w.Code)
	require.Contains(t, w.Body.String(), "<h1>kettle</h1>")

	w = get("/things/teapot")
	require.Equal(t, 418, w.Code)
	require.Equal(t, "7", w.Header().Get("Retry-After"))
	require.Contains(t, w.Body.String(), "<h1>Short and stout</h1>")

	w = get("/things/gone")
	require.Equal(t, 410, w.Code)
	require.Contains(t, w.Body.String(), "<h1>Gone</h1>")
	require.Empty(t, logs.String(), "an explained error is not logged")

	w = get("/things/broken")
	require.Equal(t, 503, w.Code)
	require.Contains(t, w.Body.String(), "<h1>Things unavailable</h1>")
	require.NotContains(t, w.Body.String(), "disk on fire")
	require.Contains(t, logs.String(), "disk on fire")
	require.Contains(t, logs.String(), "path=/things/broken")
	w = get("/things/broken", "Accept", "application/json")
	require.Equal(t, 503, w.Code)
	require.JSONEq(t, `{"message":"Service Unavailable."}`, w.Body.String())

	for _, path := range []string{"/things/a/b", "/things/", "/things/n%00ul"} {
		w = get(path)
		require.Equal(t, 404, w.Code, path)
		require.Contains(t, w.Body.String(), "<h1>No such thing</h1>", path)
		require.Contains(t, w.Header().Get("Content-Security-Policy"), "default-src 'none'", path)
	}
	w = get("/things/kettle?q=%ff")
	require.Equal(t, 422, w.Code)
	require.Contains(t, w.Body.String(), "<h1>Address not understood</h1>")

	// A client that went away while its page was made: the status 499
	// alone, the failure (a query canceled with it) not logged as one.
	logs.Reset()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w = httptest.NewRecorder()
	b.ServeHTTP(w, httptest.NewRequest("GET", "/things/broken", nil).WithContext(ctx))
	require.Equal(t, 499, w.Code)
	require.Empty(t, w.Body.String())
	require.Empty(t, logs.String())
}

// A urlencoded body is read within MaxFormBytes before the handler and
// Protect: 413 past it, 400 for one that does not parse; any other body
// is cut at the limit; Protect refuses another origin's post.
func TestBaseForms(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	b := newBase(t, &logs, func(string) error { return nil })
	post := func(body string, header ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/things/kettle", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		b.ServeHTTP(w, r)
		return w
	}
	w := post("a=b")
	require.Equal(t, 200, w.Code)
	require.Contains(t, w.Body.String(), "<h1>b</h1>")
	w = post("a=" + strings.Repeat("a", 40))
	require.Equal(t, 413, w.Code)
	require.Contains(t, w.Body.String(), "<h1>Form not understood</h1>")
	require.Equal(t, 400, post("a=%zz").Code)
	w = post("--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n"+strings.Repeat("a", 40)+"\r\n--x--\r\n", "Content-Type", "multipart/form-data; boundary=x")
	require.Equal(t, 200, w.Code)
	require.Contains(t, w.Body.String(), "<h1></h1>", "a multipart body past the limit reads as empty")
	w = post("a=b", "Sec-Fetch-Site", "cross-site")
	require.Equal(t, 403, w.Code)
	require.Contains(t, w.Body.String(), "<h1>Request refused</h1>")
	require.Empty(t, logs.String())
}

// Hit: nil within the limit, then a 429 Problem that says how long to
// wait and offers the way back.
func TestBaseHit(t *testing.T) {
	t.Parallel()
	th := &throttle.Throttle{Name: "t", Limiter: driverless.NewMemoryRateLimiter(nil), Limit: 1, Window: 60e9, Message: "Slow down."}
	r := httptest.NewRequest("GET", "/things/kettle", nil)
	back := web.ErrorPage{Link: "/things/kettle", LinkText: "Back"}
	require.NoError(t, web.Hit(httptest.NewRecorder(), r, th, "k", back))
	w := httptest.NewRecorder()
	err := web.Hit(w, r, th, "k", back)
	var p *web.Problem
	require.ErrorAs(t, err, &p)
	require.Equal(t, 429, p.Status)
	require.Equal(t, "Too many requests", p.Heading)
	require.Regexp(t, `^Too many requests\. Please wait \d+ seconds and try again\.$`, p.Message)
	require.Equal(t, "/things/kettle", p.Link)
	require.NotEmpty(t, w.Header().Get("Retry-After"))
}
