package reporting

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// panel is one table of the dashboard beyond the totals: its rows as
// shown, and as exported (CSV).
type panel struct {
	// ID names the panel's heading and its CSV (?export=ID).
	ID, Title, Caption string
	// First heads the first column, Head the others.
	First string
	Head  []string
	Rows  []panelRow
	// Export is the CSV's address; Empty is said when there are no rows;
	// Note is said instead of the table (a report the source cannot
	// narrow by the filters), with a way back to all visits.
	Export, Empty, Note string
	// Form, when set, chooses what the panel shows (an event's
	// properties) without JavaScript: a form to Action keeping Keep.
	Form   *panelForm
	Action string
	Keep   []hiddenField
	// AllURL is the report unfiltered.
	AllURL string
	// Span makes the panel as wide as the page (more columns than half
	// of it holds: the goals with their revenue).
	Span bool
	// csvHead and the rows' CSV are the export.
	csvHead []string
}

// panelRow is a row: its label (a flag before it, a line above it, a
// line under it, in code type when Code), a link that filters the report
// to it, its cells and its share of the whole (a bar).
type panelRow struct {
	Label, Sub, Flag string
	Detail           string
	Code             bool
	Filter           *filterCell
	Cells            []string
	Share            float64
	HasShare         bool
	csv              []string
}

// hiddenField is a query parameter a form keeps.
type hiddenField struct{ Name, Value string }

// panelForm is a choice the panel offers: a select named Name.
type panelForm struct {
	Name, Label string
	Options     []panelOption
}

type panelOption struct {
	Value    string
	Selected bool
}

// panelIDs are the panels beyond the first four tables, in the order
// shown, each a CSV export.
var panelIDs = []string{"goals", "entry-pages", "exit-pages", "countries", "browsers", "operating-systems", "campaigns", "event-properties",
	"outbound-links", "file-downloads", "not-found", "scroll-depth", "time-on-page"}

// cardGroups are the cards that show one of several tables, a tab each
// (?pages=entry-pages): the card's ID (the first table's, shown when no
// tab is chosen) and the others' panel IDs. A card keeps the page short
// (Plausible's tabbed cards), and only the chosen table is read.
// A card whose first table is a panel too names it (firstPanel); the
// others' first is drawn by the page.
var cardGroups = []struct {
	id, label, first, firstPanel string
	tabs                         []string
}{
	{"pages", "Pages", "Top pages", "", []string{"entry-pages", "exit-pages"}},
	{"sources", "Sources", "Sources", "", []string{"campaigns"}},
	{"devices", "Devices", "Devices", "", []string{"browsers", "operating-systems"}},
	{"behaviour", "Behaviour", "Outbound links", "outbound-links", []string{"file-downloads", "not-found", "scroll-depth", "time-on-page"}},
}

// cardTab is a card's choice of its tables: its name, and each tab's
// link, the chosen one Current; Panel is the chosen table when it is not
// the card's first (which the page draws itself).
type cardTab struct {
	Label string
	Tabs  []tabLink
	Panel *panel
}

// tabLink is one tab of a card.
type tabLink struct {
	Text, URL string
	Current   bool
}

// groupOf is the card panel id is a tab of ("" for none).
func groupOf(id string) string {
	for _, g := range cardGroups {
		if slices.Contains(g.tabs, id) || id == g.firstPanel {
			return g.id
		}
	}
	return ""
}

// cards are the page's tabbed cards by ID, each with its tabs' links
// (keeping the range, the filters and the other cards' tabs) and its
// chosen panel, taken out of panels.
func (p *dashboardPage) cards(panels []panel) (map[string]*cardTab, []panel) {
	out := map[string]*cardTab{}
	for _, g := range cardGroups {
		c := &cardTab{Label: g.label}
		chosen := p.tabs[g.id]
		for _, id := range append([]string{""}, g.tabs...) {
			v := p.query(p.Filters)
			text := g.first
			if id == "" {
				v.Del(g.id)
			} else {
				v.Set(g.id, id)
				text = cmp.Or(panelTitles[id], behaviourPanels[id].title)
			}
			c.Tabs = append(c.Tabs, tabLink{Text: text, URL: p.Path + "?" + v.Encode() + "#" + g.id, Current: id == chosen})
		}
		out[g.id] = c
	}
	var rest []panel
	for i := range panels {
		if g := groupOf(panels[i].ID); g != "" {
			out[g].Panel = &panels[i]
			continue
		}
		rest = append(rest, panels[i])
	}
	return out, rest
}

