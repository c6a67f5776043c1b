package web

import (
	_ "embed"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Pages inside another site's frame. A handler given the origins that may
// frame it (Options.FrameOrigins) sends, with every page, a
// Content-Security-Policy frame-ancestors naming those origins and no
// X-Frame-Options; every other page stays unframeable (frame-ancestors
// 'none', X-Frame-Options: DENY).
//
// A page asked for with ?embed=ORIGIN, ORIGIN one of those, is drawn for
// the frame: without the site's header and footer, in the theme ?theme=
// asks for (light or dark; the reader's own otherwise), with its origin on
// the root element, where the page script finds whom to tell its height
// and its events (postMessage to that origin alone). The frame is a third
// party inside the host's site, where browsers keep or refuse cookies as
// they please, so nothing in it may depend on one: its forms carry no
// double-submit token (the origin check stands, and the page is public),
// and a message for the page a post redirects to rides in its address,
// signed (see SeeOther and TakeFlash), not in a cookie.
const (
	// EmbedQuery names the framing origin.
	EmbedQuery = "embed"
	// ThemeQuery names the theme of a framed page: "light" or "dark".
	ThemeQuery = "theme"
	// flashQuery carries a framed page's flash across a redirect.
	flashQuery = "flash"
)

//go:embed embed/embed.js
var embedScript []byte

// EmbedScript is the script a host's page loads to frame the pages (see
// its own comment for what it does): served at a stable address, as hosts
// name it in their pages.
func EmbedScript() []byte { return embedScript }

// ServeEmbedScript answers with EmbedScript, cached for an hour.
func ServeEmbedScript(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Access-Control-Allow-Origin", "*")
	if r.Method != http.MethodHead {
		_, _ = w.Write(embedScript)
	}
}

// CheckFrameOrigins checks that each of origins is an origin
// (scheme://host[:port], http or https, nothing after), as a
// frame-ancestors source and a postMessage target must be.
func CheckFrameOrigins(origins []string) error {
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" ||
			u.Fragment != "" || u.User != nil || strings.ContainsAny(o, " ;,*'") {
			return errors.New("web: a frame origin must be scheme://host[:port], like https://www.example.com: " + o)
		}
	}
	return nil
}

// frameOf is the origin a request asks its page to be drawn for (its
// ?embed=), when the renderer allows it; "" when none.
func (r *Renderer) frameOf(req *http.Request) string {
	if len(r.frameOrigins) == 0 || req.URL.RawQuery == "" {
		return ""
	}
	o := req.URL.Query().Get(EmbedQuery)
	if o == "" || !slices.Contains(r.frameOrigins, o) {
		return ""
	}
	return o
}

// Framed reports whether req asks for its page drawn for a frame of one
// of the origins allowed (see EmbedQuery).
func (r *Renderer) Framed(req *http.Request) bool { return r.frameOf(req) != "" }

// themeOf is a framed page's theme: "light" or "dark", or "" for the
// reader's own.
func themeOf(req *http.Request) string {
	switch t := req.URL.Query().Get(ThemeQuery); t {
	case "light", "dark":
		return t
	}
	return ""
}

// framed is the query a framed request's links and redirects keep: its
// embed, theme and lang parameters (nil when it is not framed).
func framed(req *http.Request) url.Values {
	if req.URL.RawQuery == "" {
		return nil
	}
	q := req.URL.Query()
	if q.Get(EmbedQuery) == "" {
		return nil
	}
	out := url.Values{}
	for _, k := range []string{EmbedQuery, ThemeQuery, "lang"} {
		if v := q.Get(k); v != "" {
			out.Set(k, v)
		}
	}
	return out
}

// keepFrame adds to target, an address on this site ("/...", or an
// absolute one on the request's own host: a routing form's booking page),
// the framed request's parameters and the flash this response set, so the
// page the redirect leads to is drawn for the frame too, with its message.
// Any other target is returned as it is.
func keepFrame(w http.ResponseWriter, req *http.Request, target string) string {
	u, q := inFrame(req, target)
	if u == nil {
		return target
	}
	for _, c := range w.Header()["Set-Cookie"] {
		if value, ok := strings.CutPrefix(c, flashCookie+"="); ok {
			if value, _, _ = strings.Cut(value, ";"); value != "" {
				q.Set(flashQuery, value)
			}
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// InFrame is target, an address on this site, with the parameters that
// draw its page for the frame req was drawn for (none when req is not
// framed): a framed page's form posts there, so the page the post answers
// with is framed too, whether or not the page's script has run (it adds
// them as well, to the links and forms the server did not).
func InFrame(req *http.Request, target string) string {
	u, q := inFrame(req, target)
	if u == nil {
		return target
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// inFrame parses target and gives its query with the framed request's
// parameters added; nil when req is not framed or target is not on this
// site ("/...", or absolute on the request's own host).
func inFrame(req *http.Request, target string) (*url.URL, url.Values) {
	keep := framed(req)
	if keep == nil {
		return nil, nil
	}
	u, err := url.Parse(target)
	if err != nil || u.Host != "" && !strings.EqualFold(u.Host, req.Host) || u.Host == "" && !strings.HasPrefix(u.Path, "/") {
		return nil, nil
	}
	q := u.Query()
	for k, vs := range keep {
		if !q.Has(k) {
			q[k] = vs
		}
	}
	return u, q
}
