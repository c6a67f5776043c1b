package forms_test

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// lockedBuffer is a buffer several goroutines may log to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A submission judged spam is said, not silent: with no Logger given it
// is logged through slog.Default(), with why. (Not parallel: it swaps
// the process's default logger.)
func TestSpamIsLoggedWithoutALogger(t *testing.T) {
	logs := &lockedBuffer{}
	was := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, nil)))
	t.Cleanup(func() { slog.SetDefault(was) })
	b := setup(t)
	form := b.contactForm(t)
	r := b.submit(t, form, valid(part{name: "website_url", content: "https://spam.example"})...)
	require.Equal(t, 201, r.status, r.body)
	require.Contains(t, logs.String(), "forms: submission stored as spam")
}
