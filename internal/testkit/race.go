//go:build race

package testkit

// RaceEnabled reports whether the tests run under the race detector,
// which makes them several times slower: a test that times a workload
// against a fixed wait makes it smaller then.
const RaceEnabled = true