// chosenTab is the table card g shows: the tab chosen, else its first
// panel ("" when its first is the page's own).
func (p *dashboardPage) chosenTab(g string) string {
	if t := p.tabs[g]; t != "" {
		return t
	}
	for _, c := range cardGroups {
		if c.id == g {
			return c.firstPanel
		}
	}
	return ""
}

// panelTitles are the tabs' words for the panels a card holds (the
// Behaviour card's are its panels' titles).
var panelTitles = map[string]string{"entry-pages": "Entry pages", "exit-pages": "Exit pages", "campaigns": "Campaigns",
	"browsers": "Browsers", "operating-systems": "Operating systems"}

// panels makes the dashboard's further panels the source has (of a
// tabbed card's, only the tab chosen); a panel the filters cannot narrow
// says so instead.
func (d *Dashboard) panels(ctx context.Context, p *dashboardPage, q AnalyticsQuery, topEvents []ContentEvent) ([]panel, error) {
	var out []panel
	for _, id := range panelIDs {
		if g := groupOf(id); g != "" && p.chosenTab(g) != id {
			continue
		}
		pn, ok, err := d.panel(ctx, p, q, id, topEvents)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, pn)
		}
	}
	return out, nil
}

// panel makes the panel id, ok false when the source has no such report.
func (d *Dashboard) panel(ctx context.Context, p *dashboardPage, q AnalyticsQuery, id string, topEvents []ContentEvent) (panel, bool, error) {
	src := d.svc.o.Analytics
	pn := newPanel(p, id)
	f := filling{pn: &pn, p: p, q: q, place: cmp.Or(groupOf(id), id)}
	var err error
	ds, ok := src.(DetailSource)
	if !ok {
		return pn, false, nil
	}
	switch id {
	case "goals":
		err = f.goals(ctx, ds)
	case "entry-pages":
		err = f.entryPages(ctx, ds)
	case "exit-pages":
		err = f.exitPages(ctx, ds)
	case "countries", "browsers", "operating-systems", "campaigns":
		err = f.dimension(ctx, ds, id)
	case "event-properties":
		err = f.eventProperties(ctx, ds, topEvents)
	default:
		err = f.behaviour(ctx, ds, id)
	}
	return pn, true, err
}

// newPanel is panel id with what every panel has: its export link, the
// fields its form keeps (the range and the filters), an empty message.
func newPanel(p *dashboardPage, id string) panel {
	pn := panel{ID: id, Export: p.URL(p.Filters, id), Empty: "No page views in this range.", AllURL: p.AllURL(), Action: p.Path}
	for _, k := range slices.Sorted(maps.Keys(p.rangeQuery)) {
		for _, v := range p.rangeQuery[k] {
			pn.Keep = append(pn.Keep, hiddenField{k, v})
		}
	}
	for _, f := range p.Filters {
		pn.Keep = append(pn.Keep, hiddenField{string(f.Dim), f.Value})
	}
	return pn
}

// filling is a panel being filled from its source, for the page p and
// the query q; its rows' links come back to place (the panel, or the
// card that holds it).
type filling struct {
	pn    *panel
	p     *dashboardPage
	q     AnalyticsQuery
	place string
}

// narrowed is err, or nil with the panel's Note said when the source
// cannot narrow the table by the filters.
func (f filling) narrowed(err error) error {
	if errors.Is(err, ErrBadFilter) && len(f.q.Filters) > 0 {
		f.pn.Note, f.pn.Rows = "This table is not kept for these filters.", nil
		return nil
	}
	return err
}

