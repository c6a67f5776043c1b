package bookingsical

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-ical"
	"github.com/teambition/rrule-go"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/bookings/slots"
)

// MaxOccurrences bounds how many occurrences of one recurring event are
// walked (from its first, up to the end of the range asked for): a rule
// that would step more often (every minute for years) is skipped as
// unreadable instead of holding a worker.
const MaxOccurrences = 20_000

// errTooMany is a recurring event past MaxOccurrences or
// MaxRecurrenceValues.
var errTooMany = errors.New("bookingsical: recurring event has too many occurrences")

// errBudget is a recurring event not expanded because the read's budget
// (MaxOccurrencesPerRead, MaxExpandTime) is spent.
var errBudget = errors.New("bookingsical: the read's expansion budget is spent")

// Busy is the busy time in [from, to) of what a calendar holds, merged and
// sorted: every VEVENT that is opaque (TRANSP other than TRANSPARENT, and
// not Outlook's X-MICROSOFT-CDO-BUSYSTATUS FREE) and not cancelled, each
// occurrence of a recurring one (RRULE and RDATE less EXDATE, an
// occurrence replaced by the VEVENT with its RECURRENCE-ID), and every
// busy period of a VFREEBUSY. Times carry their TZID (an IANA name, or a
// Windows one as Outlook writes it); floating times and all-day dates are
// read in loc, the provider's zone, so an all-day event takes the
// provider's whole local day. Events whose UID skip reports are left out
// (the bookings written to the calendar). Events that cannot be read are
// left out and counted in the answer's second value, and so are recurring
// events past the read's bounds: MaxOccurrences walked for one event,
// MaxRecurrenceValues dates listed in one, and MaxOccurrencesPerRead and
// MaxExpandTime for all of them together.
func Busy(cals []*ical.Calendar, from, to time.Time, loc *time.Location, skip func(uid string) bool) ([]bookings.Period, int) {
	read := expand(cals, from, to, loc, skip)
	return read.Periods, read.Unreadable
}

// expand is Busy as a read, with a warning in words when recurring
// events were left out for the read's bounds.
func expand(cals []*ical.Calendar, from, to time.Time, loc *time.Location, skip func(uid string) bool) calendars.BusyRead {
	r := reader{from: from, to: to, loc: loc, budget: MaxOccurrencesPerRead, deadline: time.Now().Add(MaxExpandTime)}
	replaced := map[string]*overrides{}
	var masters, singles []*ical.Component
	for _, cal := range cals {
		for _, c := range cal.Children {
			switch c.Name {
			case ical.CompEvent:
				uid := propValue(c, ical.PropUID)
				if skip != nil && uid != "" && skip(uid) {
					continue
				}
				if rid := c.Props.Get(ical.PropRecurrenceID); rid != nil {
					at, day, err := r.when(rid)
					if err != nil {
						r.unreadable++
						continue
					}
					if replaced[uid] == nil {
						replaced[uid] = &overrides{times: map[int64]bool{}, days: map[bookings.Date]bool{}}
					}
					replaced[uid].add(at, day)
					singles = append(singles, c)
					continue
				}
				if c.Props.Get(ical.PropRecurrenceRule) != nil || c.Props.Get(ical.PropRecurrenceDates) != nil {
					masters = append(masters, c)
				} else {
					singles = append(singles, c)
				}
			case ical.CompFreeBusy:
				r.freeBusy(c)
			}
		}
	}
	for _, c := range singles {
		if busyEvent(c) {
			r.single(c)
		}
	}
	// The events that repeat least often first: the budget goes to the
	// ordinary ones before any that repeats every second.
	slices.SortStableFunc(masters, func(a, b *ical.Component) int { return cmp.Compare(frequency(a), frequency(b)) })
	var tooOften, spent int
	for _, c := range masters {
		if !busyEvent(c) {
			continue
		}
		switch err := r.recurring(c, replaced[propValue(c, ical.PropUID)]); {
		case errors.Is(err, errTooMany):
			tooOften++
		case errors.Is(err, errBudget):
			spent++
		case err != nil:
			r.unreadable++
		}
	}
	read := calendars.BusyRead{Periods: slots.MergePeriods(r.out), Unreadable: r.unreadable + tooOften + spent}
	switch {
	case spent > 0:
		read.Warning = fmt.Sprintf("%d repeating events were left out: together the calendar's events repeat more often than can be read. "+
			"Their times do not keep you from being booked.", tooOften+spent)
	case tooOften > 0:
		read.Warning = fmt.Sprintf("%d repeating events were left out: they repeat more often than can be read (more than %d times). "+
			"Their times do not keep you from being booked.", tooOften, MaxOccurrences)
	}
	return read
}

