package forms

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork/internal/web"
)

// The inbox of a form's answers, beside its summary: newest first, unread
// in bold, read/star/spam/notes on each, bulk actions, filters by flag
// and by answer, one submission's page with its uploads, and the CSV.
const (
	// InboxTemplate and SubmissionTemplate are the inbox pages' "content".
	InboxTemplate      = "forms/inbox.html"
	SubmissionTemplate = "forms/submission.html"
	// inboxPageSize submissions are listed a page.
	inboxPageSize = 25
)

func (p *SummaryPage) inboxRoutes() {
	prefix := p.base.Prefix + "/{form}"
	// The list ends in a slash: {form}/submissions alone would overlap
	// the assets' _assets/{file}.
	p.base.Mux.HandleFunc("GET "+prefix+"/submissions/{$}", p.may(AbilityViewSubmissions, p.inbox))
	p.base.Mux.HandleFunc("POST "+prefix+"/submissions/{$}", p.may(AbilityUpdate, p.bulk))
	p.base.Mux.HandleFunc("GET "+prefix+"/submissions/{id}", p.may(AbilityViewSubmissions, p.submission))
	p.base.Mux.HandleFunc("POST "+prefix+"/submissions/{id}", p.may(AbilityUpdate, p.act))
	p.base.Mux.HandleFunc("GET "+prefix+"/submissions/{id}/uploads/{upload}", p.may(AbilityViewSubmissions, p.download))
	p.base.Mux.HandleFunc("GET "+prefix+"/submissions/export.csv", p.may(AbilityViewSubmissions, p.export))
}

func (p *SummaryPage) inboxPatterns() []string {
	prefix := p.base.Prefix + "/{form}"
	return []string{"GET " + prefix + "/submissions/{$}", "HEAD " + prefix + "/submissions/{$}", "POST " + prefix + "/submissions/{$}",
		"GET " + prefix + "/submissions/{id}", "HEAD " + prefix + "/submissions/{id}", "POST " + prefix + "/submissions/{id}",
		"GET " + prefix + "/submissions/{id}/uploads/{upload}", "HEAD " + prefix + "/submissions/{id}/uploads/{upload}",
		"GET " + prefix + "/submissions/export.csv", "HEAD " + prefix + "/submissions/export.csv"}
}

// inboxView is the inbox page's data.
type inboxView struct {
	Form    *Form
	Path    string
	Filters []filterLink
	// Filter is the current one ("inbox", "unread", "starred", "spam").
	Filter  string
	Rows    []inboxRow
	Total   int
	Showing string
	// Answers are the answer filters, in words; Clear drops them.
	Answers    []string
	Clear      string
	Prev, Next string
	Action     string
	// CanChange: the user may mark and delete answers (the bulk form).
	CanChange bool
	// Back is this list as it is (filters, page), where the bulk
	// actions return.
	Back string
	// Search is what the list is searched for; Keep are the list's
	// other choices the search form keeps (filter, answers, zone).
	Search      string
	ClearSearch string
	Keep        map[string]string
	// Zone is the zone times are shown in, ZoneName it as a place's
	// time ("London time"), Zones the choice.
	Zone, ZoneName string
	Zones          []web.Option
}

type filterLink struct {
	Name, Text, URL string
	Current         bool
}

type inboxRow struct {
	ID                   int64
	Title, Preview, When string
	Read, Starred, Spam  bool
	URL                  string
	// Via is where the answer's visit came from (web.Via).
	Via string
}

// inboxFilters are the lists by flag: the inbox leaves spam out.
var inboxFilters = []struct{ name, text string }{{"inbox", "Inbox"}, {"unread", "Unread"}, {"starred", "Starred"}, {"spam", "Spam"}}

func yes(b bool) *bool { return &b }

