// Package counting holds the rules by which the first-party analytics
// counts a hit: which values it counts a view of, a visitor for (the
// first time they have the value that day) and a session for; when it
// begins a session, what it adds to one (through [visits.Session]) and
// where it moves the session's exit. It reads no database and no clock:
// a store keeps each visitor's [Day] between batches, calls [Count] for
// each hit in time order, and adds the [Row]s it is told to its daily
// rollups, in its own tables. reportingsql is such a store; another
// (a column store, say) follows the same rules by calling Count.
package counting

import (
	"strconv"
	"time"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/visits"
)

// Seen is the values a visitor was counted for on a day, as their store
// keeps them from batch to batch. The values Count claims each begin
// with a lowercase letter and a colon ([Scope]'s); a store counting
// rollups of its own (pairs of values, say) claims values of its own
// that begin otherwise.
type Seen interface {
	// Claim adds value and reports whether it was not there yet: the
	// visitor is new for it.
	Claim(value string) bool
}

// Day is a visitor's day as a store keeps it: their current session
// (nil until a page view begins one) and what they were counted for.
type Day struct {
	Session *visits.Session
	Seen    Seen
}

// Row is what a hit adds to the day's counts of one value of a
// dimension: Key's row of Dim. The counts are changes (a session's exit
// moving away takes a view off its old page's exit row). Label, when
// not empty, replaces the row's label (a page's title).
type Row struct {
	Dim                                          reporting.Dimension
	Key, Label                                   string
	Views, Visitors, Sessions, Bounces, Duration int64
}

// Counted is what one hit did: the rows it adds to (an exit that moved
// is a -1 on its old page's exit row), and what it did to the visitor's
// session, for a store that keeps more than the rows
// (reportingsql keeps each visitor's page views, and moves their
// sessions, entrances and exits with them).
type Counted struct {
	Rows []Row
	// Began is true for a page view that began a session (an entrance
	// of its page, its exit, and a bounce until another hit comes).
	Began bool
	// Extended is true for a hit that fell in the visitor's session
	// (within visits.Gap of its last hit); Step says what it added.
	Extended bool
	Step     visits.Step
}

// Scope is the value a visitor's Day claims for having been counted
// for dim's key: "p:/pricing" for the page /pricing. DimTotal (whose
// key is "") is the visitor being counted for the day at all. dim is one
// a visitor is counted for once a day: not the exit, browser or system
// (whose visitor is the day's), whose scope is "".
func Scope(dim reporting.Dimension, key string) string {
	code, ok := scopeCodes[dim]
	if !ok {
		return ""
	}
	return code + key
}

// scopeCodes begin the values a visitor is counted for, by dimension.
// They are kept in every visitor's Day as it is stored: never change
// one.
var scopeCodes = map[reporting.Dimension]string{
	reporting.DimTotal: "t:", reporting.DimPage: "p:", reporting.DimSource: "s:", reporting.DimDevice: "d:",
	reporting.DimEntry: "a:", reporting.DimCountry: "c:", reporting.DimEvent: "e:", reporting.DimProp: "v:",
	reporting.DimGoal: "g:", reporting.DimMedium: "m:", reporting.DimCampaign: "n:", reporting.DimTerm: "k:",
	reporting.DimContent: "o:",
}

// dimRevenue counts the revenue of a goal's conversions, by the goal's ID
// and the currency (key "7<US>EUR"): a row's views are its amounts
// summed, in thousandths of the currency's unit, and its sessions the
// conversions that carried one. The reports read it by this name.
const (
	dimRevenue reporting.Dimension = "revenue"
	revenueSep                     = "\x1f"
)

