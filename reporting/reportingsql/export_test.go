package reportingsql

import (
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
)

// SetOverlayFloor makes s read a new base for a day still being written
// as soon as its overlay holds more than a fifth of the base's visitors
// (instead of a thousand more), so a test sees it happen.
func SetOverlayFloor(s *Store) { s.overlayFloor = -1 }

// HostsOn is the sites' hosts kept on db, as Join keeps them.
func HostsOn(db *store.DB) reporting.HostStore { return hosts{db} }
