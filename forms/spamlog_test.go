package forms_test

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/testkit"
)

// A submission judged spam is said, not silent: with no Logger given it
// is logged through slog.Default(), with why. (Not parallel: it swaps
// the process's default logger.)
func TestSpamIsLoggedWithoutALogger(t *testing.T) {
	logs := &testkit.Buffer{}
	was := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, nil)))
	t.Cleanup(func() { slog.SetDefault(was) })
	b := setup(t)
	form := b.contactForm(t)
	r := b.submit(t, form, valid(part{name: "website_url", content: "https://spam.example"})...)
	require.Equal(t, 201, r.status, r.body)
	require.Contains(t, logs.String(), "forms: submission stored as spam")
}
