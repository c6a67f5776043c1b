// Package visits holds the analytics rules of a visitor's session: when
// a hit begins one or falls in one, how long it lasts, when it stops being
// a bounce, and where it exits. It is pure (no database, no clock but the
// hits' own times): a store keeps a Session for each visitor and day, and
// counts what these methods say, in its own tables.
package visits

import "time"

// Gap ends a session: a visitor's page view this long after their last
// hit begins a new one, and an event this late is no part of the old.
const Gap = 30 * time.Minute

// Session is a visitor's current session.
type Session struct {
	// Last is the time of its last hit (a hit out of order, earlier, does
	// not move it back).
	Last time.Time
	// Page is the page of its last view, its exit so far; Entry the page
	// it began on.
	Page, Entry string
	// Hits counts its views and events; 0 means not counted (a session
	// kept before hits were), which is never taken for a bounce.
	Hits int64
}

// Begin is the session a page view of page at at begins: an entrance of
// the page, its exit, and a bounce until another hit comes.
func Begin(at time.Time, page string) Session {
	return Session{Last: at, Page: page, Entry: page, Hits: 1}
}

// Continues reports whether a hit at at falls in s: within Gap of its
// last hit. A nil session continues nothing.
func (s *Session) Continues(at time.Time) bool {
	return s != nil && at.Sub(s.Last) <= Gap
}

// Step is what a hit within a session changed.
type Step struct {
	// Seconds is the time the hit added to the session's length: from
	// its last hit, in whole seconds, never negative.
	Seconds int64
	// Unbounced is true for the session's second hit: it was a bounce
	// and is no more.
	Unbounced bool
}

// Extend adds a hit at at (a view or an event) to s.
func (s *Session) Extend(at time.Time) Step {
	var st Step
	if gap := at.Sub(s.Last); gap > 0 {
		st.Seconds = int64(gap / time.Second)
		s.Last = at
	}
	st.Unbounced = s.Hits == 1
	if s.Hits > 0 {
		s.Hits++
	}
	return st
}

// Exit moves the session's exit to page, a page view within it, and
// returns the page it left ("" for none); moved is false when the exit
// was on page already.
func (s *Session) Exit(page string) (from string, moved bool) {
	if s.Page == page {
		return "", false
	}
	from, s.Page = s.Page, page
	return from, true
}
