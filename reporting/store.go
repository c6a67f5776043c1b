package reporting

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/reporting/reportingstore"
)

// Dimension is what a report breaks page views or events down by: a
// column of the first-party rollups.
type Dimension string

// Dimensions of the first-party rollups.
const (
	DimTotal   Dimension = "total"
	DimPage    Dimension = "page"
	DimEvent   Dimension = "event"
	DimSource  Dimension = "source"
	DimDevice  Dimension = "device"
	DimCountry Dimension = "country"
	// DimProp counts events by one of their properties: its keys are
	// PropKey(event, property, value).
	DimProp Dimension = "prop"
	// DimMedium, DimCampaign, DimTerm and DimContent count page views by
	// their address's utm_medium, utm_campaign, utm_term and utm_content.
	DimMedium   Dimension = "medium"
	DimCampaign Dimension = "campaign"
	DimTerm     Dimension = "term"
	DimContent  Dimension = "content"
	// DimBrowser and DimOS count page views by browser and operating
	// system, as the user agent names them ("Unknown" where it does not).
	DimBrowser Dimension = "browser"
	DimOS      Dimension = "os"
	// DimEntry counts sessions by the page they began on: Views and
	// Sessions are its entrances, Visitors the visitors who entered there,
	// Duration and Bounces those of the sessions that began there.
	DimEntry Dimension = "entry"
	// DimExit counts sessions by the page they ended on (so far): Views
	// are its exits, no visitors.
	DimExit Dimension = "exit"
)

// CampaignDims are the campaign dimensions, in the order of their utm_
// parameters.
var CampaignDims = []Dimension{DimMedium, DimCampaign, DimTerm, DimContent}

// Hit is one page view or named event, as the collector keeps it: no IP,
// no user agent, the visitor only as a hash with the day's salt.
type Hit struct {
	// Site is the site the hit was made on: the tenant whose analytics
	// count it ("" for a host without tenancy; see Site).
	Site string
	At   time.Time
	Day  string // YYYY-MM-DD in the site's zone
	// Visitor is the hex hash of (day's salt, site, IP, user agent).
	Visitor string
	// Event is "" for a page view, else the event's name.
	Event   string
	Path    string
	Title   string
	Source  string
	Device  string
	Country string
	// Props are an event's properties, by name (none for a page view).
	Props []Prop
	// Campaign is a page view's utm_medium, utm_campaign, utm_term and
	// utm_content, as CampaignDims ("" where its address has none).
	Campaign [4]string
	// Browser and OS are read from the user agent, which is not kept.
	Browser, OS string
	// Revenue is an event's amount in thousandths of its Currency's
	// unit (ISO 4217, "EUR"); 0 and "" for none.
	Revenue  int64
	Currency string
}

// Prop is one property of an event: "plan" = "pro".
type Prop struct {
	Name, Value string
}

// propSep joins an event, a property and a value in a DimProp key; none
// of them holds it (control characters are refused).
const propSep = "\x1f"

// PropKey is the DimProp key of an event's property value.
func PropKey(event, name, value string) string { return event + propSep + name + propSep + value }