// inboxList is a list of a form's answers as the inbox shows it, read
// from the query: its filter by flag (filter), by answer (field[NAME]),
// its search (q), its page and the zone of its times (tz). An answer's
// page opened from the list carries the same query and its place in the
// list (n), for the answers before and after it.
type inboxList struct {
	query  SubmissionQuery
	filter string
	page   int
	zone   string
	// zoneAsked: the query named the zone (kept by the links even when
	// it is UTC, so the script does not choose the reader's own again).
	zoneAsked bool
}

// inboxList reads the list r asks for; an answer filter the form cannot
// take, or a search too long, is a 422 page.
func (p *SummaryPage) inboxList(r *http.Request, form *Form) (inboxList, error) {
	q := r.URL.Query()
	l := inboxList{filter: cmp.Or(q.Get("filter"), "inbox"), zone: web.PageZone(q, "UTC"), zoneAsked: q.Get("tz") != "",
		query: SubmissionQuery{FormID: form.ID, Limit: inboxPageSize, Search: strings.TrimSpace(q.Get("q"))}}
	switch l.filter {
	case "unread":
		l.query.IsRead, l.query.IsSpam = yes(false), yes(false)
	case "starred":
		l.query.IsStarred = yes(true)
	case "spam":
		l.query.IsSpam = yes(true)
	default:
		l.filter, l.query.IsSpam = "inbox", yes(false)
	}
	l.page, _ = strconv.Atoi(q.Get("page"))
	l.page = max(l.page, 1)
	l.query.Offset = (l.page - 1) * inboxPageSize
	all := p.base.Prefix + "/" + form.Slug + "/submissions/"
	if utf8.RuneCountInString(l.query.Search) > searchMaxLength {
		return l, &web.Problem{Status: http.StatusUnprocessableEntity, ErrorPage: web.ErrorPage{Heading: "That search is too long",
			Message: fmt.Sprintf("Search for %d characters or fewer.", searchMaxLength), Link: all, LinkText: "Show every answer"}}
	}
	var err error
	if l.query.Answers, err = p.svc.AnswerFilters(r.Context(), form, q); err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			return l, &web.Problem{Status: http.StatusUnprocessableEntity, Err: err, ErrorPage: web.ErrorPage{Heading: "That filter cannot be used",
				Message: ve.Message(), Link: all, LinkText: "Show every answer"}}
		}
		return l, err
	}
	return l, nil
}

