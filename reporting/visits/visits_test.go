package visits_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting/visits"
)

// TestSessionRules walks one visitor's hits through the rules: a view
// begins a session, a later hit within Gap continues it (adding the time
// between, unbouncing it on the second hit), a hit out of order adds no
// time and does not move the last hit back, the exit follows the last
// page viewed, and a hit past Gap continues nothing.
func TestSessionRules(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	var none *visits.Session
	require.False(t, none.Continues(at), "no session continues nothing")

	s := visits.Begin(at, "/")
	require.Equal(t, visits.Session{Last: at, Page: "/", Entry: "/", Hits: 1}, s)

	require.True(t, s.Continues(at.Add(visits.Gap)), "a hit exactly Gap later falls in it")
	require.False(t, s.Continues(at.Add(visits.Gap+time.Second)), "one a second later begins another")

	require.Equal(t, visits.Step{Seconds: 90, Unbounced: true}, s.Extend(at.Add(90*time.Second)), "the second hit")
	require.Equal(t, visits.Step{Seconds: 30}, s.Extend(at.Add(2*time.Minute)), "the third adds its time only")
	require.Equal(t, visits.Step{}, s.Extend(at.Add(time.Minute)), "a hit out of order adds nothing")
	require.Equal(t, at.Add(2*time.Minute), s.Last, "and leaves the last hit where it was")
	require.EqualValues(t, 4, s.Hits)

	from, moved := s.Exit("/pricing")
	require.True(t, moved)
	require.Equal(t, "/", from)
	_, moved = s.Exit("/pricing")
	require.False(t, moved, "a second view of the same page leaves the exit there")
	require.Equal(t, "/", s.Entry, "the entry stays")

	// A session kept before hits were counted never unbounces (its hits
	// are not known), and its count stays 0.
	old := visits.Session{Last: at, Page: "/", Entry: "/"}
	require.Equal(t, visits.Step{Seconds: 60}, old.Extend(at.Add(time.Minute)))
	require.Zero(t, old.Hits)
}

// A visitor views two pages a minute apart: one session, no bounce, 60
// seconds long, entering on / and leaving from /pricing.
func ExampleSession_Extend() {
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	s := visits.Begin(at, "/")
	next := at.Add(time.Minute)
	if s.Continues(next) {
		step := s.Extend(next)
		from, _ := s.Exit("/pricing")
		fmt.Println(step.Seconds, step.Unbounced, from, s.Page)
	}
	// Output: 60 true / /pricing
}
