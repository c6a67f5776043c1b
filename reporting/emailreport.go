package reporting

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	netmail "net/mail"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/tenant"
)

// ReportPeriod is how often an email report is sent, and what it covers.
type ReportPeriod string

// The periods of the email reports.
const (
	Weekly  ReportPeriod = "weekly"
	Monthly ReportPeriod = "monthly"
)

// emailReportSweep is how often the reports due are looked for.
const emailReportSweep = time.Hour

// MaxEmailReports is how many addresses a site may send reports to.
const MaxEmailReports = 50

// EmailReport sends the analytics of each past week (Monday to Sunday)
// or month to an address.
type EmailReport struct {
	ID     int64        `json:"id"`
	Email  string       `json:"email"`
	Period ReportPeriod `json:"period"`
	// LastSent names the last period sent ("2026-W47", "2026-11"), ""
	// before the first.
	LastSent  string    `json:"last_sent"`
	CreatedAt time.Time `json:"created_at"`
	// Site is the site whose analytics the report sends (the tenant of the
	// context it was made in).
	Site string `json:"-"`
}

// ErrBadEmailReport wraps what is wrong with a new email report.
var ErrBadEmailReport = errors.New("reporting: bad email report")

// ErrEmailReportNotFound is an email report that is not there.
var ErrEmailReportNotFound = errors.New("reporting: no such email report")

// EmailReportStore keeps the email reports (reportingsql's Store).
type EmailReportStore interface {
	EmailReports(ctx context.Context) ([]EmailReport, error)
	// AddEmailReport keeps r; ErrBadEmailReport for an address already
	// sent that period's report, or past MaxEmailReports.
	AddEmailReport(ctx context.Context, r EmailReport) (EmailReport, error)
	DeleteEmailReport(ctx context.Context, id int64) error
	// ClaimEmailReports marks each report of period whose last period
	// sent is another than key as sent key, and runs enqueue for it in the
	// same transaction: a report is claimed once however many instances
	// ask. It returns how many.
	ClaimEmailReports(ctx context.Context, period ReportPeriod, key string, enqueue func(ctx context.Context, tx *sql.Tx, r EmailReport) error) (int, error)
}

// EmailReportsOptions configures [NewEmailReports].
type EmailReportsOptions struct {
	// Analytics makes the reports; Store keeps who gets them.
	Analytics *Analytics
	Store     EmailReportStore
	// Enqueuer queues one job per report due (a *store.Queue); Mailer
	// sends it.
	Enqueuer store.Enqueuer
	Mailer   mail.Mailer
	// From is the sender (the mailer's default when ""); SiteName names
	// the site in the subject; DashboardURL is the dashboard's absolute
	// address, linked from each report.
	From, SiteName, DashboardURL string
	Logger                       *slog.Logger
}

// EmailReports mails the weekly and monthly analytics: the totals with
// their change, and the top five pages, sources, countries and goals.
type EmailReports struct {
	o EmailReportsOptions
}

