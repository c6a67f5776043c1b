package forms

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/web"
)

// SummaryPathDefault is where [NewSummaryPage] serves the owner's pages.
const SummaryPathDefault = "/form-answers"

// CapabilityViewAnswers is the capability a host's signed-in user holds
// to read the summary pages (the reference server guards them with it).
const CapabilityViewAnswers = "view_form_answers"

// CapabilityManageAnswers is the capability a host's signed-in user holds
// to change answers on the pages (mark, star, note, delete), as
// AbilityUpdate allows over the API; the reference server asks for it
// (or that ability) through SummaryPageOptions.Allow.
const CapabilityManageAnswers = "manage_form_answers"

// SummaryTemplate and AnswersTemplate are the summary pages' "content",
// by the names SummaryPageOptions.Templates may replace them under.
const (
	SummaryTemplate = "forms/summary.html"
	AnswersTemplate = "forms/answers.html"
)

// SummaryPageOptions configures [NewSummaryPage]. Nil means the
// defaults.
type SummaryPageOptions struct {
	groundwork.HTTPOptions
	// Path is where the pages are; SummaryPathDefault when empty.
	Path string
	// Templates replaces the pages' templates or the page layer's.
	Templates fs.FS
	// Key signs the pages' notices across a redirect; give every
	// instance the same. TrustedOrigins may post to the inbox besides its
	// own origin (every POST from another is refused).
	Key            []byte
	TrustedOrigins []string
	// Allow says whether the request's user may do what an ability of
	// the admin API allows, so the pages are no wider than the API:
	// AbilityViewAny to list the forms, AbilityViewSubmissions to read a
	// form's summary, its answers, their files and the CSV, AbilityUpdate
	// to mark, star, note or delete answers. A page refused is a 403;
	// the controls a user may not use are not shown. Nil allows
	// everything to whoever reaches the pages (mount them behind your own
	// check).
	Allow func(r *http.Request, ability string) bool
}

// DeleteTemplate is the step before answers are deleted, naming how
// many go.
const DeleteTemplate = "forms/confirm-delete.html"

// SummaryPage serves the site owner's answers, pages that work without
// JavaScript: GET {Path}/ lists the forms, GET {Path}/{form} shows one
// form's Summary over a date range (?from=&to=, dates), and
// {Path}/{form}/submissions is its inbox (newest first, unread in bold,
// read/star/spam/notes, bulk actions, filters by flag and by answer, one
// answer's page with its uploads, and {Path}/{form}/export.csv). It
// checks no one: mount it behind the host's sign-in (the reference
// server asks for CapabilityViewAnswers). Its POSTs are refused from
// other origins and without the page's CSRF token.
type SummaryPage struct {
	base  *web.Base
	svc   *Service
	allow func(r *http.Request, ability string) bool
}

// NewSummaryPage returns the summary pages of svc.
func NewSummaryPage(svc *Service, opts *SummaryPageOptions) (*SummaryPage, error) {
	if svc == nil {
		return nil, errors.New("forms: new summary page: service is nil")
	}
	var o SummaryPageOptions
	if opts != nil {
		o = *opts
	}
	pages, _ := fs.Sub(templatesFS, "templates")
	notFound := web.ErrorPage{Heading: "Form not found", Message: "There is no such form."}
	base, err := web.NewBase(web.BaseOptions{Domain: "forms", Prefix: o.Path, Default: SummaryPathDefault, Pages: pages, Override: o.Templates,
		Logger: o.Logger, Brand: o.Brand, Navigator: o.Navigator, NotFound: notFound, Key: o.Key,
		Protect: true, TrustedOrigins: o.TrustedOrigins, MaxFormBytes: 256 << 10,
		Failure: web.Problem{Status: http.StatusServiceUnavailable, ErrorPage: web.ErrorPage{Heading: "Answers unavailable",
			Message: "The answers cannot be shown just now. Please try again in a few minutes."}},
		Explain: func(err error) *web.Problem {
			if errors.Is(err, ErrNotFound) {
				return &web.Problem{Status: http.StatusNotFound, ErrorPage: notFound, Err: err}
			}
			return nil
		}})
	if err != nil {
		return nil, err
	}
	p := &SummaryPage{base: base, svc: svc, allow: o.Allow}
	base.Mux.HandleFunc("GET "+base.Prefix+"/{$}", p.may(AbilityViewAny, p.list))
	base.Mux.HandleFunc("GET "+base.Prefix+"/{form}", p.may(AbilityViewSubmissions, p.show))
	p.inboxRoutes()
	return p, nil
}

// may serves f to a user Allow lets do ability; anyone else gets 403.
func (p *SummaryPage) may(ability string, f func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return p.base.Func(func(w http.ResponseWriter, r *http.Request) error {
		if !p.can(r, ability) {
			return &web.Problem{Status: http.StatusForbidden, ErrorPage: web.ErrorPage{Heading: "You do not have access to this page",
				Message: "Your account may not " + abilityWords[ability] + ". Ask the person who runs this site for access."}}
		}
		return f(w, r)
	})
}