// cell is a row's link that adds dim's value to the filters, said as
// text.
func (f filling) cell(dim Dimension, value, text string) *filterCell {
	c := f.p.cellAt(f.place, dim, value)
	c.Value = text
	return &c
}

// breakdown fills the panel with the rows read gives, first naming its
// first column and dim the dimension a row's link filters by; label,
// when given, says a key as text with a flag.
func (f filling) breakdown(first string, dim Dimension, read func() (Breakdown, error), label func(string) (string, string)) error {
	pn := f.pn
	pn.First, pn.Head = first, []string{"Views", "Visitors", "Share"}
	pn.csvHead = []string{strings.ToLower(strings.ReplaceAll(first, " ", "_")), "views", "visitors", "share"}
	b, err := read()
	if err != nil {
		return f.narrowed(err)
	}
	for _, r := range b.Rows {
		text, flag := r.Key, ""
		if label != nil {
			text, flag = label(r.Key)
		}
		pn.Rows = append(pn.Rows, panelRow{Label: text, Flag: flag, Filter: f.cell(dim, r.Key, text),
			Cells: []string{num(r.Views), num(r.Users), pct(r.Shares)}, Share: r.Shares, HasShare: true,
			csv: []string{r.Key, num(r.Views), num(r.Users), strconv.FormatFloat(r.Shares, 'f', 4, 64)}})
	}
	return nil
}

// breakdownPanels are the panels of one dimension each: the title,
// caption, first column, message when empty, and the dimension.
var breakdownPanels = map[string]struct {
	title, caption, first, empty string
	dim                          Dimension
	label                        func(string) (string, string)
}{
	"countries":         {"Countries", "Page views by country", "Country", "No page views of a known country in this range.", DimCountry, countryLabel},
	"browsers":          {"Browsers", "Page views by browser", "Browser", "", DimBrowser, nil},
	"operating-systems": {"Operating systems", "Page views by operating system", "System", "", DimOS, nil},
	"campaigns":         {"Campaigns", "Page views by utm_campaign", "Campaign", "No page views with a utm_campaign in this range.", DimCampaign, nil},
}

// dimension fills the panel id of one dimension from b.
func (f filling) dimension(ctx context.Context, b DetailSource, id string) error {
	bp := breakdownPanels[id]
	f.pn.Title, f.pn.Caption = bp.title, bp.caption
	if bp.empty != "" {
		f.pn.Empty = bp.empty
	}
	return f.breakdown(bp.first, bp.dim, func() (Breakdown, error) { return b.Breakdown(ctx, bp.dim, f.q) }, bp.label)
}

// goals fills the goals panel: each goal's visitors, conversions and
// rate, beside the rate of the range before.
func (f filling) goals(ctx context.Context, gs DetailSource) error {
	pn := f.pn
	pn.Title, pn.Caption, pn.First = "Goals", "Goals by visitors who converted", "Goal"
	pn.Head = []string{"Visitors", "Conversions", "Rate", "Before"}
	pn.csvHead = []string{"goal", "visitors", "conversions", "conversion_rate", "previous_conversion_rate"}
	pn.Empty = "No goals yet: make one with POST /analytics-goals."
	c, err := gs.GoalConversions(ctx, f.q)
	if err != nil {
		return f.narrowed(err)
	}
	pn.csvHead = append(pn.csvHead, "revenue", "average_revenue")
	earned := slices.ContainsFunc(c.Goals, func(g GoalConversion) bool { return len(g.Period.Revenue) > 0 })
	if earned {
		pn.Head, pn.Span = append(pn.Head, "Revenue", "Average"), true
	}
	for _, g := range c.Goals {
		row := panelRow{Label: g.Goal.Name, Detail: goalWhat(g.Goal),
			Filter: f.cell(DimGoal, strconv.FormatInt(g.Goal.ID, 10), g.Goal.Name),
			Cells:  []string{num(g.Period.Visitors), num(g.Period.Conversions), pct(g.Period.Rate), pct(g.Previous.Rate)},
			csv: []string{g.Goal.Name, num(g.Period.Visitors), num(g.Period.Conversions), strconv.FormatFloat(g.Period.Rate, 'f', 4, 64),
				strconv.FormatFloat(g.Previous.Rate, 'f', 4, 64), amounts(g.Period.Revenue, "; ", false), amounts(g.Period.AverageRevenue, "; ", false)}}
		if earned {
			row.Cells = append(row.Cells, cmp.Or(amounts(g.Period.Revenue, ", ", true), "–"), cmp.Or(amounts(g.Period.AverageRevenue, ", ", true), "–"))
		}
		pn.Rows = append(pn.Rows, row)
	}
	return nil
}

