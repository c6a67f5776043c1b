package reporting

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/web"
)

// SettingsTemplate is the page where the goals, shared links, email
// reports and the site's addresses are made, by the name DashboardOptions.Templates may replace it
// under.
const SettingsTemplate = "reporting/settings.html"

// settingsPage is the page of {Path}/settings.
type settingsPage struct {
	Action, Dashboard string
	Goals             []settingsGoal
	GoalFields        []web.Field
	HasGoals          bool
	Links             []SharedLink
	LinkFields        []web.Field
	HasLinks          bool
	Reports           []EmailReport
	ReportFields      []web.Field
	HasReports        bool
	// Hosts are the site's addresses (HostStore), drawn when HasHosts.
	Hosts      []string
	HostFields []web.Field
	HasHosts   bool
	Summary    []web.SummaryItem
	// Confirm is the step before a goal is removed or a link revoked
	// (?remove-goal=ID, ?revoke-link=ID); nil otherwise.
	Confirm *settingsConfirm
}

// settingsConfirm asks before something is undone for good: what goes,
// what follows, the form that does it and its button.
type settingsConfirm struct {
	Heading, Said, Action, Button string
}

// settingsGoal is a goal as the page lists it.
type settingsGoal struct {
	Goal
	What string
}

// manages reports whether r may change the goals, links and reports.
func (d *Dashboard) manages(r *http.Request) bool {
	return d.o.Manage != nil && d.o.Manage.AuthorizeRequest(r, AbilityManage, nil) == groundwork.Allowed
}

// settingsForms are the forms the settings page posts, under its path.
var settingsForms = []string{"goals", "goals/{id}/delete", "shared-links", "shared-links/{id}/revoke", "email-reports", "email-reports/{id}/delete", "hosts"}

// settingsRoutes serves the settings page and its forms.
func (d *Dashboard) settingsRoutes() {
	p := d.o.Path + "/settings"
	d.base.Mux.HandleFunc("GET "+p, d.base.Func(d.settings))
	for _, form := range settingsForms {
		d.base.Mux.HandleFunc("POST "+p+"/"+form, d.base.Func(d.changeSettings))
	}
}

// settingsRouteList are the settings routes, as "METHOD /path".
func (d *Dashboard) settingsRouteList() []string {
	p := d.o.Path + "/settings"
	out := []string{"GET " + p}
	for _, form := range settingsForms {
		out = append(out, "POST "+p+"/"+form)
	}
	return out
}

var forbiddenSettings = &web.Problem{Status: http.StatusForbidden, ErrorPage: web.ErrorPage{Heading: "Not allowed",
	Message: "You may read the reports, not change their goals, shared links, email reports or addresses. Ask whoever runs the site.",
	Link:    "/reporting", LinkText: "Back to the reports"}}

func (d *Dashboard) settings(w http.ResponseWriter, r *http.Request) error {
	if !d.manages(r) {
		return forbiddenSettings
	}
	return d.drawSettings(w, r, http.StatusOK, nil, nil)
}

// goalFields are the add-goal form's fields with the values in, errors
// by field name.
func goalFields(in map[string]string, errs map[string]string) []web.Field {
	f := func(typ, name, label, help string) web.Field {
		field := web.Field{Type: typ, ID: "goal-" + name, Name: name, Label: label, Help: help, Value: in[name]}
		if e := errs[name]; e != "" {
			field.Errors = []string{e}
		}
		return field
	}
	kind := f("radio", "kind", "It counts", "")
	kind.Options = []web.Option{{Value: "page", Label: "Visits to a page", Selected: in["kind"] != "event"},
		{Value: "event", Label: "An event", Selected: in["kind"] == "event"}}
	kind.Required = true
	return []web.Field{kind,
		f("text", "page", "Page", "For a page: its path; * stands for any characters, as in /blog/*."),
		f("text", "event", "Event", "For an event: its name, as in signup or form_submitted."),
		f("text", "property", "Property (optional)", "Only the event's hits whose property has the value below, as plan."),
		f("text", "value", "Value (optional)", "As pro."),
		f("text", "name", "Name (optional)", "What the reports call it; made from the page or event when empty.")}
}

