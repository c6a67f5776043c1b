package forms

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

//go:embed templates/page.html
var templates embed.FS

var pageTemplate = template.Must(template.ParseFS(templates, "templates/page.html"))

// page is what the template draws.
type page struct {
	Form      *Form
	Groups    []pageGroup
	Errors    map[string][]string
	ErrorList []string
	Problem   string
	SubmitURL string
	PageURL   string
	LoadedAt  int64
	Success   bool
	Message   string
}

// pageGroup is a step (with a title) or the fields on no step.
type pageGroup struct {
	Title       string
	Description string
	Fields      []pageField
}

type pageField struct {
	Field     *Field
	Value     string
	Checked   bool
	Options   []pageOption
	Errors    []string
	Error     bool
	Rows      int
	InputType string
	Accept    string
	Content   string
}

type pageOption struct {
	Value, Label string
	Checked      bool
}

var inputTypes = map[string]string{TypeEmail: "email", TypePhone: "tel", TypeNumber: "number", TypeURL: "url",
	TypeDate: "date", TypeTime: "time", TypeFile: "file"}

// buildPage lays out a form's fields by step, with the visitor's answers
// and the messages of a failed submission.
func (s *Service) buildPage(form *Form, fields []Field, steps []Step, values map[string][]string, errs *ValidationError) *page {
	p := &page{Form: form, LoadedAt: s.now().Unix(), Errors: map[string][]string{}}
	if errs != nil {
		p.Errors = errs.Fields()
		for _, name := range errs.FieldNames() {
			p.ErrorList = append(p.ErrorList, p.Errors[name]...)
		}
	}
	draw := func(f *Field) pageField {
		pf := pageField{Field: f, Rows: 4, InputType: "text"}
		if t, ok := inputTypes[f.Type]; ok {
			pf.InputType = t
		}
		if rows, ok := f.FieldConfig["rows"].(float64); ok && rows > 0 && rows < 100 {
			pf.Rows = int(rows)
		}
		if f.Type == TypeFile {
			var accept []string
			for _, ext := range s.allowedTypes(f) {
				accept = append(accept, "."+ext)
			}
			pf.Accept = strings.Join(accept, ",")
		}
		if c, ok := f.FieldConfig["content"].(string); ok {
			pf.Content = c // shown as text: html/template escapes it
		} else {
			pf.Content = f.Label
		}
		given, answered := values[f.Name]
		if !answered && f.DefaultValue != "" {
			given = []string{f.DefaultValue}
		}
		if len(given) > 0 {
			pf.Value = given[0]
			pf.Checked = checked(given[0])
		}
		for _, o := range f.Options() {
			pf.Options = append(pf.Options, pageOption{Value: o.Value, Label: o.Label, Checked: slices.Contains(given, o.Value)})
		}
		for name, msgs := range p.Errors {
			if name == f.Name || strings.HasPrefix(name, f.Name+".") {
				pf.Errors = append(pf.Errors, msgs...)
			}
		}
		pf.Error = len(pf.Errors) > 0
		return pf
	}
	var loose pageGroup
	for i := range fields {
		if fields[i].StepID == nil {
			loose.Fields = append(loose.Fields, draw(&fields[i]))
		}
	}
	if len(loose.Fields) > 0 {
		p.Groups = append(p.Groups, loose)
	}
	for _, st := range steps {
		g := pageGroup{Title: st.Title, Description: st.Description}
		for i := range fields {
			if fields[i].StepID != nil && *fields[i].StepID == st.ID {
				g.Fields = append(g.Fields, draw(&fields[i]))
			}
		}
		p.Groups = append(p.Groups, g)
	}
	return p
}

func writePage(w http.ResponseWriter, status int, p *page, logger *slog.Logger) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'self'")
	h.Set("Referrer-Policy", "same-origin")
	w.WriteHeader(status)
	if err := pageTemplate.Execute(w, p); err != nil && logger != nil {
		logger.Error("forms: render page", "error", err)
	}
}

// PageOptions configures [NewPageHandler].
type PageOptions struct {
	// Prefix is where pages live: GET {Prefix}/{slug}; "/forms" when empty.
	Prefix string
	// SubmitPrefix is where the forms API is mounted, to post to; the
	// API's PrefixDefault when empty.
	SubmitPrefix string
	Logger       *slog.Logger
}

// PageHandler serves a plain HTML page for each active form, one that
// works without JavaScript: it posts multipart to the API's submit route,
// which answers a browser with HTML (the page again with messages, or a
// thank-you page or redirect). Fields on steps show as fieldsets, one
// after another; conditional logic applies on the server.
type PageHandler struct {
	svc    *Service
	prefix string
	submit string
	logger *slog.Logger
}

// NewPageHandler returns the page handler for svc.
func NewPageHandler(svc *Service, opts *PageOptions) (*PageHandler, error) {
	if svc == nil {
		return nil, errors.New("forms: new page handler: service is nil")
	}
	var o PageOptions
	if opts != nil {
		o = *opts
	}
	p := &PageHandler{svc: svc, prefix: strings.TrimSuffix(o.Prefix, "/"), submit: strings.TrimSuffix(o.SubmitPrefix, "/"), logger: o.Logger}
	if o.Prefix == "" {
		p.prefix = "/forms"
	}
	if o.SubmitPrefix == "" {
		p.submit = PrefixDefault
	}
	if !strings.HasPrefix(p.prefix, "/") || !strings.HasPrefix(p.submit, "/") {
		return nil, errors.New("forms: new page handler: prefixes must start with /")
	}
	return p, nil
}

// ServeHTTP implements http.Handler: GET {prefix}/{slug}.
func (p *PageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	slug, ok := strings.CutPrefix(r.URL.Path, p.prefix+"/")
	if !ok || slug == "" || strings.Contains(slug, "/") || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.NotFound(w, r)
		return
	}
	form, err := p.svc.Form(r.Context(), slug)
	if err != nil || !form.IsActive {
		notFoundPage(w, err, p.logger)
		return
	}
	pg, err := p.svc.page(r.Context(), form, nil, nil)
	if err != nil {
		notFoundPage(w, err, p.logger)
		return
	}
	pg.SubmitURL = p.submit + "/" + form.Slug + "/submit"
	writePage(w, http.StatusOK, pg, p.logger)
}

// page builds the page of a form with answers and messages.
func (s *Service) page(ctx context.Context, form *Form, values map[string][]string, errs *ValidationError) (*page, error) {
	fields, err := s.store.Fields(ctx, form.ID)
	if err != nil {
		return nil, err
	}
	steps, err := s.store.Steps(ctx, form.ID)
	if err != nil {
		return nil, err
	}
	return s.buildPage(form, fields, steps, values, errs), nil
}

// notFoundPage answers a missing or inactive form, or a failure, as HTML.
func notFoundPage(w http.ResponseWriter, err error, logger *slog.Logger) {
	status := http.StatusNotFound
	if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrInactive) {
		status = http.StatusServiceUnavailable
		if logger != nil {
			logger.Error("forms: page", "error", err)
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte("<!doctype html><title>Form not found</title><h1>Form not found</h1><p>This form does not exist or does not take responses. (" + strconv.Itoa(status) + ")</p>"))
}