// amounts says a goal's revenue by currency, in the currencies' order,
// joined by sep: "15,337.00 EUR, 1,999.999 USD" (two places, three where
// the third is not 0; thousands grouped when group); "" for none.
func amounts(m map[string]float64, sep string, group bool) string {
	var out []string
	for _, c := range slices.Sorted(maps.Keys(m)) {
		whole, frac, _ := strings.Cut(strconv.FormatFloat(m[c], 'f', 3, 64), ".")
		if n, _ := strconv.ParseFloat(whole, 64); group {
			whole = num(n)
		}
		out = append(out, whole+"."+strings.TrimSuffix(frac, "0")+" "+c)
	}
	return strings.Join(out, sep)
}

// entryPages fills the entry pages panel: entrances, bounce rate and
// average visit of each page visits began on.
func (f filling) entryPages(ctx context.Context, s DetailSource) error {
	pn := f.pn
	pn.First = "Page"
	pn.Title, pn.Caption, pn.Empty = "Entry pages", "Pages visits began on, by entrances", "No visits began on these pages in this range."
	pn.Head = []string{"Entrances", "Bounce rate", "Average visit"}
	pn.csvHead = []string{"path", "title", "entrances", "visitors", "bounce_rate", "average_visit_seconds"}
	e, err := s.EntryPages(ctx, f.q)
	if err != nil {
		return f.narrowed(err)
	}
	for _, r := range e.Rows {
		pn.Rows = append(pn.Rows, panelRow{Label: r.Path, Sub: r.Title, Code: true, Filter: f.cell(DimPage, r.Path, r.Path),
			Cells: []string{num(r.Entrances), pct(r.BounceRate), secs(r.AvgSeconds)},
			csv: []string{r.Path, r.Title, num(r.Entrances), num(r.Users), strconv.FormatFloat(r.BounceRate, 'f', 4, 64),
				strconv.FormatFloat(r.AvgSeconds, 'f', 1, 64)}})
	}
	return nil
}

// exitPages fills the exit pages panel: exits and exit rate of each page
// visits ended on.
func (f filling) exitPages(ctx context.Context, s DetailSource) error {
	pn := f.pn
	pn.First = "Page"
	pn.Title, pn.Caption, pn.Empty = "Exit pages", "Pages visits ended on, by exits", "No visits ended on these pages in this range."
	pn.Head = []string{"Exits", "Exit rate"}
	pn.csvHead = []string{"path", "title", "exits", "views", "exit_rate"}
	e, err := s.ExitPages(ctx, f.q)
	if err != nil {
		return f.narrowed(err)
	}
	for _, r := range e.Rows {
		pn.Rows = append(pn.Rows, panelRow{Label: r.Path, Sub: r.Title, Code: true, Filter: f.cell(DimPage, r.Path, r.Path),
			Cells: []string{num(r.Exits), pct(r.ExitRate)},
			csv:   []string{r.Path, r.Title, num(r.Exits), num(r.Views), strconv.FormatFloat(r.ExitRate, 'f', 4, 64)}})
	}
	return nil
}