// values is the list's query with filter and page, its answer filters
// when answers, its search and zone.
func (l inboxList) values(filter string, page int, answers bool) url.Values {
	v := url.Values{}
	if filter != "inbox" {
		v.Set("filter", filter)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if answers {
		for _, a := range l.query.Answers {
			v.Set("field["+a.Field+"]", a.Value)
		}
	}
	if l.query.Search != "" {
		v.Set("q", l.query.Search)
	}
	if l.zoneAsked {
		v.Set("tz", l.zone)
	}
	return v
}

// withQuery is path with v as its query, if any.
func withQuery(path string, v url.Values) string {
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

func (p *SummaryPage) inbox(w http.ResponseWriter, r *http.Request) error {
	form, err := p.svc.Form(r.Context(), r.PathValue("form"))
	if err != nil {
		return err
	}
	l, err := p.inboxList(r, form)
	if err != nil {
		return err
	}
	query, filter, page := l.query, l.filter, l.page
	subs, total, err := p.svc.ListSubmissions(r.Context(), query)
	if err != nil {
		return err
	}
	base := p.base.Prefix + "/" + form.Slug + "/submissions/"
	link := func(filter string, page int, answers bool) string {
		return withQuery(base, l.values(filter, page, answers))
	}
	view := &inboxView{Form: form, Path: p.base.Prefix, Filter: filter, Total: total, Action: base, Back: link(filter, page, true),
		CanChange: p.can(r, AbilityUpdate), Search: query.Search, Keep: map[string]string{}, Zone: l.zone, ZoneName: web.PlaceTime(l.zone),
		Zones: web.ZoneChoice(l.zone, p.svc.now())}
	unsearched := l.values(filter, 1, true)
	unsearched.Del("q")
	view.ClearSearch = withQuery(base, unsearched)
	for k, v := range unsearched {
		view.Keep[k] = v[0]
	}
	for _, f := range inboxFilters {
		view.Filters = append(view.Filters, filterLink{Name: f.name, Text: f.text, URL: link(f.name, 1, true), Current: f.name == filter})
	}
	for _, a := range query.Answers {
		view.Answers = append(view.Answers, fmt.Sprintf("%s is “%s”", a.Field, a.Value))
	}
	if len(query.Answers) > 0 {
		view.Clear = link(filter, 1, false)
	}
	if page > 1 {
		view.Prev = link(filter, page-1, true)
	}
	if query.Offset+len(subs) < total {
		view.Next = link(filter, page+1, true)
	}
	if total > 0 {
		view.Showing = fmt.Sprintf("%d–%d of %d", query.Offset+1, query.Offset+len(subs), total)
	}
	words, err := p.answerWords(r, form)
	if err != nil {
		return err
	}
	loc := web.Location(l.zone)
	for i, s := range subs {
		title, preview := headline(s, words)
		at := l.values(filter, page, true)
		at.Set("n", strconv.Itoa(query.Offset+i))
		view.Rows = append(view.Rows, inboxRow{ID: s.ID, Title: title, Preview: preview, When: s.CreatedAt.In(loc).Format("2 Jan 2006 15:04"),
			Read: s.IsRead, Starred: s.IsStarred, Spam: s.IsSpam, URL: withQuery(base+strconv.FormatInt(s.ID, 10), at), Via: web.Via(s.Visit)})
	}
	p.base.Render.Render(w, r, http.StatusOK, InboxTemplate, &web.Page{Title: "Answers to " + form.Name, Data: view, CSRF: web.CSRFToken(w, r),
		Flash: p.base.Render.TakeFlash(w, r, base), Wide: true})
	return nil
}

// neighbours are the answers before and after the one at position n of
// the list l (its URLs with the list's query and their own positions;
// "" at either end). When the answer has left the list (opening it read
// it, and the list is of unread ones), its place is taken by the next.
func (p *SummaryPage) neighbours(r *http.Request, l inboxList, base string, id int64, n int) (prev, next string, err error) {
	q := l.query
	q.Offset, q.Limit = max(n-1, 0), 3
	subs, _, err := p.svc.ListSubmissions(r.Context(), q)
	if err != nil {
		return "", "", err
	}
	at := func(k int) string {
		if k < 0 || k >= len(subs) {
			return ""
		}
		v := l.values(l.filter, (q.Offset+k)/inboxPageSize+1, true)
		v.Set("n", strconv.Itoa(q.Offset+k))
		return withQuery(base+strconv.FormatInt(subs[k].ID, 10), v)
	}
	here := n - q.Offset // where it was
	for k := range subs {
		if subs[k].ID == id {
			return at(k - 1), at(k + 1), nil
		}
	}
	return at(here - 1), at(here), nil
}

// headline is what a submission's row says: who sent it (its first email
// answer, else its first answer) and a glimpse of the rest, in words.
func headline(s Submission, words answerWords) (title, preview string) {
	var parts []string
	for _, v := range s.Values {
		text := words.text(v)
		if text == "" {
			continue
		}
		if title == "" && v.FieldType == TypeEmail {
			title = text
			continue
		}
		parts = append(parts, text)
	}
	if title == "" && len(parts) > 0 {
		title, parts = parts[0], parts[1:]
	}
	if title == "" {
		title = "Submission " + strconv.FormatInt(s.ID, 10)
	}
	preview = strings.Join(parts, " · ")
	if r := []rune(preview); len(r) > 140 {
		preview = string(r[:139]) + "…"
	}
	return clipRunes(title, 80), preview
}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// valueText is an answer as stored: one value, or several joined.
func valueText(v Value) string {
	if v.Value != nil {
		return strings.TrimSpace(*v.Value)
	}
	return strings.Join(v.ValueArray, ", ")
}

// answerWords are the labels of a form's choices by field name and
// value, so an answer reads as the person chose it ("Gift voucher",
// not "voucher"; a ticked box "Yes").
type answerWords map[string]map[string]string

// answerWords reads form's fields for their choices' labels.
func (p *SummaryPage) answerWords(r *http.Request, form *Form) (answerWords, error) {
	fields, err := p.svc.Fields(r.Context(), form.ID)
	if err != nil {
		return nil, err
	}
	out := answerWords{}
	for _, f := range fields {
		if !isChoice(f.Type) {
			continue
		}
		m := map[string]string{}
		for _, o := range f.Options() {
			m[o.Value] = o.Label
		}
		out[f.Name] = m
	}
	return out, nil
}

// text is an answer in the words the person chose.
func (w answerWords) text(v Value) string {
	if v.FieldType == TypeCheckbox {
		switch valueText(v) {
		case "":
			return ""
		case "0", "false":
			return "No"
		}
		return "Yes"
	}
	labels := w[v.FieldName]
	if labels == nil {
		return valueText(v)
	}
	word := func(s string) string { return cmp.Or(labels[strings.TrimSpace(s)], strings.TrimSpace(s)) }
	if v.Value != nil {
		return word(*v.Value)
	}
	out := make([]string, len(v.ValueArray))
	for i, s := range v.ValueArray {
		out[i] = word(s)
	}
	return strings.Join(out, ", ")
}

// bulk is POST .../submissions: an action on the ticked submissions.
func (p *SummaryPage) bulk(w http.ResponseWriter, r *http.Request) error {
	form, err := p.svc.Form(r.Context(), r.PathValue("form"))
	if err != nil {
		return err
	}
	back := p.base.Prefix + "/" + form.Slug + "/submissions/"
	if q := r.PostFormValue("back"); strings.HasPrefix(q, back) {
		back = q
	}
	var ids []int64
	for _, s := range r.PostForm["ids"] {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		p.base.Render.SetFlash(w, r, strings.SplitN(back, "?", 2)[0], web.Flash{Kind: "error", Message: "Tick the answers to act on first."})
		web.SeeOther(w, r, back)
		return nil
	}
	action := BulkAction(r.PostFormValue("action"))
	if action == BulkDelete && r.PostFormValue("confirm") != "yes" {
		what := web.Count(len(ids), "answer")
		return p.askDelete(w, r, deleteView{What: what, Said: "The " + what + " you ticked will be deleted.", IDs: ids,
			Action: p.base.Prefix + "/" + form.Slug + "/submissions/", Back: back})
	}
	n, err := p.svc.Bulk(r.Context(), form.ID, action, ids)
	var ve *ValidationError
	if errors.As(err, &ve) {
		p.base.Render.SetFlash(w, r, strings.SplitN(back, "?", 2)[0], web.Flash{Kind: "error", Message: "Choose what to do with the ticked answers."})
		web.SeeOther(w, r, back)
		return nil
	}
	if err != nil {
		return err
	}
	done := map[BulkAction]string{BulkMarkRead: "marked read", BulkMarkUnread: "marked unread", BulkMarkSpam: "moved to spam",
		BulkMarkNotSpam: "moved out of spam", BulkDelete: "deleted"}[action]
	p.base.Render.SetFlash(w, r, strings.SplitN(back, "?", 2)[0], web.Flash{Kind: "success", Message: strings.ToUpper(web.Count(n, "answer")[:1]) +
		web.Count(n, "answer")[1:] + " " + done + "."})
	web.SeeOther(w, r, back)
	return nil
}

// deleteView is the step before answers are deleted: what goes (IDs,
// and how it is named), the form that deletes them, and where keeping
// them leads.
type deleteView struct {
	What, Said   string
	IDs          []int64
	Action, Back string
}

// askDelete answers a delete that was not confirmed with the step that asks.
func (p *SummaryPage) askDelete(w http.ResponseWriter, r *http.Request, v deleteView) error {
	p.base.Render.Render(w, r, http.StatusOK, DeleteTemplate, &web.Page{Title: "Delete " + v.What + "?", Data: &v, CSRF: web.CSRFToken(w, r)})
	return nil
}

// submissionView is one submission's page.
type submissionView struct {
	Form    *Form
	Sub     *Submission
	Path    string
	Base    string
	When    string
	Values  []valueRow
	Uploads []uploadRow
	Notes   web.Field
	// CanChange: the user may mark, note and delete answers.
	CanChange bool
	// Reply writes to the answer's first email address, the form named
	// in the subject ("" without one).
	Reply string
	// Back is the list it was opened from; Prev and Next the answers
	// before and after it there ("" at an end, or when not opened from
	// the list); Self is this page with the list's query, where its
	// buttons post.
	Back, Prev, Next, Self string
}

type valueRow struct{ Label, Text string }

type uploadRow struct {
	Name, Size, URL string
}

func (p *SummaryPage) one(r *http.Request) (*Form, *Submission, error) {
	form, err := p.svc.Form(r.Context(), r.PathValue("form"))
	if err != nil {
		return nil, nil, err
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return nil, nil, notFound("Submission")
	}
	sub, err := p.svc.Submission(r.Context(), form.ID, id)
	return form, sub, err
}

// submission is one answer's page; opening it marks it read, as a mail
// client does.
func (p *SummaryPage) submission(w http.ResponseWriter, r *http.Request) error {
	form, sub, err := p.one(r)
	if err != nil {
		return err
	}
	if !sub.IsRead && r.Method == http.MethodGet {
		sub.IsRead = true
		if err := p.svc.UpdateSubmission(r.Context(), sub); err != nil {
			return err
		}
	}
	base := p.base.Prefix + "/" + form.Slug + "/submissions/"
	l, err := p.inboxList(r, form)
	if err != nil {
		return err
	}
	view := &submissionView{Form: form, Sub: sub, Path: p.base.Prefix, Base: base,
		When: sub.CreatedAt.In(web.Location(l.zone)).Format("2 January 2006, 15:04") + " (" + web.PlaceTime(l.zone) + ")",
		Back: withQuery(base, l.values(l.filter, l.page, true)), Self: withQuery(base+strconv.FormatInt(sub.ID, 10), r.URL.Query()),
		Notes: web.Field{Type: web.TypeTextarea, Name: "admin_notes", ID: web.FieldID("admin_notes"), Label: "Notes", Value: sub.AdminNotes,
			Help: "Only people who read the answers see these.", Rows: 3}, CanChange: p.can(r, AbilityUpdate)}
	words, err := p.answerWords(r, form)
	if err != nil {
		return err
	}
	for _, v := range sub.Values {
		if v.FieldType == TypeFile {
			continue
		}
		view.Values = append(view.Values, valueRow{Label: cmp.Or(v.FieldLabel, v.FieldName), Text: cmp.Or(words.text(v), "—")})
		if v.FieldType == TypeEmail && view.Reply == "" && v.Value != nil && *v.Value != "" && !strings.ContainsAny(*v.Value, "?&#") {
			view.Reply = "mailto:" + *v.Value + "?subject=" + url.PathEscape("Re: "+form.Name)
		}
	}
	for _, u := range sub.Uploads {
		view.Uploads = append(view.Uploads, uploadRow{Name: u.OriginalName, Size: sizeText(u.Size),
			URL: base + strconv.FormatInt(sub.ID, 10) + "/uploads/" + strconv.FormatInt(u.ID, 10)})
	}
	if n, err := strconv.Atoi(r.URL.Query().Get("n")); err == nil && n >= 0 {
		if view.Prev, view.Next, err = p.neighbours(r, l, base, sub.ID, n); err != nil {
			return err
		}
	}
	self := base + strconv.FormatInt(sub.ID, 10)
	title, _ := headline(*sub, words)
	p.base.Render.Render(w, r, http.StatusOK, SubmissionTemplate, &web.Page{Title: title + " – " + form.Name, Data: view, CSRF: web.CSRFToken(w, r),
		Flash: p.base.Render.TakeFlash(w, r, self)})
	return nil
}

// act is POST .../submissions/{id}: star, spam, unread, notes or delete.
func (p *SummaryPage) act(w http.ResponseWriter, r *http.Request) error {
	form, sub, err := p.one(r)
	if err != nil {
		return err
	}
	list := p.base.Prefix + "/" + form.Slug + "/submissions/"
	self := list + strconv.FormatInt(sub.ID, 10)
	// Back where the page was, with the list it was opened from.
	here, back := withQuery(self, r.URL.Query()), list
	if l, err := p.inboxList(r, form); err == nil {
		back = withQuery(list, l.values(l.filter, l.page, true))
	}
	var said string
	switch r.PostFormValue("action") {
	case "star":
		sub.IsStarred, said = true, "Starred."
	case "unstar":
		sub.IsStarred, said = false, "No longer starred."
	case "spam":
		sub.IsSpam, said = true, "Moved to spam."
	case "not_spam":
		sub.IsSpam, said = false, "Moved out of spam."
	case "unread":
		sub.IsRead = false
		if err := p.svc.UpdateSubmission(r.Context(), sub); err != nil {
			return err
		}
		p.base.Render.SetFlash(w, r, list, web.Flash{Kind: "success", Message: "Marked unread."})
		web.SeeOther(w, r, back)
		return nil
	case "notes":
		sub.AdminNotes, said = strings.TrimSpace(r.PostFormValue("admin_notes")), "Notes saved."
	case "delete":
		if r.PostFormValue("confirm") != "yes" {
			return p.askDelete(w, r, deleteView{What: "this answer", Said: "The answer sent " + sub.CreatedAt.UTC().Format("2 January 2006, 15:04 UTC") +
				" will be deleted.", IDs: []int64{sub.ID}, Action: here, Back: here})
		}
		if err := p.svc.DeleteSubmission(r.Context(), form.ID, sub.ID); err != nil {
			return err
		}
		p.base.Render.SetFlash(w, r, list, web.Flash{Kind: "success", Message: "The answer was deleted, with its files."})
		web.SeeOther(w, r, back)
		return nil
	default:
		return &web.Problem{Status: http.StatusBadRequest, ErrorPage: web.ErrorPage{Heading: "Nothing to do",
			Message: "That button does nothing here.", Link: here, LinkText: "Back to the answer"}}
	}
	err = p.svc.UpdateSubmission(r.Context(), sub)
	var ve *ValidationError
	if errors.As(err, &ve) {
		p.base.Render.SetFlash(w, r, self, web.Flash{Kind: "error", Message: "Notes must be 5000 characters or fewer; they were not saved."})
		web.SeeOther(w, r, here)
		return nil
	}
	if err != nil {
		return err
	}
	p.base.Render.SetFlash(w, r, self, web.Flash{Kind: "success", Message: said})
	web.SeeOther(w, r, here)
	return nil
}

// download sends an upload of a submission of the form, always as an
// attachment (never shown in the site's own origin).
func (p *SummaryPage) download(w http.ResponseWriter, r *http.Request) error {
	_, sub, err := p.one(r)
	if err != nil {
		return err
	}
	uploadID, err := strconv.ParseInt(r.PathValue("upload"), 10, 64)
	if err != nil {
		return notFound("Upload")
	}
	up, body, err := p.svc.OpenUpload(r.Context(), sub.ID, uploadID)
	if err != nil {
		return err
	}
	defer body.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": up.OriginalName}))
	w.Header().Set("Content-Length", strconv.FormatInt(up.Size, 10))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = io.Copy(w, body)
	return nil
}

// export is GET .../submissions/export.csv: every answer of the form as
// CSV.
func (p *SummaryPage) export(w http.ResponseWriter, r *http.Request) error {
	form, err := p.svc.Form(r.Context(), r.PathValue("form"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	name := form.Slug + "-" + time.Now().UTC().Format("2006-01-02") + ".csv"
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	return p.svc.ExportCSV(r.Context(), form, w, CSVOptions{Flush: flush})
}
