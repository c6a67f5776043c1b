//go:build race

package apitest

import (
	"net/http"
	"testing"

	"github.com/groundwork-go/groundwork"
)

// Validating reports whether the checks run: not under the race detector.
const Validating = false

// Checker checks nothing under the race detector.
type Checker struct{}

// New returns a Checker that checks nothing.
func New(testing.TB, *groundwork.OpenAPI) *Checker { return &Checker{} }

// Handler returns h as it is.
func (c *Checker) Handler(h http.Handler) http.Handler { return h }

// Held is empty: nothing is checked.
func Held() []string { return nil }

// Checked is 0: nothing is checked.
func (c *Checker) Checked() int { return 0 }