// eventProperties fills the event properties panel: the properties of
// the event the page names (or the top one) by count, with a form to
// pick another.
func (f filling) eventProperties(ctx context.Context, ps DetailSource, topEvents []ContentEvent) error {
	pn := f.pn
	pn.Title, pn.Caption, pn.First = "Event properties", "An event's properties by count", "Property: value"
	pn.Head = []string{"Count", "Visitors"}
	pn.csvHead = []string{"event", "property", "value", "count", "visitors"}
	event := f.p.Event
	if event == "" && len(topEvents) > 0 {
		event = topEvents[0].Event
	}
	if event == "" {
		pn.Empty = "No events in this range."
		return nil
	}
	pn.Caption = "The properties of " + event + " by count"
	pn.Empty = "No properties of " + event + " in this range."
	pn.Form = &panelForm{Name: "event", Label: "Event"}
	for _, e := range topEvents {
		pn.Form.Options = append(pn.Form.Options, panelOption{Value: e.Event, Selected: e.Event == event})
	}
	if !containsEvent(topEvents, event) {
		pn.Form.Options = append(pn.Form.Options, panelOption{Value: event, Selected: true})
	}
	pq := f.q
	pq.Event = event
	e, err := ps.EventProperties(ctx, pq)
	if err != nil {
		return f.narrowed(err)
	}
	for _, v := range e.Properties[:min(len(e.Properties), max(f.q.Limit, 10))] {
		pn.Rows = append(pn.Rows, panelRow{Label: v.Property + ": " + v.Value, Code: true,
			Filter: f.cell(DimProp, PropFilter(v.Property, v.Value), v.Property+": "+v.Value), Cells: []string{num(v.Count), num(v.Users)},
			csv: []string{event, v.Property, v.Value, num(v.Count), num(v.Users)}})
	}
	return nil
}

// behaviourPanels are the panels of what the script's opt-in events
// tell, each one prop of one event: its title, caption, first column, the
// attribute that turns it on (said when it is empty), and, for a banded
// prop, its bands in order (the rows then follow them, not the counts).
var behaviourPanels = map[string]struct {
	title, caption, first, event, prop, attribute string
	bands                                         []bandFrom
}{
	"outbound-links": {"Outbound links", "Clicks on links to other sites", "Link", eventOutbound, "url", "data-outbound", nil},
	"file-downloads": {"File downloads", "Clicks on links to files", "File", eventDownload, "url", "data-downloads", nil},
	"not-found":      {"Pages not found", "Visits to pages the site answered 404", "Page", eventNotFound, "path", "data-404", nil},
	"scroll-depth":   {"Scroll depth", "How far down visitors read a page", "Read", eventEngagement, "scroll_depth", "data-engagement", scrollBands},
	"time-on-page":   {"Time on page", "How long visitors saw a page", "Seen for", eventEngagement, "time_on_page", "data-engagement", timeBands},
}

// behaviour fills the panel id of behaviourPanels: its event's prop, by
// count, each row filtering the report to the visitors it counts.
func (f filling) behaviour(ctx context.Context, ds DetailSource, id string) error {
	bp := behaviourPanels[id]
	pn := f.pn
	pn.Title, pn.Caption, pn.First = bp.title, bp.caption, bp.first
	pn.Head = []string{"Count", "Visitors"}
	pn.csvHead = []string{bp.prop, "count", "visitors"}
	pn.Empty = "None in this range. The analytics script counts them when its tag has " + bp.attribute + "."
	q := f.q
	q.Event = bp.event
	e, err := ds.EventProperties(ctx, q)
	if err != nil {
		return f.narrowed(err)
	}
	var rows []PropertyValue
	for _, v := range e.Properties {
		if v.Property == bp.prop {
			rows = append(rows, v)
		}
	}
	if bp.bands != nil {
		order := func(v string) int { return slices.IndexFunc(bp.bands, func(b bandFrom) bool { return b.label == v }) }
		slices.SortStableFunc(rows, func(a, b PropertyValue) int { return order(a.Value) - order(b.Value) })
	}
	for _, v := range rows[:min(len(rows), max(f.q.Limit, 10))] {
		pn.Rows = append(pn.Rows, panelRow{Label: v.Value, Code: bp.bands == nil,
			Filter: f.cell(DimProp, PropFilter(v.Property, v.Value), v.Value), Cells: []string{num(v.Count), num(v.Users)},
			csv: []string{v.Value, num(v.Count), num(v.Users)}})
	}
	return nil
}

