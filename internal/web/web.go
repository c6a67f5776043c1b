// Package web is the page layer every domain's HTML stands on: one layout
// a host may replace, form fields tied to their errors, an error summary,
// flash messages carried across a redirect, Post/Redirect/Get, protection
// of state-changing requests against other origins, security headers, and
// one small stylesheet served with long-lived caching.
//
// Pages work without JavaScript. One small optional script, from the
// page's own origin (the only script the Content-Security-Policy allows),
// adds copy buttons and picks the reader's time zone where a page offers
// a choice.
//
// A domain embeds its page templates, each defining "content", and makes a
// [Renderer] from them; a host may hand an fs.FS whose files replace any
// template by name (the layout, the field helpers, a domain's page) or the
// stylesheet.
package web

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/groundwork-go/groundwork"
)

//go:embed templates static
var builtin embed.FS

// The built-in files a host may replace (named once, in the root
// package).
const (
	LayoutTemplate = groundwork.LayoutTemplate
	FieldsTemplate = groundwork.FieldsTemplate
	ErrorTemplate  = groundwork.ErrorTemplate
	Stylesheet     = groundwork.Stylesheet
	Script         = groundwork.Script
)

// Options configures [New].
type Options struct {
	// Pages holds the domain's page templates (files ending .html, each
	// defining "content"), rendered by their path in it. A file whose
	// name starts with "_" is a partial instead: the templates it defines
	// are shared by every page (and it may be replaced like a page). Embed
	// such files with the "all:" prefix, which go:embed needs for names
	// starting with "_".
	Pages fs.FS
	// Override replaces templates and the stylesheet: a file here with
	// the name of a built-in one (LayoutTemplate, FieldsTemplate,
	// ErrorTemplate, Stylesheet) or the path of a domain page is used
	// instead of it.
	Override fs.FS
	// AssetPrefix is the path where [Renderer.Assets] is mounted, e.g.
	// "/forms/_assets".
	AssetPrefix string
	// Key signs flash cookies. Give every instance the same key; a random
	// one, good for this process only, when nil.
	Key []byte
	// Lang is the pages' language; "en" when empty.
	Lang string
	// Funcs are functions the domain's templates may call.
	Funcs template.FuncMap
	// Logger receives failures to render; nil discards.
	Logger *slog.Logger
	// Brand names the site in every page's header, footer and title.
	Brand groundwork.Brand
	// Navigator finds the signed-in user for the header of every page
	// (a page's own Nav wins); guests' headers only when nil.
	Navigator groundwork.Navigator
	// FrameOrigins are the origins (https://www.example.com) whose pages
	// may frame these pages; none when empty, and then no page may be
	// framed. See EmbedQuery.
	FrameOrigins []string
}

// Renderer draws a domain's pages in the layout. Safe for concurrent use.
type Renderer struct {
	pages map[string]*template.Template
	// assets are the stylesheet and the script by hashed file name;
	// stylesheet and script are their URL paths.
	assets             map[string]asset
	stylesheet, script string
	key                []byte
	lang               string
	logger             *slog.Logger
	brand              groundwork.Brand
	navigator          groundwork.Navigator
	frameOrigins       []string
}