// frequency ranks how often a recurring event repeats: 0 for dates
// listed (RDATE alone), then yearly to secondly.
func frequency(c *ical.Component) int {
	p := c.Props.Get(ical.PropRecurrenceRule)
	if p == nil {
		return 0
	}
	for _, part := range strings.Split(strings.ToUpper(p.Value), ";") {
		if f, ok := strings.CutPrefix(part, "FREQ="); ok {
			if i := slices.Index([]string{"YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY", "SECONDLY"}, f); i >= 0 {
				return i + 1
			}
		}
	}
	return 8
}

// overrides are the occurrences of one recurring event that other
// VEVENTs replace (by RECURRENCE-ID): exact times, and whole days.
type overrides struct {
	times map[int64]bool
	days  map[bookings.Date]bool
}

func (o *overrides) add(at time.Time, day bool) {
	if day {
		o.days[slots.DateOf(at)] = true
	} else {
		o.times[at.UnixNano()] = true
	}
}

// has reports whether the occurrence at is replaced (a day's override in
// the provider's zone, loc).
func (o *overrides) has(at time.Time, loc *time.Location) bool {
	return o != nil && (o.times[at.UnixNano()] || o.days[slots.DateOf(at.In(loc))])
}

// reader collects busy periods clipped to [from, to), with what is
// left of the read's expansion budget.
type reader struct {
	from, to   time.Time
	loc        *time.Location
	out        []bookings.Period
	unreadable int
	budget     int       // occurrences that may still be walked
	deadline   time.Time // when expanding stops
}

// add keeps [start, end) clipped to the range, when anything is left.
func (r *reader) add(start, end time.Time) {
	if start.Before(r.from) {
		start = r.from
	}
	if end.After(r.to) {
		end = r.to
	}
	if start.Before(end) {
		r.out = append(r.out, bookings.Period{Start: start.UTC(), End: end.UTC()})
	}
}

// busyEvent reports whether an event takes time: not cancelled, not
// transparent, not marked free by Outlook.
func busyEvent(c *ical.Component) bool {
	return !strings.EqualFold(propValue(c, ical.PropStatus), "CANCELLED") &&
		!strings.EqualFold(propValue(c, ical.PropTransparency), "TRANSPARENT") &&
		!strings.EqualFold(propValue(c, "X-MICROSOFT-CDO-BUSYSTATUS"), "FREE")
}

func propValue(c *ical.Component, name string) string {
	if p := c.Props.Get(name); p != nil {
		return strings.TrimSpace(p.Value)
	}
	return ""
}

// span is an event's first occurrence: its start, and either its length
// or, for an all-day event, its length in days.
type span struct {
	start  time.Time
	length time.Duration
	days   int
	allDay bool
}

// end is the end of an occurrence starting at start (for an all-day
// one, midnight days later in the provider's zone).
func (s span) end(start time.Time, loc *time.Location) time.Time {
	if s.allDay {
		d := slots.DateOf(start.In(loc))
		return time.Date(d.Year, time.Month(d.Month), d.Day+s.days, 0, 0, 0, 0, loc)
	}
	return start.Add(s.length)
}

