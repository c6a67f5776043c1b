package bookingsical

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-ical"
	"github.com/teambition/rrule-go"

	"github.com/groundwork-go/groundwork/bookings"
)

// MaxOccurrences bounds how many occurrences of one recurring event are
// walked (from its first, up to the end of the range asked for): a rule
// that would step more often (every minute for years) is skipped as
// unreadable instead of holding a worker.
const MaxOccurrences = 20_000

// errTooMany is a recurring event past MaxOccurrences.
var errTooMany = errors.New("bookingsical: recurring event has too many occurrences")

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
// left out and counted in the answer's second value.
func Busy(cals []*ical.Calendar, from, to time.Time, loc *time.Location, skip func(uid string) bool) ([]bookings.Period, int) {
	r := reader{from: from, to: to, loc: loc}
	type override struct {
		at  time.Time
		day bool
	}
	replaced := map[string][]override{}
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
					replaced[uid] = append(replaced[uid], override{at, day})
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
	for _, c := range masters {
		if !busyEvent(c) {
			continue
		}
		ovs := replaced[propValue(c, ical.PropUID)]
		isReplaced := func(at time.Time) bool {
			return slices.ContainsFunc(ovs, func(o override) bool {
				if o.day {
					return bookings.DateOf(o.at) == bookings.DateOf(at.In(o.at.Location()))
				}
				return o.at.Equal(at)
			})
		}
		if err := r.recurring(c, isReplaced); err != nil {
			r.unreadable++
		}
	}
	return bookings.MergePeriods(r.out), r.unreadable
}

// reader collects busy periods clipped to [from, to).
type reader struct {
	from, to   time.Time
	loc        *time.Location
	out        []bookings.Period
	unreadable int
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
		d := bookings.DateOf(start.In(loc))
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
// the range, less those replaced by another VEVENT.
func (r *reader) recurring(c *ical.Component, replaced func(time.Time) bool) error {
	s, err := r.spanOf(c)
	if err != nil {
		return err
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
	var exdates []time.Time
	var exdays []bookings.Date
	for _, p := range c.Props.Values(ical.PropExceptionDates) {
		for _, v := range splitList(p) {
			at, day, err := r.when(v)
			if err != nil {
				return err
			}
			if day {
				exdays = append(exdays, bookings.DateOf(at))
			} else {
				exdates = append(exdates, at)
			}
		}
	}
	next := set.Iterator()
	for n := 0; ; n++ {
		if n == MaxOccurrences {
			return errTooMany
		}
		at, ok := next()
		if !ok || !at.Before(r.to) {
			return nil
		}
		end := s.end(at, r.loc)
		if !end.After(r.from) || replaced(at) || slices.ContainsFunc(exdates, at.Equal) ||
			slices.Contains(exdays, bookings.DateOf(at.In(s.start.Location()))) {
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