func linkFields(in map[string]string, errs map[string]string) []web.Field {
	name := web.Field{Type: "text", ID: "link-name", Name: "name", Label: "Who it is for", Value: in["name"], Required: true}
	password := web.Field{Type: "password", ID: "link-password", Name: "password", Label: "Password (optional)",
		Help: "At least 8 characters; whoever opens the link is asked for it.", Autocomplete: "new-password"}
	if e := errs["name"]; e != "" {
		name.Errors = []string{e}
	}
	if e := errs["password"]; e != "" {
		password.Errors = []string{e}
	}
	return []web.Field{name, password}
}

func reportFields(in map[string]string, errs map[string]string) []web.Field {
	email := web.Field{Type: "email", ID: "report-email", Name: "email", Label: "Email address", Value: in["email"], Required: true,
		Autocomplete: "email"}
	period := web.Field{Type: "radio", ID: "report-period", Name: "period", Label: "How often", Required: true,
		Options: []web.Option{{Value: string(Weekly), Label: "Each Monday, the week before", Selected: in["period"] != string(Monthly)},
			{Value: string(Monthly), Label: "On the 1st, the month before", Selected: in["period"] == string(Monthly)}}}
	if e := errs["email"]; e != "" {
		email.Errors = []string{e}
	}
	if e := errs["period"]; e != "" {
		period.Errors = []string{e}
	}
	return []web.Field{email, period}
}

// hostFields is the addresses form's field: the hosts, one a line.
func hostFields(value string, errs map[string]string) []web.Field {
	f := web.Field{Type: web.TypeTextarea, ID: "site-hosts", Name: "hosts", Label: "Addresses, one a line", Value: value, Rows: 4,
		Help: "As shop.example.com. Every page of these hosts counts in these reports. Leave empty for none."}
	if e := errs["hosts"]; e != "" {
		f.Errors = []string{e}
	}
	return []web.Field{f}
}

// drawSettings renders the page; form names the form that failed (with
// its values and errors by field) or is nil.
func (d *Dashboard) drawSettings(w http.ResponseWriter, r *http.Request, status int, form map[string]map[string]string, errs map[string]map[string]string) error {
	ctx := r.Context()
	page := &settingsPage{Action: d.o.Path + "/settings", Dashboard: d.o.Path}
	if gs, ok := d.svc.o.Analytics.(GoalStore); ok {
		page.HasGoals = true
		goals, err := gs.Goals(ctx)
		if err != nil {
			return err
		}
		for _, g := range goals {
			page.Goals = append(page.Goals, settingsGoal{Goal: g, What: goalWhat(g)})
			if r.URL.Query().Get("remove-goal") == strconv.FormatInt(g.ID, 10) {
				page.Confirm = &settingsConfirm{Heading: "Remove the goal “" + g.Name + "”?",
					Said:   "Its conversions go with it, from every report and shared link. Added again, it is counted again over the traffic still kept.",
					Action: page.Action + "/goals/" + strconv.FormatInt(g.ID, 10) + "/delete", Button: "Yes, remove the goal"}
			}
		}
		page.GoalFields = goalFields(form["goals"], errs["goals"])
	}
	if d.o.SharedLinks != nil {
		page.HasLinks = true
		links, err := d.o.SharedLinks.SharedLinks(ctx)
		if err != nil {
			return err
		}
		page.Links = links
		page.LinkFields = linkFields(form["shared-links"], errs["shared-links"])
		for _, l := range links {
			if l.RevokedAt == nil && r.URL.Query().Get("revoke-link") == strconv.FormatInt(l.ID, 10) {
				page.Confirm = &settingsConfirm{Heading: "Revoke the link for “" + l.Name + "”?",
					Said:   "Whoever has it can no longer open the reports with it; that cannot be undone. Make a new link to share them again.",
					Action: page.Action + "/shared-links/" + strconv.FormatInt(l.ID, 10) + "/revoke", Button: "Yes, revoke the link"}
			}
		}
	}
	if d.o.EmailReports != nil {
		page.HasReports = true
		reports, err := d.o.EmailReports.o.Store.EmailReports(ctx)
		if err != nil {
			return err
		}
		page.Reports = reports
		page.ReportFields = reportFields(form["email-reports"], errs["email-reports"])
	}
	if a, ok := d.svc.o.Analytics.(*Analytics); ok {
		if hosts, err := a.siteHosts(ctx); !errors.Is(err, errNoHosts) {
			if err != nil {
				return err
			}
			page.HasHosts, page.Hosts = true, hosts
			value, failed := form["hosts"]["hosts"]
			if !failed {
				value = strings.Join(hosts, "\n")
			}
			page.HostFields = hostFields(value, errs["hosts"])
		}
	}
	page.Summary = web.Summary(append(append(append(slicesClone(page.GoalFields), page.LinkFields...), page.ReportFields...), page.HostFields...))
	d.render.Render(w, r, status, SettingsTemplate, &web.Page{Title: settingsTitle, Data: page, Wide: true,
		CSRF: web.CSRFToken(w, r), Flash: d.render.TakeFlash(w, r, page.Action)})
	return nil
}