// New parses the layout, the helpers and every page.
func New(o Options) (*Renderer, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Lang == "" {
		o.Lang = "en"
	}
	if !strings.HasPrefix(o.AssetPrefix, "/") {
		return nil, errors.New("web: the asset prefix must start with /")
	}
	if err := CheckFrameOrigins(o.FrameOrigins); err != nil {
		return nil, err
	}
	read := func(name string, fallback fs.FS) ([]byte, error) {
		if o.Override != nil {
			if b, err := fs.ReadFile(o.Override, name); err == nil {
				return b, nil
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("web: %s: %w", name, err)
			}
		}
		return fs.ReadFile(fallback, name)
	}
	templates, _ := fs.Sub(builtin, "templates")
	static, _ := fs.Sub(builtin, "static")
	base := template.New("").Funcs(o.Funcs)
	for _, name := range []string{LayoutTemplate, FieldsTemplate} {
		text, err := read(name, templates)
		if err != nil {
			return nil, fmt.Errorf("web: %s: %w", name, err)
		}
		if _, err := base.New(name).Parse(string(text)); err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
	}
	if base.Lookup("layout") == nil {
		return nil, errors.New(`web: the layout defines no "layout" template`)
	}
	if o.Brand.HomeURL == "" {
		o.Brand.HomeURL = "/"
	}
	r := &Renderer{pages: map[string]*template.Template{}, key: o.Key, lang: o.Lang, logger: o.Logger, brand: o.Brand, navigator: o.Navigator,
		frameOrigins: slices.Clone(o.FrameOrigins)}
	add := func(name string, fallback fs.FS) error {
		text, err := read(name, fallback)
		if err != nil {
			return fmt.Errorf("web: %s: %w", name, err)
		}
		t, err := template.Must(base.Clone()).New(name).Parse(string(text))
		if err != nil {
			return fmt.Errorf("web: %w", err)
		}
		if t.Lookup("content") == nil {
			return fmt.Errorf(`web: %s defines no "content" template`, name)
		}
		r.pages[name] = t
		return nil
	}
	if err := add(ErrorTemplate, templates); err != nil {
		return nil, err
	}
	if o.Pages != nil {
		// Partials ("_name.html") first: they join the base every page
		// is parsed on, so a domain's pages can share templates.
		var pages []string
		err := fs.WalkDir(o.Pages, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || path.Ext(p) != ".html" {
				return err
			}
			if !strings.HasPrefix(path.Base(p), "_") {
				pages = append(pages, p)
				return nil
			}
			text, err := read(p, o.Pages)
			if err != nil {
				return fmt.Errorf("web: %s: %w", p, err)
			}
			if _, err := base.New(p).Parse(string(text)); err != nil {
				return fmt.Errorf("web: %w", err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, p := range pages {
			if err := add(p, o.Pages); err != nil {
				return nil, err
			}
		}
	}
	r.assets = map[string]asset{}
	for _, f := range []struct {
		name, contentType string
		url               *string
	}{{Stylesheet, "text/css; charset=utf-8", &r.stylesheet}, {Script, "text/javascript; charset=utf-8", &r.script}} {
		body, err := read(f.name, static)
		if err != nil {
			return nil, fmt.Errorf("web: %s: %w", f.name, err)
		}
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:6])
		file := strings.TrimSuffix(f.name, path.Ext(f.name)) + "." + hash + path.Ext(f.name)
		r.assets[file] = asset{body: body, contentType: f.contentType, etag: `"` + hash + `"`}
		*f.url = strings.TrimSuffix(o.AssetPrefix, "/") + "/" + file
	}
	if r.key == nil {
		r.key = randomKey()
	}
	return r, nil
}

// Page is what every page template is given.
type Page struct {
	// Title is the document's title.
	Title string
	// Flash is the message carried over from the request before, if any.
	Flash *Flash
	// Data is the page's own.
	Data any
	// Nav is the signed-in person's header (their links and a sign-out
	// button, a POST carrying CSRF); Render asks the Navigator when nil,
	// and a guest has none.
	Nav *groundwork.Navigation
	// GuestLinks are the header's links for a visitor who is not signed
	// in (the sign-in pages' "Sign in" and "Create account"); shown only
	// when Nav is nil.
	GuestLinks []groundwork.NavLink
	// Wide lets the page use a wide screen's width (a report), instead
	// of a column for reading.
	Wide bool
	// CSRF is the request's token (see [CSRFToken]), for the "csrf"
	// template each form of a protected page holds.
	CSRF string
	// FormAction lists origins beyond the page's own that its forms may
	// post to, or be redirected to after posting (the CSP form-action).
	FormAction []string
	// Embeds lists origins whose scripts, frames, styles and requests
	// the page may use beside its own (a CAPTCHA widget's).
	Embeds []string

	// Lang, Stylesheet, Script, Brand and Path (the page's own, for
	// marking the current link) are filled in by Render; a Lang set
	// already (a page in another language than the site's) is kept.
	Lang       string
	Stylesheet string
	Script     string
	Brand      groundwork.Brand
	Path       string
	// Frame is the origin of the site framing the page, and Theme the
	// theme it asked for, when the page is drawn for a frame (see
	// EmbedQuery); filled in by Render.
	Frame, Theme string
}

// Render answers with the page name (a path in Options.Pages, or
// ErrorTemplate) and status, with the security headers of every page.
func (r *Renderer) Render(w http.ResponseWriter, req *http.Request, status int, name string, p *Page) {
	t, ok := r.pages[name]
	if !ok {
		r.logger.ErrorContext(req.Context(), "web: no such page", "page", name)
		http.Error(w, "Server Error.", http.StatusInternalServerError)
		return
	}
	p.Lang, p.Stylesheet, p.Script, p.Brand, p.Path = cmp.Or(p.Lang, r.lang), r.stylesheet, r.script, r.brand, req.URL.Path
	if p.Frame = r.frameOf(req); p.Frame != "" {
		// Inside another site: no header (no account links), and no
		// double-submit token, whose cookie a third party may not get.
		p.Theme, p.Nav, p.CSRF = themeOf(req), nil, ""
	} else {
		if p.Nav == nil && r.navigator != nil {
			p.Nav = r.navigator.Navigation(req)
		}
		if p.Nav != nil && p.CSRF == "" {
			p.CSRF = CSRFToken(w, req)
		}
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		r.logger.ErrorContext(req.Context(), "web: render", "page", name, "error", err)
		http.Error(w, "Server Error.", http.StatusInternalServerError)
		return
	}
	setSecurityHeaders(w.Header(), p.FormAction, p.Embeds, r.frameOrigins)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if req.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

// ErrorPage is the data of the error page.
type ErrorPage struct {
	Heading, Message string
	// Link, when set, is offered as the way on, reading LinkText.
	Link, LinkText string
	// Contact, when set, is the email address of whom to ask (for
	// access, on a 403), offered as a mail link.
	Contact string
}

// Error answers status with the error page.
func (r *Renderer) Error(w http.ResponseWriter, req *http.Request, status int, e ErrorPage) {
	r.Render(w, req, status, ErrorTemplate, &Page{Title: e.Heading, Data: e})
}

// SetSecurityHeaders sets the headers of every page: a
// Content-Security-Policy that allows scripts (no inline one), styles,
// images and the script's requests (a passkey's) to the page's own origin
// only, forms that post to it (and to formAction origins), and no framing; nosniff; a same-origin Referrer-Policy; and
// no caching, since pages carry answers and tokens.
func SetSecurityHeaders(h http.Header, formAction ...string) {
	setSecurityHeaders(h, formAction, nil, nil)
}

// setSecurityHeaders is SetSecurityHeaders with embeds, origins whose
// scripts, frames, styles and requests the page may use too, and
// frameOrigins, the origins that may frame it (none when empty).
func setSecurityHeaders(h http.Header, formAction, embeds, frameOrigins []string) {
	action := strings.Join(append([]string{"'self'"}, formAction...), " ")
	ancestors := "'none'"
	if len(frameOrigins) > 0 {
		ancestors = strings.Join(frameOrigins, " ")
	}
	policy := "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action " + action +
		"; frame-ancestors " + ancestors + "; base-uri 'none'"
	if len(embeds) > 0 {
		others := " " + strings.Join(embeds, " ")
		policy = "default-src 'none'; script-src 'self'" + others + "; style-src 'self'" + others + "; img-src 'self'; frame-src" + others +
			"; connect-src 'self'" + others + "; form-action " + action + "; frame-ancestors " + ancestors + "; base-uri 'none'"
	}
	h.Set("Content-Security-Policy", policy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	if len(frameOrigins) == 0 {
		h.Set("X-Frame-Options", "DENY")
	}
	h.Set("Cache-Control", "no-store")
}

// asset is a file Assets serves, with its ETag (its hash).
type asset struct {
	body              []byte
	contentType, etag string
}

// Stylesheet is the URL path of the stylesheet pages link.
func (r *Renderer) Stylesheet() string { return r.stylesheet }

// Assets serves the stylesheet and the optional script at their hashed
// names under the asset prefix, cached for a year (a changed file gets a
// new name), and 404 for anything else. Mount it at the asset prefix with
// a trailing slash.
func (r *Renderer) Assets() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		a, ok := r.assets[path.Base(req.URL.Path)]
		if !ok || (req.Method != http.MethodGet && req.Method != http.MethodHead) {
			http.NotFound(w, req)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.contentType)
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("ETag", a.etag)
		if req.Header.Get("If-None-Match") == a.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if req.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(a.body)
	})
}