// spanOf reads DTSTART and DTEND (or DURATION) of an event. Without
// either, a timed event takes no time and an all-day one its day.
func (r *reader) spanOf(c *ical.Component) (span, error) {
	sp := c.Props.Get(ical.PropDateTimeStart)
	if sp == nil {
		return span{}, errors.New("no DTSTART")
	}
	start, day, err := r.when(sp)
	if err != nil {
		return span{}, err
	}
	s := span{start: start, allDay: day, days: 1}
	switch {
	case c.Props.Get(ical.PropDateTimeEnd) != nil:
		end, _, err := r.when(c.Props.Get(ical.PropDateTimeEnd))
		if err != nil {
			return span{}, err
		}
		if day {
			s.days = max(1, int(end.Sub(start).Round(24*time.Hour)/(24*time.Hour)))
		} else {
			s.length = end.Sub(start)
		}
	case c.Props.Get(ical.PropDuration) != nil:
		d, err := c.Props.Get(ical.PropDuration).Duration()
		if err != nil {
			return span{}, err
		}
		if day {
			s.days = max(1, int(d/(24*time.Hour)))
		} else {
			s.length = d
		}
	}
	return s, nil
}

// single adds a one-off event, or one occurrence that replaces another.
func (r *reader) single(c *ical.Component) {
	s, err := r.spanOf(c)
	if err != nil {
		r.unreadable++
		return
	}
	r.add(s.start, s.end(s.start, r.loc))
}

// recurring adds the occurrences of a recurring event that reach into
// the range, less those replaced by another VEVENT. It walks at most
// MaxOccurrences of it (errTooMany), and none once the read's budget is
// spent (errBudget).
func (r *reader) recurring(c *ical.Component, replaced *overrides) error {
	if r.budget <= 0 || time.Now().After(r.deadline) {
		return errBudget
	}
	s, err := r.spanOf(c)
	if err != nil {
		return err
	}
	listed := 0
	for _, name := range []string{ical.PropRecurrenceDates, ical.PropExceptionDates} {
		for _, p := range c.Props.Values(name) {
			listed += strings.Count(p.Value, ",") + 1
		}
	}
	if listed > MaxRecurrenceValues {
		return errTooMany
	}
	set := &rrule.Set{}
	if p := c.Props.Get(ical.PropRecurrenceRule); p != nil {
		opt, err := rrule.StrToROptionInLocation(p.Value, s.start.Location())
		if err != nil {
			return err
		}
		opt.Dtstart = s.start
		rule, err := rrule.NewRRule(*opt)
		if err != nil {
			return err
		}
		set.RRule(rule)
	}
	set.DTStart(s.start)
	for _, p := range c.Props.Values(ical.PropRecurrenceDates) {
		for _, v := range splitList(p) {
			at, _, err := r.when(v)
			if err != nil {
				return err
			}
			set.RDate(at)
		}
	}
	if c.Props.Get(ical.PropRecurrenceRule) == nil {
		set.RDate(s.start) // RDATE alone: DTSTART is an occurrence too
	}
	exdates := map[int64]bool{}
	exdays := map[bookings.Date]bool{}
	for _, p := range c.Props.Values(ical.PropExceptionDates) {
		for _, v := range splitList(p) {
			at, day, err := r.when(v)
			if err != nil {
				return err
			}
			if day {
				exdays[slots.DateOf(at)] = true
			} else {
				exdates[at.UnixNano()] = true
			}
		}
	}
	// The event's periods count only once it is read to the end: one
	// left out adds none.
	kept := len(r.out)
	next := set.Iterator()
	for n := 0; ; n++ {
		var err error
		switch {
		case n == MaxOccurrences:
			err = errTooMany
		case r.budget <= 0 || n%256 == 255 && time.Now().After(r.deadline):
			err = errBudget
		}
		if err != nil {
			r.out = r.out[:kept]
			return err
		}
		r.budget--
		at, ok := next()
		if !ok || !at.Before(r.to) {
			return nil
		}
		end := s.end(at, r.loc)
		if !end.After(r.from) || replaced.has(at, r.loc) || exdates[at.UnixNano()] || exdays[slots.DateOf(at.In(s.start.Location()))] {
			continue
		}
		r.add(at, end)
	}
}