// can reports whether Allow lets r's user do ability.
func (p *SummaryPage) can(r *http.Request, ability string) bool {
	return p.allow == nil || p.allow(r, ability)
}

// abilityWords says what each ability the pages check lets a user do.
var abilityWords = map[string]string{AbilityViewAny: "see the list of forms", AbilityViewSubmissions: "read these answers",
	AbilityUpdate: "change or delete answers"}

// ServeHTTP implements http.Handler.
func (p *SummaryPage) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.base.ServeHTTP(w, r) }

// Routes lists the routes the handler serves, as "METHOD /path/{param}".
func (p *SummaryPage) Routes() []string {
	routes := []string{"GET " + p.base.Prefix + "/{$}", "HEAD " + p.base.Prefix + "/{$}", "GET " + p.base.Prefix + "/{form}",
		"HEAD " + p.base.Prefix + "/{form}", "GET " + p.base.Prefix + "/_assets/{file}"}
	return append(routes, p.inboxPatterns()...)
}

// answersList is the list page's data.
type answersList struct {
	Forms []Form
	Path  string
}

func (p *SummaryPage) list(w http.ResponseWriter, r *http.Request) error {
	list, _, err := p.svc.ListForms(r.Context(), nil, groundwork.PageRequest{Page: 1, PerPage: 100})
	if err != nil {
		return err
	}
	p.base.Render.Render(w, r, http.StatusOK, AnswersTemplate, &web.Page{Title: "Form answers", Data: answersList{Forms: list, Path: p.base.Prefix}})
	return nil
}

// summaryView is one form's summary page.
type summaryView struct {
	Form     *Form
	Summary  *Summary
	Path     string
	From, To web.Field
	Errors   []web.SummaryItem
	Fields   []fieldView
	// Until is the last day shown (the range's end is the day after).
	Until string
	Since string
	// Stages are the funnel's rows with their bars; Reach says in words
	// how many of those who saw the form (or, views not measured, began
	// it) sent it.
	Stages []stageRow
	Reach  string
}

// stageRow is a stage of the funnel: its people ("" not measured), its
// share of the first stage measured, and the bar's length (0 to 1).
type stageRow struct {
	Stage, People, Share string
	Bar                  float64
	Measured             bool
}

// fieldView is a field's summary as the page words it.
type fieldView struct {
	FieldSummary
	Rows              []optionRow
	Average, Min, Max string
	Answers           []latestRow
	// Quotas: some option has a quota (the table says the places left).
	Quotas bool
	// Score says a rating's average, or an NPS field's score and its
	// split, in words; "" for other fields.
	Score string
	// Ranks are a ranking's items by average place; Matrix a matrix's
	// counts, a row a statement, a column a choice.
	Ranks  []rankRow
	Matrix *matrixTable
}

// rankRow is a ranking's item: its average place and how many put it
// first.
type rankRow struct {
	Label, Average string
	First          int64
}

// matrixTable is a matrix's counts: Columns the choices, each row a
// statement's counts in the columns' order.
type matrixTable struct {
	Columns []string
	Rows    []matrixRow
}

type matrixRow struct {
	Label  string
	Counts []int64
}

// partsView fills fv's ranking or matrix table.
func partsView(fv *fieldView, f FieldSummary) {
	switch f.Type {
	case TypeRanking:
		for _, o := range f.Options {
			row := rankRow{Label: o.Label, Average: "–", First: o.Count}
			if o.AverageRank != nil {
				row.Average = rounded(*o.AverageRank)
			}
			fv.Ranks = append(fv.Ranks, row)
		}
	case TypeMatrix:
		fv.Matrix = &matrixTable{}
		for i, r := range f.Rows {
			row := matrixRow{Label: r.Label}
			for _, o := range r.Options {
				if i == 0 {
					fv.Matrix.Columns = append(fv.Matrix.Columns, o.Label)
				}
				row.Counts = append(row.Counts, o.Count)
			}
			fv.Matrix.Rows = append(fv.Matrix.Rows, row)
		}
	}
}

// latestRow is one of the latest answers and when it came.
type latestRow struct{ Value, When string }

// optionRow is an option's count and share of the answers (Bar the
// share, 0 to 1), and for an option with a quota its places left.
type optionRow struct {
	Label, Share string
	Count        int64
	Bar          float64
	Left         *int64
}

