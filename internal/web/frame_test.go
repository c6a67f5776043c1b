package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/web"
)

// A renderer given frame origins: every page names them as its only
// ancestors (and sends no X-Frame-Options); a page asked for one of them
// is drawn for the frame (no header or footer, no CSRF token, the origin
// and theme on the root); any other ?embed= is drawn as ever.
func TestFramedPages(t *testing.T) {
	t.Parallel()
	const host = "https://www.example.com"
	r := newRenderer(t, web.Options{FrameOrigins: []string{host, "http://localhost:8081"}})
	srv := demoServer(t, r)
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	for _, path := range []string{"/demo", "/missing", "/demo?embed=" + url.QueryEscape(host)} {
		res, _ := get(t, client, "GET", srv.URL+path, nil)
		require.Contains(t, res.Header.Get("Content-Security-Policy"), "; frame-ancestors https://www.example.com http://localhost:8081; ", path)
		require.Empty(t, res.Header.Get("X-Frame-Options"), path)
	}
	_, body := get(t, client, "GET", srv.URL+"/demo?theme=dark&embed="+url.QueryEscape(host), nil)
	require.Contains(t, body, `<html lang="en" data-frame="https://www.example.com" data-theme="dark">`)
	require.NotContains(t, body, `<header class="site">`)
	require.NotContains(t, body, `<footer class="site">`)
	require.NotContains(t, body, `class="skip"`)
	for _, other := range []string{"https://evil.example", "https://www.example.com/", "'none'"} {
		_, body = get(t, client, "GET", srv.URL+"/demo?embed="+url.QueryEscape(other), nil)
		require.NotContains(t, body, "data-frame", other)
		require.Contains(t, body, `<header class="site">`, other)
	}

	// A post from the frame redirects to a page drawn for the frame, its
	// flash in the address (a third party's cookie may not come back),
	// signed: shown there, and not when forged.
	framed := "?embed=" + url.QueryEscape(host) + "&theme=light"
	res, _ := get(t, client, "POST", srv.URL+"/demo"+framed, strings.NewReader("ok=1"), "Content-Type", "application/x-www-form-urlencoded")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	to, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "/demo", to.Path)
	require.Equal(t, host, to.Query().Get("embed"))
	require.Equal(t, "light", to.Query().Get("theme"))
	require.NotEmpty(t, to.Query().Get("flash"))
	_, body = get(t, client, "GET", srv.URL+to.String(), nil)
	require.Contains(t, body, `<p>Saved.</p>`)
	forged := to.Query()
	forged.Set("flash", "x"+forged.Get("flash"))
	_, body = get(t, client, "GET", srv.URL+"/demo?"+forged.Encode(), nil)
	require.NotContains(t, body, `Saved.`)
	// A redirect elsewhere is left alone; one to this host keeps the frame.
	for target, kept := range map[string]bool{"/demo?x=1": true, srv.URL + "/bookings/intro": true, "https://other.example/thanks": false,
		"//other.example/x": false} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", srv.URL+"/demo"+framed, nil)
		web.SeeOther(rec, req, target)
		to, err := url.Parse(rec.Header().Get("Location"))
		require.NoError(t, err)
		require.Equal(t, kept, to.Query().Get("embed") == host, target)
	}

	// A framed page's form posts to an address that keeps the frame, so
	// the answer is framed even before the page's script has run.
	framedReq := httptest.NewRequest("GET", srv.URL+"/demo"+framed+"&utm_source=news", nil)
	require.Equal(t, "/forms/x?embed="+url.QueryEscape(host)+"&theme=light", web.InFrame(framedReq, "/forms/x"))
	require.Equal(t, "/b?date=2026-12-01&embed="+url.QueryEscape(host)+"&theme=light&tz=UTC", web.InFrame(framedReq, "/b?tz=UTC&date=2026-12-01"))
	require.Equal(t, "https://other.example/x", web.InFrame(framedReq, "https://other.example/x"))
	require.Equal(t, "/forms/x?tz=UTC", web.InFrame(httptest.NewRequest("GET", srv.URL+"/demo", nil), "/forms/x?tz=UTC"))

	// Not framed, the flash in an address is not read.
	_, body = get(t, client, "GET", srv.URL+"/demo?flash="+url.QueryEscape(to.Query().Get("flash")), nil)
	require.NotContains(t, body, `Saved.`)

	// A page not made for frames refuses them all.
	res, _ = get(t, client, "GET", demoServer(t, newRenderer(t, web.Options{})).URL+"/demo"+framed, nil)
	require.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")

	for _, bad := range []string{"www.example.com", "https://www.example.com/page", "https://*.example.com", "javascript:x", "https://a.com https://b.com"} {
		_, err := web.New(web.Options{AssetPrefix: "/a", FrameOrigins: []string{bad}})
		require.Error(t, err, bad)
	}
}

// The embed script is served as JavaScript any page may load.
func TestEmbedScript(t *testing.T) {
	t.Parallel()
	require.Contains(t, string(web.EmbedScript()), `"groundwork:" + m.event`)
	rec := httptest.NewRecorder()
	web.ServeEmbedScript(rec, httptest.NewRequest("GET", "/forms/embed.js", nil))
	require.Equal(t, "text/javascript; charset=utf-8", rec.Header().Get("Content-Type"))
	require.Equal(t, "*", rec.Header().Get("Access-Control-Allow-Origin"))
	require.Equal(t, string(web.EmbedScript()), rec.Body.String())
}