// settingsTitle is the settings page's title, and the dashboard's link
// to it.
const settingsTitle = "Goals, shared links, email reports and addresses"

func slicesClone(f []web.Field) []web.Field { return append([]web.Field(nil), f...) }

// fieldOf is the field an error of ErrBadGoal, ErrBadSharedLink or
// ErrBadEmailReport names ("page: ..."), and its message.
func fieldOf(err, kind error, fallback string) (string, string) {
	msg := strings.TrimPrefix(err.Error(), kind.Error()+": ")
	if field, rest, ok := strings.Cut(msg, ": "); ok && !strings.Contains(field, " ") {
		return field, strings.ToUpper(rest[:1]) + rest[1:] + "."
	}
	return fallback, strings.ToUpper(msg[:1]) + msg[1:] + "."
}

// changeSettings answers the page's forms: a change, then back to the
// page with what was done said; a mistake, the page again with it.
func (d *Dashboard) changeSettings(w http.ResponseWriter, r *http.Request) error {
	if !d.manages(r) {
		return forbiddenSettings
	}
	ctx := r.Context()
	rest := strings.TrimPrefix(r.URL.Path, d.o.Path+"/settings/")
	section, action, _ := strings.Cut(rest, "/")
	id, _ := strconv.ParseInt(strings.Split(action, "/")[0], 10, 64)
	back := d.o.Path + "/settings"
	done := func(msg string) error {
		d.render.SetFlash(w, r, back, web.Flash{Kind: "success", Message: msg})
		http.Redirect(w, r, back, http.StatusSeeOther)
		return nil
	}
	mistake := func(kind error, err error, fallback string, values map[string]string) error {
		if !errors.Is(err, kind) {
			return err
		}
		field, msg := fieldOf(err, kind, fallback)
		return d.drawSettings(w, r, http.StatusUnprocessableEntity, map[string]map[string]string{section: values},
			map[string]map[string]string{section: {field: msg}})
	}
	values := map[string]string{}
	for _, k := range []string{"kind", "page", "event", "property", "value", "name", "email", "period"} {
		values[k] = strings.TrimSpace(r.PostFormValue(k))
	}
	gs, _ := d.svc.o.Analytics.(GoalStore)
	a, _ := d.svc.o.Analytics.(*Analytics)
	switch {
	case section == "goals" && action == "" && gs != nil:
		g := Goal{Name: values["name"], Property: values["property"], Value: values["value"]}
		if values["kind"] == "event" {
			g.Event = values["event"]
		} else {
			g.Page = values["page"]
		}
		if _, err := g.Normalize(); err != nil {
			return mistake(ErrBadGoal, err, "page", values)
		}
		g.CreatedAt = time.Now().UTC().Truncate(time.Second)
		made, err := gs.AddGoal(ctx, g)
		if err != nil {
			return mistake(ErrBadGoal, err, "page", values)
		}
		return done("The goal “" + made.Name + "” is counted from now on, and over the traffic already kept.")
	case section == "goals" && id > 0 && gs != nil:
		if err := gs.DeleteGoal(ctx, id); err != nil && !errors.Is(err, ErrGoalNotFound) {
			return err
		}
		return done("The goal and its counts are removed.")
	case section == "shared-links" && action == "" && d.o.SharedLinks != nil:
		l, err := MakeSharedLink(ctx, d.o.SharedLinks, values["name"], r.PostFormValue("password"), d.o.SharedPath)
		if err != nil {
			values["password"] = ""
			return mistake(ErrBadSharedLink, err, "name", values)
		}
		return done("The link for “" + l.Name + "” is " + absolute(r, d.o.HTTPOptions, l.Path) + " — copy it now: it is shown only this once.")
	case section == "shared-links" && id > 0 && d.o.SharedLinks != nil:
		if err := d.o.SharedLinks.RevokeSharedLink(ctx, id); err != nil && !errors.Is(err, ErrSharedLinkNotFound) {
			return err
		}
		return done("The link is revoked: it opens nothing from now on.")
	case section == "email-reports" && action == "" && d.o.EmailReports != nil:
		rep, err := d.o.EmailReports.Add(ctx, values["email"], ReportPeriod(values["period"]))
		if err != nil {
			return mistake(ErrBadEmailReport, err, "email", values)
		}
		return done(rep.Email + " gets the " + string(rep.Period) + " report: the first, of the last whole " +
			map[ReportPeriod]string{Weekly: "week", Monthly: "month"}[rep.Period] + ", within the hour.")
	case section == "hosts" && action == "" && a != nil && a.o.SiteHosts != nil:
		return d.changeHosts(w, r, a, done)
	case section == "email-reports" && id > 0 && d.o.EmailReports != nil:
		if err := d.o.EmailReports.o.Store.DeleteEmailReport(ctx, id); err != nil && !errors.Is(err, ErrEmailReportNotFound) {
			return err
		}
		return done("That address gets no more reports.")
	}
	return &web.Problem{Status: http.StatusNotFound, ErrorPage: web.ErrorPage{Heading: "Page not found", Message: "There is no such form here.",
		Link: back, LinkText: "Back to the settings"}}
}

