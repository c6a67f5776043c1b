package slots

import (
	"slices"
	"time"
)

// Period is a half-open span of time [Start, End).
type Period struct {
	Start time.Time
	End   time.Time
}

// MergePeriods sorts ps and joins the periods that overlap or touch, in
// place: the busy time a calendar source reads, as a list to store.
func MergePeriods(ps []Period) []Period {
	slices.SortFunc(ps, func(a, b Period) int { return a.Start.Compare(b.Start) })
	out := ps[:0]
	for _, p := range ps {
		if n := len(out); n > 0 && !p.Start.After(out[n-1].End) {
			if p.End.After(out[n-1].End) {
				out[n-1].End = p.End
			}
			continue
		}
		out = append(out, p)
	}
	return out
}

// Overlaps reports whether p and q share an instant.
func (p Period) Overlaps(q Period) bool { return p.Start.Before(q.End) && q.Start.Before(p.End) }

// Date is a calendar date with no zone: the provider-local day a slot
// belongs to.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf is the date of t in its own location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// ParseDate reads "YYYY-MM-DD".
func ParseDate(s string) (Date, bool) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, false
	}
	return DateOf(t), true
}

// String is "YYYY-MM-DD".
func (d Date) String() string { return d.In(time.UTC).Format(time.DateOnly) }

// In is local midnight of d in loc (or the first instant of the day, where
// midnight itself does not exist).
func (d Date) In(loc *time.Location) time.Time { return d.At(0, loc) }

// At is the instant of the wall-clock minute (0 to 1440) of d in loc. A
// minute that happens twice (the hour repeated when summer time ends) is
// its first occurrence, as calendars read it, in every zone (time.Date
// leaves the choice open, and takes the second east of Greenwich). A
// minute that does not exist (a spring-forward gap) is moved forward by
// the gap, as time.Date does.
func (d Date) At(minute int, loc *time.Location) time.Time {
	t := time.Date(d.Year, d.Month, d.Day, 0, minute, 0, 0, loc)
	if loc == time.UTC {
		return t
	}
	// A minute is repeated when the offset falls; its first occurrence
	// has the larger offset in force before the fall. The wall clock read
	// as UTC, less that offset, is it if it shows this very minute.
	_, offset := t.Zone()
	_, before := t.Add(-maxShift).Zone()
	if before <= offset {
		return t // time.Date took the only, or the first, occurrence
	}
	wall := time.Date(d.Year, d.Month, d.Day, 0, minute, 0, 0, time.UTC)
	if u := wall.Add(-time.Duration(before) * time.Second).In(loc); u.Before(t) && sameWall(u, wall) {
		return u
	}
	return t
}

// maxShift bounds how far a change of offset may move the wall clock
// (two hours is the most any zone uses; a day would be too far).
const maxShift = 3 * time.Hour

// sameWall reports whether u, in its own zone, shows the wall clock of
// wall (read as UTC) to the minute.
func sameWall(u, wall time.Time) bool {
	y, m, d := u.Date()
	wy, wm, wd := wall.Date()
	return y == wy && m == wm && d == wd && u.Hour() == wall.Hour() && u.Minute() == wall.Minute()
}

// AddDays is d moved by n days.
func (d Date) AddDays(n int) Date {
	return DateOf(time.Date(d.Year, d.Month, d.Day+n, 12, 0, 0, 0, time.UTC))
}

// Weekday is d's day of the week.
func (d Date) Weekday() time.Weekday { return d.In(time.UTC).Weekday() }

// Before reports whether d is earlier than e.
func (d Date) Before(e Date) bool { return d.In(time.UTC).Before(e.In(time.UTC)) }

// Clock is a wall-clock span of a day in minutes from midnight: [Start,
// End), End at most 1440 (24:00).
type Clock struct {
	Start, End int
}