func (p *SummaryPage) show(w http.ResponseWriter, r *http.Request) error {
	form, err := p.svc.Form(r.Context(), r.PathValue("form"))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	view := &summaryView{Form: form, Path: p.base.Prefix,
		From: web.Field{Type: "date", Name: "from", ID: "from", Label: "From", Value: q.Get("from")},
		To:   web.Field{Type: "date", Name: "to", ID: "to", Label: "To", Value: q.Get("to")}}
	from, to, err := p.svc.SummaryRange(q.Get("from"), q.Get("to"))
	status := http.StatusOK
	if ve, bad := errors.AsType[*ValidationError](err); bad {
		// Said at the inputs; the default range is shown meanwhile.
		status = http.StatusUnprocessableEntity
		view.From.Errors, view.To.Errors = ve.Fields()["from"], ve.Fields()["to"]
		view.Errors = web.Summary([]web.Field{view.From, view.To})
		from, to, err = p.svc.SummaryRange("", "")
	}
	if err != nil {
		return err
	}
	if view.From.Value == "" {
		view.From.Value = from.Format(time.DateOnly)
	}
	if view.To.Value == "" {
		view.To.Value = to.AddDate(0, 0, -1).Format(time.DateOnly)
	}
	sum, err := p.svc.Summary(r.Context(), form, from, to)
	if err != nil {
		return err
	}
	view.Summary = sum
	view.Since, view.Until = from.Format("2 January 2006"), to.AddDate(0, 0, -1).Format("2 January 2006")
	view.Stages, view.Reach = stages(sum.Funnel)
	fields, err := p.svc.Fields(r.Context(), form.ID)
	if err != nil {
		return err
	}
	left, err := p.svc.remaining(r.Context(), form, fields)
	if err != nil {
		return err
	}
	for _, f := range sum.Fields {
		fv := fieldView{FieldSummary: f}
		if n := f.Number; n != nil {
			fv.Average, fv.Min, fv.Max = rounded(n.Average), numberText(n.Min), numberText(n.Max)
			if f.Type == TypeRating && len(f.Options) > 0 { // the scale's points, the highest last
				fv.Score = "Average rating " + fv.Average + " out of " + f.Options[len(f.Options)-1].Value + "."
			}
		}
		if s := f.NPS; s != nil {
			fv.Score = fmt.Sprintf("Net Promoter Score %+g: %d promoters (9 or 10), %d passives (7 or 8), %d detractors (0 to 6).",
				s.Score, s.Promoters, s.Passives, s.Detractors)
		}
		for _, a := range f.Latest {
			value := a.Value
			if f.Type == TypeDateTime {
				value = strings.Replace(value, "T", " ", 1) // as the answer is shown
			}
			fv.Answers = append(fv.Answers, latestRow{Value: value, When: a.At.UTC().Format("2 Jan 2006, 15:04")})
		}
		partsView(&fv, f)
		for _, o := range f.Options {
			if f.Type == TypeRanking {
				break
			}
			row := optionRow{Label: o.Label, Count: o.Count, Share: share(o.Count, f.Answered)}
			if f.Answered > 0 {
				row.Bar = float64(o.Count) / float64(f.Answered)
			}
			if n, ok := left[f.Name][o.Value]; ok {
				row.Left = &n
			}
			fv.Rows = append(fv.Rows, row)
			fv.Quotas = fv.Quotas || row.Left != nil
		}
		view.Fields = append(view.Fields, fv)
	}
	title := "Answers: " + form.Name
	if len(view.Errors) > 0 {
		title = "Error: " + title
	}
	p.base.Render.Render(w, r, status, SummaryTemplate, &web.Page{Title: title, Data: view, Wide: true})
	return nil
}

// stages are the funnel's rows, each with its share of the first stage
// measured (the views, else the starts), and the reach in words: "14 of
// 620 saw it and sent it: 2.3%".
func stages(f Funnel) ([]stageRow, string) {
	first, what := f.Starts, "began it"
	if f.Views != nil {
		first, what = *f.Views, "saw it"
	}
	row := func(stage string, n int64) stageRow {
		r := stageRow{Stage: stage, People: strconv.FormatInt(n, 10), Share: share(n, first), Measured: true}
		if first > 0 {
			r.Bar = min(float64(n)/float64(first), 1)
		}
		return r
	}
	rows := []stageRow{{Stage: "Saw the form", People: "Not measured"}}
	if f.Views != nil {
		rows[0] = row("Saw the form", *f.Views)
	}
	rows = append(rows, row("Started", f.Starts), row("Sent", f.Completions))
	reach := fmt.Sprintf("%d of %d %s and sent it", f.Completions, first, what)
	if first > 0 {
		reach += ": " + strconv.FormatFloat(float64(f.Completions)*100/float64(first), 'f', 1, 64) + "%"
	}
	if f.Views == nil {
		reach += ". The views of the form's page are not measured: the analytics is not linked to the forms."
	} else {
		reach += "."
	}
	return rows, reach
}

// share is n out of all as a whole percentage ("40%"), "–" of none.
func share(n, all int64) string {
	if all == 0 {
		return "–"
	}
	return strconv.FormatInt((n*100+all/2)/all, 10) + "%"
}

// numberText says a number without needless decimals.
func numberText(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// rounded says a number to at most two decimals.
func rounded(f float64) string { return numberText(float64(int64(f*100+0.5)) / 100) }