// changeHosts answers the addresses form: the hosts, one a line (or
// apart by spaces or commas).
func (d *Dashboard) changeHosts(w http.ResponseWriter, r *http.Request, a *Analytics, done func(string) error) error {
	raw := r.PostFormValue("hosts")
	hosts := strings.FieldsFunc(raw, func(c rune) bool { return c == ',' || unicode.IsSpace(c) })
	again := func(msg string) error {
		return d.drawSettings(w, r, http.StatusUnprocessableEntity, map[string]map[string]string{"hosts": {"hosts": raw}},
			map[string]map[string]string{"hosts": {"hosts": msg}})
	}
	kept, taken, err := a.setSiteHosts(r.Context(), hosts)
	switch {
	case errors.Is(err, errBadHosts):
		return again(strings.TrimPrefix(err.Error(), errBadHosts.Error()+": "))
	case err != nil:
		return err
	case len(taken) > 0:
		return again(takenMessage(taken))
	case len(kept) == 0:
		return done("The site has no addresses of its own now: no page counts here but the server's own.")
	}
	return done("Saved: every page of " + strings.Join(kept, ", ") + " counts in these reports from now on.")
}

// absolute is path on the site's public address: the base URL, else the
// request's scheme and host.
func absolute(r *http.Request, o groundwork.HTTPOptions, path string) string {
	if o.BaseURL != nil {
		return strings.TrimSuffix(o.BaseURL.String(), "/") + path
	}
	scheme := "http"
	if proxies.ViaTLS(r, o.TrustedProxies) {
		scheme = "https"
	}
	return scheme + "://" + r.Host + path
}
