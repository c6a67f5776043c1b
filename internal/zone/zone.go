// Package zone loads time zones by name, once each: time.LoadLocation
// reads the zone file on every call, and pages and the booking engine
// ask for the same few zones all the time.
package zone

import (
	"sync"
	"time"
)

// locations caches loaded zones.
var locations sync.Map // name → *time.Location

// Location is the zone named name; UTC for "" or an unknown name.
func Location(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	if loc, ok := locations.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	locations.Store(name, loc)
	return loc
}
