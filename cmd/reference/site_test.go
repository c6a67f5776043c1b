package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// A browser gets the API's and the mux's errors as pages in the layout,
// with the headers that matter kept; a script keeps the JSON; a page a
// handler drew itself passes through.
func TestErrorPagesForBrowsers(t *testing.T) {
	t.Parallel()
	r, err := web.New(web.Options{Pages: pagesFS, AssetPrefix: auth.AssetPrefix, Brand: groundwork.Brand{Name: "Northwind"},
		Navigator: groundwork.NavigatorFunc(func(*http.Request) *groundwork.Navigation {
			return &groundwork.Navigation{Name: "Ada", SignOutURL: "/logout", Links: []groundwork.NavLink{{Text: "Dashboard", URL: "/dashboard"}}}
		})})
	require.NoError(t, err)
	s := &site{render: r}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /only-get", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("GET /limited", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "42")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"message":"Too Many Attempts."}`))
	})
	mux.HandleFunc("GET /broken", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"message":"Server Error"}`, http.StatusInternalServerError)
	})
	mux.HandleFunc("GET /forbidden", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
	})
	mux.HandleFunc("GET /own-page", func(w http.ResponseWriter, req *http.Request) {
		r.Error(w, req, http.StatusNotFound, web.ErrorPage{Heading: "No such form", Message: "Gone."})
	})
	h := s.pages(mux)
	do := func(method, path, accept string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	for _, c := range []struct {
		method, path string
		status       int
		heading      string
		more         string
	}{
		{"GET", "/nowhere", 404, "Page not found", `<a href="/">Go to the home page</a>`},
		{"POST", "/only-get", 405, "Not possible here", "Go back to the page you came from"},
		{"GET", "/limited", 429, "Too many requests", `Please try again in 42 seconds.`},
		{"GET", "/broken", 500, "Something went wrong", "It has been logged"},
		{"GET", "/forbidden", 403, "You do not have access to this page", "Your account may not use the page at /forbidden yet. Ask the person who runs this site for access."},
		{"GET", "/own-page", 404, "No such form", "Gone."},
	} {
		w := do(c.method, c.path, browser)
		require.Equal(t, c.status, w.Code, c.path)
		require.Equal(t, "text/html; charset=utf-8", w.Header().Get("Content-Type"), c.path)
		body := w.Body.String()
		require.Contains(t, body, "<h1>"+c.heading+"</h1>", c.path)
		require.Contains(t, body, c.more, c.path)
		require.Contains(t, body, `<a href="/dashboard">Dashboard</a>`, "%s: the signed-in header stays", c.path)
		require.Equal(t, 1, strings.Count(body, "<html"), c.path)
	}
	require.Equal(t, "GET, HEAD", do("POST", "/only-get", browser).Header().Get("Allow"), "the 405 page keeps Allow")
	require.Equal(t, "42", do("GET", "/limited", browser).Header().Get("Retry-After"))
	require.Contains(t, do("GET", "/limited", browser).Body.String(), `<a class="button" href="/limited">Try again</a>`)

	// Scripts keep JSON; a success passes untouched.
	w := do("GET", "/limited", "application/json")
	require.Equal(t, 429, w.Code)
	require.JSONEq(t, `{"message":"Too Many Attempts."}`, w.Body.String())
	w = do("GET", "/nowhere", "")
	require.Equal(t, 404, w.Code)
	require.NotContains(t, w.Body.String(), "<html")
	w = do("GET", "/only-get", browser)
	require.Equal(t, "ok", w.Body.String())
}

// The server's / is a page for a browser (linking the public forms and
// booking pages) and the JSON index of endpoints for anything else; an
// unknown path is the 404 page or the JSON error.
func TestHomeAndNotFound(t *testing.T) {
	t.Parallel()
	base := startServe(t, storetest.DSN(t, store.SQLite))
	get := func(path, accept string) (int, string, string) {
		req, err := http.NewRequest("GET", base+path, nil)
		require.NoError(t, err)
		req.Header.Set("Accept", accept)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var b strings.Builder
		_, _ = io.Copy(&b, res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), b.String()
	}
	code, ct, body := get("/", "text/html")
	require.Equal(t, 200, code)
	require.Equal(t, "text/html; charset=utf-8", ct)
	require.Contains(t, body, `<a class="button" href="/login">Sign in</a>`)
	code, ct, body = get("/", "application/json")
	require.Equal(t, 200, code)
	require.Equal(t, "application/json", ct)
	require.Contains(t, body, `"endpoints":`)
	code, ct, body = get("/nope", "text/html")
	require.Equal(t, 404, code)
	require.Contains(t, body, "<h1>Page not found</h1>")
	require.Equal(t, "text/html; charset=utf-8", ct)
	code, ct, _ = get("/nope", "application/json")
	require.Equal(t, 404, code)
	require.Equal(t, "application/json", ct)
}

// The home page offers what is open: each service with its length and
// price, the forms taking answers, not one closed by its dates.
func TestHomeListsWhatIsOpen(t *testing.T) {
	t.Parallel()
	base, token := formsServer(t, true)
	code, body := request(t, "POST", base+"/api/v1/forms", token, `{"name":"Open form"}`)
	require.Equal(t, 201, code, body)
	code, body = request(t, "POST", base+"/api/v1/forms", token, `{"name":"Closed form","closes_at":"2020-01-01T00:00:00Z"}`)
	require.Equal(t, 201, code, body)
	req, err := http.NewRequest("GET", base+"/", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/html")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	page, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Contains(t, string(page), `<a href="/bookings/consultation">Consultation</a><p class="help">30 minutes`)
	require.Contains(t, string(page), `<a href="/forms/open-form">Open form</a>`)
	require.NotContains(t, string(page), "Closed form", "a form past its closing date is not offered")
}