// splitPropKey is PropKey undone; ok is false for a key it did not make.
func splitPropKey(key string) (event, name, value string, ok bool) {
	parts := strings.SplitN(key, propSep, 3)
	if len(parts) != 3 {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// Store keeps the first-party analytics. Implementations: reportingsql
// (SQLite and Postgres); reportingtest.RunStoreTests pins the contract.
//
// Every method but Salt, Forget and Record acts on one site: the tenant
// ctx acts for (tenant.Of), "" when it acts for every tenant; it reads and changes nothing of another; Record keeps each
// hit under its own Site. The stores of goals, shared links and email
// reports do the same.
//
// Store is this domain's adapter seam, as a driver is River's: the one
// interface a storage engine implements, and the only way the service
// reaches its data. A host keeps the SQL adapter (on its own *sql.DB, SQLite
// or Postgres) unless it brings another engine; an adapter is complete when
// the conformance suite passes on it.
type Store interface {
	// Salt returns day's salt: fresh when the day has none yet, else the
	// one stored first (every instance agrees).
	Salt(ctx context.Context, day string, fresh []byte) ([]byte, error)
	// Record adds hits in one transaction: each page view counts in the
	// total, in its page, source, device and country, in each pair of
	// its page, source and device and in the three together (for
	// Filtered); each event in its event. A visitor counts once per day
	// and dimension value (or pair, or triple); a page view more than visits.Gap after the visitor's last
	// one that day (or their first) starts a session, counted in the
	// total and in the view's values, and a nearer one adds the gap to
	// the day's duration. A session is also counted by its entry page
	// (DimEntry, with its duration and bounces) and its last page
	// (DimExit, moved as later views come); an event within a session
	// extends it and makes it no bounce. reached, when not nil, is called
	// inside that transaction with each goal a visitor reached for the
	// first time that day (in the hits' order), when there is one; its
	// error undoes the batch.
	Record(ctx context.Context, hits []Hit, reached func(ctx context.Context, tx *sql.Tx, r []GoalReached) error) error
	// Daily returns the rows of dim over the days from..to (inclusive),
	// summed per key, by views descending then key, at most limit (0 for
	// all); for DimTotal, one row per day, by day, with Key the day.
	Daily(ctx context.Context, dim Dimension, from, to string, limit int) ([]reportingstore.DailyRow, error)
	// Filtered is Daily over only the page views that have every one of
	// fs (one to three filters of distinct PairDims dimensions): the
	// rows of dim (DimPage, DimSource or DimDevice; a filtered dimension
	// gives its value's row alone), or for DimTotal one row per day.
	// Sessions are those that began with such a view; Duration is not
	// kept per value (0).
	Filtered(ctx context.Context, fs Filters, dim Dimension, from, to string, limit int) ([]reportingstore.DailyRow, error)
	// Recent counts the visitors of the given days whose last page view
	// was at or after since (the visitors "now").
	Recent(ctx context.Context, days []string, since time.Time) (int, error)
	// Forget deletes the salts of days before day and the uniques of days
	// before day−1: after that no hash can be tied to anything (day "" for
	// none). When prune is not "", it also deletes the rollups of days
	// before prune, and returns how many rows.
	Forget(ctx context.Context, day, prune string) (int, error)
}

// Filter narrows a report to the page views with one value of one
// dimension (one of FilterDims): Dim is DimPage (Value a path),
// DimSource, DimDevice, DimCountry (an ISO code), DimBrowser, DimOS, a
// campaign dimension (CampaignDims), DimGoal (Value a goal's ID, or a
// step in place, "page:/pricing" or "event:form_submitted", as a goal of
// that page or event: the views of the visitors who reached it that day)
// or DimProp (Value
// "name:value", split at the first colon: the views of the visitors who
// sent an event with that property that day).
type Filter struct {
	Dim   Dimension
	Value string
}

// BreakdownDims are the dimensions DetailSource.Breakdown takes: the
// source, the device class, the country, the browser, the operating
// system, and the campaign dimensions.
var BreakdownDims = append([]Dimension{DimSource, DimDevice, DimCountry, DimBrowser, DimOS}, CampaignDims...)

// FilterDims are the dimensions a report can be filtered by, in the
// order the dashboard's query parameters are read and filters are
// listed.
var FilterDims = []Dimension{DimPage, DimSource, DimDevice, DimCountry, DimBrowser, DimOS, DimMedium, DimCampaign, DimTerm, DimContent,
	DimGoal, DimProp}

// PairDims are the dimensions whose pairs and triples the first-party
// store keeps over their whole history (Store.Filtered); a report
// filtered by others reads the views kept by visitor (SegmentStore).
var PairDims = []Dimension{DimPage, DimSource, DimDevice}

// PropFilter is the Filter value of an event property: "name:value".
func PropFilter(name, value string) string { return name + ":" + value }

// SplitPropFilter is PropFilter undone, at the first colon.
func SplitPropFilter(v string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(v, ":")
	return name, value, ok && name != ""
}

// IsZero reports whether f filters nothing.
func (f Filter) IsZero() bool { return f == Filter{} }

// Valid reports whether f is zero or names a FilterDims dimension and a
// value of its kind (a goal's ID a positive number, a property
// "name:value").
func (f Filter) Valid() bool {
	if f.IsZero() {
		return true
	}
	if f.Value == "" || !slices.Contains(FilterDims, f.Dim) {
		return false
	}
	switch f.Dim {
	case DimGoal:
		if g, ok := stepGoal(f.Value); ok {
			_, err := g.Normalize()
			return err == nil
		}
		id, err := strconv.ParseInt(f.Value, 10, 64)
		return err == nil && id > 0
	case DimProp:
		_, _, ok := SplitPropFilter(f.Value)
		return ok
	}
	return true
}

// Filters narrow a report to the page views that have all of them (AND),
// at most one value per dimension but goals, which may come several
// times (the visitors who reached each): the page /pricing, from
// google.com, on mobile.
type Filters []Filter

// Valid reports whether every filter is a valid, non-zero Filter and no
// dimension but DimGoal comes twice.
func (fs Filters) Valid() bool {
	for i, f := range fs {
		if f.IsZero() || !f.Valid() || f.Dim != DimGoal && slices.ContainsFunc(fs[:i], func(g Filter) bool { return g.Dim == f.Dim }) {
			return false
		}
	}
	return true
}

// Value is the value fs keeps of dim.
func (fs Filters) Value(dim Dimension) (string, bool) {
	for _, f := range fs {
		if f.Dim == dim {
			return f.Value, true
		}
	}
	return "", false
}

// With is fs with f in place of any filter of f.Dim, in FilterDims order.
func (fs Filters) With(f Filter) Filters {
	return append(fs.Without(f.Dim), f).Sorted()
}

// Without is fs without its filter of dim.
func (fs Filters) Without(dim Dimension) Filters {
	out := make(Filters, 0, len(fs)+1)
	for _, g := range fs {
		if g.Dim != dim {
			out = append(out, g)
		}
	}
	return out
}

// Sorted is a copy of fs in FilterDims order, so equal sets read alike.
func (fs Filters) Sorted() Filters {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b Filter) int {
		return slices.Index(FilterDims, a.Dim) - slices.Index(FilterDims, b.Dim)
	})
	return out
}