// splitList makes one property per value of a comma-separated list
// (EXDATE:20260105T090000,20260112T090000), each with the list's
// parameters.
func splitList(p ical.Prop) []*ical.Prop {
	var out []*ical.Prop
	for _, v := range strings.Split(p.Value, ",") {
		q := p
		q.Value = strings.TrimSpace(v)
		out = append(out, &q)
	}
	return out
}

// freeBusy adds the busy periods of a VFREEBUSY: each FREEBUSY value is
// start/end or start/duration, in UTC; FBTYPE=FREE is not busy.
func (r *reader) freeBusy(c *ical.Component) {
	for _, p := range c.Props.Values(ical.PropFreeBusy) {
		if strings.EqualFold(p.Params.Get("FBTYPE"), "FREE") {
			continue
		}
		for _, v := range strings.Split(p.Value, ",") {
			a, b, ok := strings.Cut(strings.TrimSpace(v), "/")
			start, err := time.Parse("20060102T150405Z", a)
			if !ok || err != nil {
				r.unreadable++
				continue
			}
			var end time.Time
			if strings.HasPrefix(b, "P") || strings.HasPrefix(b, "+P") {
				d := ical.NewProp(ical.PropDuration)
				d.Value = b
				length, err := d.Duration()
				if err != nil {
					r.unreadable++
					continue
				}
				end = start.Add(length)
			} else if end, err = time.Parse("20060102T150405Z", b); err != nil {
				r.unreadable++
				continue
			}
			r.add(start, end)
		}
	}
}

// when reads a date or date-time value: UTC ("...Z"), in its TZID, or
// floating (in the provider's zone); a date (VALUE=DATE, or eight
// digits) is midnight of that day in the provider's zone, and day is
// true.
func (r *reader) when(p *ical.Prop) (at time.Time, day bool, err error) {
	v := strings.TrimSpace(p.Value)
	if strings.EqualFold(p.Params.Get(ical.ParamValue), "DATE") || len(v) == len("20060102") {
		at, err = time.ParseInLocation("20060102", v, r.loc)
		return at, true, err
	}
	if strings.HasSuffix(v, "Z") {
		at, err = time.Parse("20060102T150405Z", v)
		return at, false, err
	}
	loc := r.loc
	if tzid := p.Params.Get(ical.PropTimezoneID); tzid != "" {
		loc = zone(tzid, r.loc)
	}
	at, err = time.ParseInLocation("20060102T150405", v, loc)
	if err != nil {
		return at, false, fmt.Errorf("bookingsical: time %q: %w", v, err)
	}
	return at, false, nil
}

var zones sync.Map // TZID → *time.Location

// zone is the location a TZID names: an IANA name (also behind a
// "/mozilla.org/.../" or "/citadel.org/.../" prefix), or a Windows name;
// fallback when neither is known.
func zone(tzid string, fallback *time.Location) *time.Location {
	tzid = strings.Trim(tzid, `"`)
	if l, ok := zones.Load(tzid); ok {
		return l.(*time.Location)
	}
	name := tzid
	if iana, ok := windowsZones[name]; ok {
		name = iana
	}
	loc, err := time.LoadLocation(name)
	if err != nil && strings.HasPrefix(name, "/") {
		parts := strings.Split(strings.Trim(name, "/"), "/")
		for i := 1; i < len(parts) && err != nil; i++ {
			loc, err = time.LoadLocation(strings.Join(parts[i:], "/"))
		}
	}
	if err != nil || name == "" {
		return fallback
	}
	zones.Store(tzid, loc)
	return loc
}