// NewEmailReports returns the email reports of o.Analytics.
func NewEmailReports(o EmailReportsOptions) (*EmailReports, error) {
	if o.Analytics == nil || o.Store == nil || o.Enqueuer == nil || o.Mailer == nil {
		return nil, errors.New("reporting: new email reports: Analytics, Store, Enqueuer and Mailer are required")
	}
	if o.SiteName == "" {
		o.SiteName = "your site"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &EmailReports{o: o}, nil
}

// Add checks and keeps a report of period (Weekly or Monthly) to email.
func (e *EmailReports) Add(ctx context.Context, email string, period ReportPeriod) (EmailReport, error) {
	addr, err := netmail.ParseAddress(strings.TrimSpace(email))
	switch {
	case err != nil || addr.Name != "" || len(addr.Address) > 254:
		return EmailReport{}, fmt.Errorf("%w: email: give one address, as name@example.com", ErrBadEmailReport)
	case period != Weekly && period != Monthly:
		return EmailReport{}, fmt.Errorf("%w: period: weekly or monthly", ErrBadEmailReport)
	}
	return e.o.Store.AddEmailReport(ctx, EmailReport{Email: addr.Address, Period: period, CreatedAt: time.Now().UTC().Truncate(time.Second)})
}

// period is the last whole week or month before now in loc: its key
// and its first and last days.
func lastPeriod(period ReportPeriod, now time.Time, loc *time.Location) (key string, from, to time.Time) {
	today := now.In(loc)
	today = time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, loc)
	if period == Monthly {
		first := time.Date(today.Year(), today.Month()-1, 1, 0, 0, 0, 0, loc)
		return first.Format("2006-01"), first, first.AddDate(0, 1, -1)
	}
	monday := today.AddDate(0, 0, -((int(today.Weekday())+6)%7)-7)
	year, week := monday.ISOWeek()
	return fmt.Sprintf("%d-W%02d", year, week), monday, monday.AddDate(0, 0, 6)
}

// emailReportArgs is the job that mails one report of one period.
type emailReportArgs struct {
	// Site is the report's site (none in a job queued before sites).
	Site string `json:"site,omitempty"`
	ID   int64  `json:"id"`
	Key  string `json:"key"`
	From string `json:"from"`
	To   string `json:"to"`
}

// Kind implements river.JobArgs.
func (emailReportArgs) Kind() string { return "reporting_email_report" }

// InsertOpts gives the job mail.MaxAttempts tries.
func (emailReportArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: mail.MaxAttempts}
}

// emailSweepArgs is the periodic job that queues the reports due.
type emailSweepArgs struct{}

// Kind implements river.JobArgs.
func (emailSweepArgs) Kind() string { return "reporting_email_reports" }

// Due queues a job for each report whose last whole period has not been
// sent, and returns how many.
func (e *EmailReports) Due(ctx context.Context) (int, error) {
	total := 0
	for _, period := range []ReportPeriod{Weekly, Monthly} {
		key, from, to := lastPeriod(period, e.o.Analytics.o.Now(), e.o.Analytics.o.Location)
		n, err := e.o.Store.ClaimEmailReports(ctx, period, key, func(ctx context.Context, tx *sql.Tx, r EmailReport) error {
			return e.o.Enqueuer.EnqueueTx(ctx, tx, emailReportArgs{Site: r.Site, ID: r.ID, Key: key, From: from.Format(time.DateOnly), To: to.Format(time.DateOnly)}, nil)
		})
		total += n
		if err != nil {
			return total, fmt.Errorf("reporting: email reports due: %w", err)
		}
	}
	return total, nil
}

// emailFigure is a total of the report with its change.
type emailFigure struct {
	Name, Value, Change string
}

// emailTable is a top five of the report.
type emailTable struct {
	Title, First, Column string
	Rows                 []emailRow
}

type emailRow struct{ Label, Value string }

type emailData struct {
	Site, Range, Dashboard string
	Figures                []emailFigure
	Tables                 []emailTable
}