func containsEvent(events []ContentEvent, name string) bool {
	for _, e := range events {
		if e.Event == name {
			return true
		}
	}
	return false
}

// goalWhat says what a goal counts: "a visit to /thanks", "signup with
// plan pro".
func goalWhat(g Goal) string {
	switch {
	case g.Page != "":
		return "A visit to " + g.Page
	case g.Property != "":
		return "The event " + g.Event + " with " + g.Property + " " + g.Value
	}
	return "The event " + g.Event
}

// funnelPanel is the dashboard's funnel: the form of its steps (as many
// inputs as the steps asked and one more, at least four, at most
// funnelStepsMax) and, once two are given, the report.
type funnelPanel struct {
	Action string
	Keep   []hiddenField
	Inputs []funnelInput
	// Names are the suggestions for a step: the goals' names and the
	// events of the range.
	Names []string
	// Error says what is wrong with the steps asked.
	Error  string
	Report *Funnel
}

// funnelInput is one step's input.
type funnelInput struct {
	N     int
	Value string
}

// funnelInputsMin is how many step inputs the form shows at least.
const funnelInputsMin = 4

// funnel is the panel for the page's steps (?step=, in order), under q.
func (d *Dashboard) funnel(ctx context.Context, p *dashboardPage, q AnalyticsQuery, events []ContentEvent) *funnelPanel {
	ds, ok := d.svc.o.Analytics.(DetailSource)
	if !ok {
		return nil
	}
	f := &funnelPanel{Action: p.Path}
	f.Keep = newPanel(p, "funnel").Keep
	goals, _ := d.goals(ctx) // none: steps by page and event only
	names := map[string]bool{}
	for _, g := range goals {
		names[g.Name] = true
	}
	for _, e := range events {
		names[e.Event] = true
	}
	f.Names = slices.Sorted(maps.Keys(names))
	var steps []string
	for _, v := range p.steps {
		if v = strings.TrimSpace(v); v != "" && len(f.Inputs) < funnelStepsMax {
			f.Inputs = append(f.Inputs, funnelInput{N: len(f.Inputs) + 1, Value: v})
			steps = append(steps, stepOf(v, goals))
		}
	}
	for len(f.Inputs) < min(max(funnelInputsMin, len(steps)+1), funnelStepsMax) {
		f.Inputs = append(f.Inputs, funnelInput{N: len(f.Inputs) + 1})
	}
	switch {
	case len(p.steps) == 0:
		return f
	case len(steps) < funnelStepsMin:
		f.Error = "Give at least two steps."
		return f
	}
	report, err := ds.Funnel(ctx, q, steps)
	switch {
	case errors.Is(err, ErrBadGoal) || errors.Is(err, ErrGoalNotFound):
		f.Error = "A step is not a page (it starts with /), an event or a goal: " + strings.TrimPrefix(err.Error(), ErrBadGoal.Error()+": ") + "."
	case errors.Is(err, ErrBadFilter):
		f.Error = "The funnel cannot be drawn under these filters: drop one of them above."
	case err != nil:
		d.o.Logger.ErrorContext(ctx, "reporting: dashboard funnel", "error", err)
		f.Error = "The funnel could not be drawn. Try again in a moment."
	default:
		f.Report = &report
	}
	return f
}

// stepOf is a step as the dashboard's form says it, as Funnel takes it:
// a page ("/pricing", "/blog/*") is page:, a goal's name (letter case
// aside) its ID, "page:…", "event:…" and a goal's ID as they are, and
// anything else an event's name.
func stepOf(v string, goals []Goal) string {
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "*") {
		return "page:" + v
	}
	if strings.HasPrefix(v, "page:") || strings.HasPrefix(v, "event:") {
		return v
	}
	for _, g := range goals {
		if strings.EqualFold(g.Name, v) {
			return strconv.FormatInt(g.ID, 10)
		}
	}
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return v
	}
	return "event:" + v
}
