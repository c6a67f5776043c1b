package reporting

import "time"

// SetHostsFresh makes a read its map of hosts again after d (for tests
// of another instance's change).
func SetHostsFresh(a *Analytics, d time.Duration) { a.hosts.fresh = d }