// render is the report of the days from..to (YYYY-MM-DD) as a message.
func (e *EmailReports) render(ctx context.Context, to, from, until string) (mail.Message, error) {
	a := e.o.Analytics
	q := AnalyticsQuery{Start: from, End: until, Limit: 5}
	now, err := a.Overview(ctx, q)
	if err != nil {
		return mail.Message{}, err
	}
	was, err := a.Overview(ctx, previous(q))
	if err != nil {
		return mail.Message{}, err
	}
	first, _ := time.Parse(time.DateOnly, from)
	last, _ := time.Parse(time.DateOnly, until)
	d := emailData{Site: e.o.SiteName, Range: first.Format("2 January") + " to " + last.Format("2 January 2006"), Dashboard: e.o.DashboardURL}
	changeText := func(c Change) string {
		if c.Arrow == "" {
			return c.Text
		}
		word := map[string]string{"▲": "up", "▼": "down"}[c.Arrow]
		return word + " " + strings.TrimLeft(c.Text, "+−") + ", " + map[string]string{"good": "better", "bad": "worse"}[c.Class]
	}
	n, w := now.Totals, was.Totals
	d.Figures = []emailFigure{
		{"Visitors", num(n.Users), changeText(change(n.Users, w.Users, true))},
		{"Page views", num(n.PageViews), changeText(change(n.PageViews, w.PageViews, true))},
		{"Average visit", secs(n.AvgEngagementSeconds), changeText(change(n.AvgEngagementSeconds, w.AvgEngagementSeconds, true))},
	}
	if n.BounceRate != nil && w.BounceRate != nil {
		d.Figures = append(d.Figures, emailFigure{"Bounce rate", pct(*n.BounceRate), changeText(change(*n.BounceRate, *w.BounceRate, false))})
	}
	content, err := a.TopContent(ctx, q)
	if err != nil {
		return mail.Message{}, err
	}
	pages := emailTable{Title: "Top pages", First: "Page", Column: "Views"}
	for _, p := range content.TopPages {
		pages.Rows = append(pages.Rows, emailRow{p.Path, num(p.Views)})
	}
	d.Tables = append(d.Tables, pages)
	for _, t := range []struct {
		title, first string
		dim          Dimension
	}{{"Top sources", "Source", DimSource}, {"Top countries", "Country", DimCountry}} {
		b, err := a.Breakdown(ctx, t.dim, q)
		if err != nil {
			return mail.Message{}, err
		}
		table := emailTable{Title: t.title, First: t.first, Column: "Views"}
		for _, r := range b.Rows {
			label := r.Key
			if t.title == "Top countries" {
				label, _ = countryLabel(r.Key)
			}
			table.Rows = append(table.Rows, emailRow{label, num(r.Views)})
		}
		d.Tables = append(d.Tables, table)
	}
	if goals, err := a.GoalConversions(ctx, q); err == nil && len(goals.Goals) > 0 {
		table := emailTable{Title: "Goals", First: "Goal", Column: "Conversion rate"}
		for _, g := range goals.Goals[:min(len(goals.Goals), 5)] {
			table.Rows = append(table.Rows, emailRow{g.Goal.Name, pct(g.Period.Rate) + " (" + num(g.Period.Visitors) + " visitors)"})
		}
		d.Tables = append(d.Tables, table)
	} else if err != nil && !errors.Is(err, ErrNoGoals) {
		return mail.Message{}, err
	}
	var text, html bytes.Buffer
	if err := emailText.Execute(&text, d); err != nil {
		return mail.Message{}, err
	}
	if err := emailHTML.Execute(&html, d); err != nil {
		return mail.Message{}, err
	}
	return mail.Message{From: e.o.From, To: []string{to}, Subject: "Analytics of " + e.o.SiteName + ", " + d.Range,
		Text: text.String(), HTML: html.String()}, nil
}

var emailText = texttemplate.Must(texttemplate.New("text").Parse(`Analytics of {{.Site}}, {{.Range}} (against the same number of days before)
{{range .Figures}}
{{.Name}}: {{.Value}} ({{.Change}}){{end}}
{{range .Tables}}
{{.Title}} ({{.Column}}):
{{range .Rows}}- {{.Label}}: {{.Value}}
{{else}}- none
{{end}}{{end}}{{with .Dashboard}}
All the reports: {{.}}
{{end}}`))

