// Package testkit holds the stubs the tests of every package share: a
// settable clock, a TokenVerifier with fixed tokens and a Meter that
// remembers what it counted.
package testkit

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Clock is a settable clock, safe for concurrent use. The zero value
// reads the Unix epoch until Set.
type Clock struct{ ns atomic.Int64 }

// NewClock returns a clock at t.
func NewClock(t time.Time) *Clock {
	c := &Clock{}
	c.Set(t)
	return c
}

// Now is the clock's time, in UTC.
func (c *Clock) Now() time.Time { return time.Unix(0, c.ns.Load()).UTC() }

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// Tokens is a TokenVerifier with fixed tokens: each token names its
// abilities, and its caller is "token:" and the token. Any other token is
// invalid.
type Tokens map[string][]string

// VerifyToken implements groundwork.TokenVerifier.
func (tk Tokens) VerifyToken(_ context.Context, token string) (string, []string, error) {
	if abilities, ok := tk[token]; ok {
		return "token:" + token, abilities, nil
	}
	return "", nil, nil
}

// Area is one part of a store's conformance suite: a name for t.Run and
// the function that exercises it on fresh stores.
type Area[S any] struct {
	Name string
	Run  func(t *testing.T, newStore func(t *testing.T) S)
}

// RunAreas runs each area as a subtest of t, with newStore.
func RunAreas[S any](t *testing.T, newStore func(t *testing.T) S, areas []Area[S]) {
	for _, a := range areas {
		t.Run(a.Name, func(t *testing.T) { a.Run(t, newStore) })
	}
}

// Meter is a groundwork.Meter that remembers what it was told: Count
// is a counter's value for its labels, Observed a histogram's values.
type Meter struct {
	mu       sync.Mutex
	counts   map[string]float64
	observed map[string][]float64
}

// Add implements groundwork.Meter.
func (m *Meter) Add(name string, n float64, labels ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.counts == nil {
		m.counts = map[string]float64{}
	}
	m.counts[meterKey(name, labels)] += n
}

// Observe implements groundwork.Meter.
func (m *Meter) Observe(name string, v float64, labels ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.observed == nil {
		m.observed = map[string][]float64{}
	}
	k := meterKey(name, labels)
	m.observed[k] = append(m.observed[k], v)
}

// Count is the counter name's value for labels.
func (m *Meter) Count(name string, labels ...string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts[meterKey(name, labels)]
}

// Observed is what the histogram name was given for labels.
func (m *Meter) Observed(name string, labels ...string) []float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.observed[meterKey(name, labels)])
}

func meterKey(name string, labels []string) string {
	return name + "{" + strings.Join(labels, ",") + "}"
}

// Buffer is a bytes.Buffer safe for a logger's concurrent writes, for
// tests that read what was logged.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