// SeeOther ends a successful POST: the browser is sent on to url with a
// GET (303), so reloading the page it lands on sends nothing again.
//
// A page drawn for a frame (see EmbedQuery) is followed by one drawn for
// it too: a url on this site keeps the request's embed, theme and lang
// parameters, and the flash the response set.
func SeeOther(w http.ResponseWriter, req *http.Request, url string) {
	http.Redirect(w, req, keepFrame(w, req, url), http.StatusSeeOther)
}

// Protect refuses state-changing requests (anything but GET, HEAD and
// OPTIONS) that a browser says came from another origin, with net/http's
// CrossOriginProtection (Sec-Fetch-Site, or Origin against Host); and,
// behind it, applies the double-submit token: a request giving a token
// (the XSRFHeader, or the CSRFField of a form body) must give the one in
// the XSRFCookie, and one that carries cookies but neither Sec-Fetch-Site
// nor Origin must give it. A refused request gets a 403 page, or
// {"message": ...} when it asked for JSON. trusted lists origins
// ("https://admin.example.com") allowed besides the page's own. Use it on
// every page that acts for a signed-in user; a public form meant to be
// posted from other sites stays open.
func (r *Renderer) Protect(h http.Handler, trusted ...string) (http.Handler, error) {
	cop := http.NewCrossOriginProtection()
	for _, o := range trusted {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("web: protect: %w", err)
		}
	}
	refuse := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		const msg = "This form was sent from another site, or from a page too old to trust, so it was not accepted. Go back, reload the page and send it again."
		if WantsJSON(req) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"message":"`+msg+`"}`)
			return
		}
		r.Error(w, req, http.StatusForbidden, ErrorPage{Heading: "Request refused", Message: msg})
	})
	cop.SetDenyHandler(refuse)
	return cop.Handler(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			if !tokenOK(req) {
				refuse(w, req)
				return
			}
		}
		h.ServeHTTP(w, req)
	})), nil
}
