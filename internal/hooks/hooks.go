// Package hooks keeps the hooks a host registers on a service, one List
// per kind: added to at any time, read on every call without a lock (a
// registration copies the list), run in the order added.
package hooks

import (
	"sync"
	"sync/atomic"
)

// List is the hooks of one kind. The zero value is an empty list ready
// to use; a List must not be copied after first use.
type List[H any] struct {
	mu   sync.Mutex // serialises Add
	list atomic.Pointer[[]H]
}

// Add appends h.
func (l *List[H]) Add(h H) {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.All()
	next := make([]H, len(old), len(old)+1)
	copy(next, old)
	next = append(next, h)
	l.list.Store(&next)
}

// All is the hooks in the order added; the caller must not change the
// slice.
func (l *List[H]) All() []H {
	if p := l.list.Load(); p != nil {
		return *p
	}
	return nil
}