var emailHTML = template.Must(template.New("html").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Analytics of {{.Site}}</title></head>
<body style="font-family:system-ui,sans-serif;color:#111827;line-height:1.5;max-width:40rem">
<h1 style="font-size:1.25rem">Analytics of {{.Site}}, {{.Range}}</h1>
<p>Against the same number of days before.</p>
<table style="border-collapse:collapse"><tbody>{{range .Figures}}<tr><th scope="row" style="text-align:left;padding:.25rem 1rem .25rem 0">{{.Name}}</th><td style="padding:.25rem 1rem .25rem 0"><strong>{{.Value}}</strong></td><td style="color:#4b5563">{{.Change}}</td></tr>{{end}}</tbody></table>
{{range .Tables}}<h2 style="font-size:1.0625rem">{{.Title}}</h2>
{{if .Rows}}<table style="border-collapse:collapse"><thead><tr><th scope="col" style="text-align:left;padding:.25rem 1rem .25rem 0">{{.First}}</th><th scope="col" style="text-align:right">{{.Column}}</th></tr></thead><tbody>
{{range .Rows}}<tr><td style="padding:.25rem 1rem .25rem 0">{{.Label}}</td><td style="text-align:right">{{.Value}}</td></tr>
{{end}}</tbody></table>{{else}}<p>None.</p>{{end}}
{{end}}{{with .Dashboard}}<p><a href="{{.}}">All the reports</a></p>{{end}}
</body></html>
`))

// send mails the report args names, of its days; a report removed since
// is not sent.
func (e *EmailReports) send(ctx context.Context, args emailReportArgs) error {
	ctx = tenant.With(ctx, args.Site) // the report, and the analytics it sends, are its site's
	list, err := e.o.Store.EmailReports(ctx)
	if err != nil {
		return err
	}
	for _, r := range list {
		if r.ID != args.ID {
			continue
		}
		msg, err := e.render(ctx, r.Email, args.From, args.To)
		if err != nil {
			return fmt.Errorf("reporting: email report %d: %w", r.ID, err)
		}
		if err := e.o.Mailer.Send(ctx, msg); err != nil {
			if errors.Is(err, mail.ErrInvalidMessage) {
				return river.JobCancel(fmt.Errorf("reporting: email report %d: %w", r.ID, err))
			}
			return fmt.Errorf("reporting: email report %d: %w", r.ID, err)
		}
		e.o.Logger.InfoContext(ctx, "reporting: email report sent", "id", r.ID, "period", args.Key)
	}
	return nil
}

type emailReportWorker struct {
	river.WorkerDefaults[emailReportArgs]
	e *EmailReports
}

func (w *emailReportWorker) Work(ctx context.Context, job *river.Job[emailReportArgs]) error {
	return w.e.send(mail.WithMessageID(ctx, mail.JobMessageID(job.Kind, job.ID)), job.Args)
}

// NextRetry waits mail.RetryDelay after a failed try.
func (w *emailReportWorker) NextRetry(job *river.Job[emailReportArgs]) time.Time {
	return time.Now().Add(mail.RetryDelay(job.Attempt))
}

type emailSweepWorker struct {
	river.WorkerDefaults[emailSweepArgs]
	e *EmailReports
}

func (w *emailSweepWorker) Work(ctx context.Context, _ *river.Job[emailSweepArgs]) error {
	_, err := w.e.Due(ctx)
	return err
}

// RegisterWorkers adds the sweep and the mailing to a queue's workers
// (see store.Queue.Workers). Register before the queue starts.
func (e *EmailReports) RegisterWorkers(workers *river.Workers) error {
	return errors.Join(river.AddWorkerSafely(workers, &emailReportWorker{e: e}), river.AddWorkerSafely(workers, &emailSweepWorker{e: e}))
}

// PeriodicJobs is the hourly sweep (River runs it on the
// leader; the claims hold across instances anyway); add it with
// store.Queue.AddPeriodicJobs.
func (e *EmailReports) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(emailReportSweep),
		func() (river.JobArgs, *river.InsertOpts) { return emailSweepArgs{}, nil },
		&river.PeriodicJobOpts{ID: emailSweepArgs{}.Kind(), RunOnStart: true})}
}
