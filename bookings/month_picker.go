package bookings

import (
	"net/url"
	"slices"
	"time"

	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/internal/web"
)

// monthPicker is the month view of the booking and reschedule pages: a
// server-drawn month whose days with free times are links, the chosen
// day's times as a grid of choices, and a choice of time zone.
type monthPicker struct {
	Caption          string
	Weeks            [][]dayCell
	PrevURL, NextURL string
	// DayLabel names the chosen day; Time holds its times (the
	// start_time radio field), none when nothing is free that day.
	DayLabel string
	Time     web.Field
	// Zone is the zone the times are shown in; Zones the choice of them;
	// Month and Date carry the page's place through the zone form.
	Zone        string
	Zones       []web.Option
	Month, Date string
	// Base is the page's path; Keep are query values its links and
	// forms carry (the manage page's step).
	Base string
	Keep map[string]string
	// Form is the id of the form the times belong to when they stand
	// outside it (the booking page's picker); "" inside it.
	Form string
	// Lengths is the choice of the service's lengths ("" when it has
	// one), and Length the one chosen, in minutes.
	Lengths []web.Option
	// FreeDays counts the month's days with a free time.
	FreeDays int
	// Current marks, among the chosen day's times, the time a booking
	// being moved has now; nil on other days and on the booking page.
	Current *currentTime
}

// currentTime is a booking's present time on the reschedule page: shown
// in the grid of times (before the Before-th choice), not a choice.
type currentTime struct {
	Label  string
	Before int
	// Note says whose it is: "your time now" (the customer's), "its time
	// now" (on the owner's page).
	Note string
}

// markCurrent marks start, a booking's present time, among the chosen
// day's times when it falls on that day.
func (c *monthPicker) markCurrent(start time.Time) {
	loc := location(c.Zone)
	if c.Date != slots.DateOf(start.In(loc)).String() {
		return
	}
	label := start.In(loc).Format("15:04")
	before := len(c.Time.Options)
	for i, o := range c.Time.Options {
		if t, err := time.Parse(time.RFC3339, o.Value); err == nil && t.After(start) {
			before = i
			break
		}
	}
	c.Current = &currentTime{Label: label, Before: before, Note: "your time now"}
}

// dayCell is one square of the month: a padding square before the 1st or
// after the last day, or a day, a link when it has free times.
type dayCell struct {
	Day      int
	Label    string
	URL      string
	Selected bool
	Pad      bool
}

// newMonthPicker draws the month the query asks for (?month=YYYY-MM, else
// the month of ?date, else this month; never one before today's), with
// the days that have free times (slotsIn gives them for a span) linked to
// base with the page's query, and the chosen day's times (?date, else
// the month's first free day) as choices, chosen the one the visitor
// picked.
func newMonthPicker(q url.Values, zone, base string, keep map[string]string, now time.Time, chosen string,
	slotsIn func(from, to time.Time) ([]Slot, error)) (*monthPicker, error) {
	loc := location(zone)
	today := slots.DateOf(now.In(loc))
	thisMonth := Date{Year: today.Year, Month: today.Month, Day: 1}
	month := thisMonth
	date, hasDate := slots.ParseDate(q.Get("date"))
	if m, err := time.Parse("2006-01", q.Get("month")); err == nil {
		month = Date{Year: m.Year(), Month: m.Month(), Day: 1}
	} else if hasDate {
		month = Date{Year: date.Year, Month: date.Month, Day: 1}
	}
	if month.In(loc).Before(thisMonth.In(loc)) {
		month = thisMonth
	}
	next := slots.DateOf(month.In(loc).AddDate(0, 1, 0))
	from := month
	if from.In(loc).Before(today.In(loc)) {
		from = today
	}
	list, err := slotsIn(from.In(loc), next.In(loc))
	if err != nil {
		return nil, err
	}
	byDay := map[Date][]time.Time{}
	seats := map[int64]int{} // places left by start, for a service with seats
	for _, s := range list {
		d := slots.DateOf(s.Start.In(loc))
		if !slices.ContainsFunc(byDay[d], s.Start.Equal) {
			byDay[d] = append(byDay[d], s.Start)
		}
		seats[s.Start.UnixNano()] += s.SeatsLeft
	}
	if !hasDate || date.Year != month.Year || date.Month != month.Month {
		hasDate = false
		for d := from; d.In(loc).Before(next.In(loc)); d = d.AddDays(1) {
			if len(byDay[d]) > 0 {
				date, hasDate = d, true
				break
			}
		}
	}
	link := func(v url.Values) string {
		v.Set("tz", zone)
		for k, val := range keep {
			v.Set(k, val)
		}
		return base + "?" + v.Encode()
	}
	// A day's link goes to its times, a month's to the month, so the
	// reader stays where they were looking.
	c := &monthPicker{Base: base, Keep: keep, Caption: month.In(loc).Format("January 2006"), Zone: zone, Month: month.In(loc).Format("2006-01"),
		NextURL: link(url.Values{"month": {next.In(loc).Format("2006-01")}}) + "#calendar"}
	if month != thisMonth {
		c.PrevURL = link(url.Values{"month": {slots.DateOf(month.In(loc).AddDate(0, -1, 0)).In(loc).Format("2006-01")}}) + "#calendar"
	}
	var week []dayCell
	for range (int(month.In(loc).Weekday()) + 6) % 7 {
		week = append(week, dayCell{Pad: true})
	}
	for d := month; d.In(loc).Before(next.In(loc)); d = d.AddDays(1) {
		cell := dayCell{Day: d.Day, Label: d.In(loc).Format("Monday 2 January")}
		if n := len(byDay[d]); n > 0 {
			c.FreeDays++
			cell.URL = link(url.Values{"date": {d.String()}}) + "#times"
			cell.Label += ", " + web.Count(n, "time") + " free"
			cell.Selected = hasDate && d == date
		} else {
			cell.Label += ", no free times"
		}
		week = append(week, cell)
		if len(week) == 7 {
			c.Weeks, week = append(c.Weeks, week), nil
		}
	}
	if len(week) > 0 {
		for len(week) < 7 {
			week = append(week, dayCell{Pad: true})
		}
		c.Weeks = append(c.Weeks, week)
	}
	c.Time = web.Field{Type: web.TypeRadio, Name: "start_time", ID: web.FieldID("start_time"), Label: "Time", Required: true}
	if hasDate {
		c.Date, c.DayLabel = date.String(), date.In(loc).Format("Monday 2 January 2006")
		for _, start := range byDay[date] {
			v := start.UTC().Format(time.RFC3339)
			o := web.Option{Value: v, Label: start.In(loc).Format("15:04"), Selected: v == chosen}
			if n := seats[start.UnixNano()]; n > 0 {
				o.Hint = web.Count(n, "place") + " left"
			}
			c.Time.Options = append(c.Time.Options, o)
		}
	}
	c.Zones = web.ZoneChoice(zone, now)
	return c, nil
}