// Count counts h, a hit of d's visitor on their day, into c (its Rows
// are reused) and moves d on: its session, and the values claimed.
// Hits must come in time order. goals are the goals counted.
//
// The rules: a goal h matches is a view of the goal (its key the goal's
// id), and its revenue, if any, the goal's in its currency. An event is a view of its name and of each property value
// (reporting.PropKey), and extends the session it falls in. A page view
// is a view of the day, its page, source, device, browser, system,
// campaign values and country; it begins a session when none is within
// visits.Gap (a session of the day, its page as entrance and exit, the
// page, source, device, browser, system and campaign values; a bounce of
// the day and the entrance), else extends the session (its length to
// the day and its entrance; its second hit takes the bounce off) and
// moves its exit. A visitor is counted for each value (and entrance)
// the first time they have it that day; the browser and system count a
// visitor new that day (the visitor is a hash of the user agent, so one
// browser and system a day).
func Count(c *Counted, h reporting.Hit, d *Day, goals []reporting.Goal) {
	*c = Counted{Rows: c.Rows[:0]}
	view := func(dim reporting.Dimension, key, label string) *Row {
		c.Rows = append(c.Rows, Row{Dim: dim, Key: key, Label: label, Views: 1})
		return &c.Rows[len(c.Rows)-1]
	}
	// unique is a view of dim's key that counts the visitor once a day.
	unique := func(dim reporting.Dimension, key, label string) *Row {
		r := view(dim, key, label)
		if d.Seen.Claim(Scope(dim, key)) {
			r.Visitors = 1
		}
		return r
	}
	for _, g := range goals {
		if g.Matches(h) {
			id := strconv.FormatInt(g.ID, 10)
			unique(reporting.DimGoal, id, "")
			if h.Revenue > 0 && h.Currency != "" {
				c.Rows = append(c.Rows, Row{Dim: dimRevenue, Key: id + revenueSep + h.Currency, Views: h.Revenue, Sessions: 1})
			}
		}
	}
	if h.Event != "" {
		if d.Session.Continues(h.At) {
			c.extend(d.Session, h.At)
		}
		unique(reporting.DimEvent, h.Event, "")
		for _, p := range h.Props {
			unique(reporting.DimProp, reporting.PropKey(h.Event, p.Name, p.Value), "")
		}
		return
	}
	total := Row{Dim: reporting.DimTotal, Views: 1}
	newVisitor := d.Seen.Claim(Scope(reporting.DimTotal, ""))
	if newVisitor {
		total.Visitors = 1
	}
	c.Began = !d.Session.Continues(h.At)
	if c.Began {
		total.Sessions, total.Bounces = 1, 1
	}
	c.Rows = append(c.Rows, total)
	if c.Began {
		s := visits.Begin(h.At, h.Path)
		d.Session = &s
		entry := unique(reporting.DimEntry, h.Path, h.Title)
		entry.Sessions, entry.Bounces = 1, 1
		view(reporting.DimExit, h.Path, h.Title)
	} else {
		c.extend(d.Session, h.At)
		if from, moved := d.Session.Exit(h.Path); moved { // the exit row moves: from's -1, this page's +1
			if from != "" {
				c.Rows = append(c.Rows, Row{Dim: reporting.DimExit, Key: from, Views: -1})
			}
			view(reporting.DimExit, h.Path, h.Title)
		}
	}
	var session int64
	if c.Began {
		session = 1
	}
	vals := [...]string{h.Path, h.Source, h.Device} // as reporting.PairDims
	labels := [...]string{h.Title, "", ""}
	for i, dim := range reporting.PairDims {
		unique(dim, vals[i], labels[i]).Sessions = session
	}
	for _, sw := range [...]struct {
		dim   reporting.Dimension
		value string
	}{{reporting.DimBrowser, h.Browser}, {reporting.DimOS, h.OS}} {
		if sw.value != "" {
			r := view(sw.dim, sw.value, "")
			r.Sessions = session
			if newVisitor {
				r.Visitors = 1
			}
		}
	}
	for i, value := range h.Campaign {
		if value != "" {
			unique(reporting.CampaignDims[i], value, "").Sessions = session
		}
	}
	if h.Country != "" {
		unique(reporting.DimCountry, h.Country, "")
	}
}

// extend adds a hit at at to s: its length to the day's and the
// entrance's rows, and a second hit takes their bounce off.
func (c *Counted) extend(s *visits.Session, at time.Time) {
	c.Extended = true
	c.Step = s.Extend(at)
	if c.Step.Seconds == 0 && !c.Step.Unbounced {
		return
	}
	var bounces int64
	if c.Step.Unbounced {
		bounces = -1
	}
	c.Rows = append(c.Rows, Row{Dim: reporting.DimTotal, Duration: c.Step.Seconds, Bounces: bounces})
	if s.Entry != "" {
		c.Rows = append(c.Rows, Row{Dim: reporting.DimEntry, Key: s.Entry, Duration: c.Step.Seconds, Bounces: bounces})
	}
}
