package forms_test

import (
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
}

func TestExportCSV(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) {
		o.handler = func(h *forms.HandlerOptions) {
			h.IncludeIPAddress = true
			h.BaseURL, _ = url.Parse("https://forms.example.test") // page URLs without the test's port
		}
	})
	form := b.contactForm(t)
	b.addField(t, form, map[string]any{"type": "heading", "label": "Layout only"})
	b.addField(t, form, map[string]any{"type": "checkbox_group", "label": "=Interests", "field_config": map[string]any{"options": []any{"go", "sql"}}})
	rows := [][]part{
		valid(part{name: "cv", filename: "résumé.pdf", content: "%PDF"}),
		{{name: "name", content: "=HYPERLINK(\"http://evil.test\")"}, {name: "email", content: "e@example.test"}, {name: "message", content: "+1 555, \"quoted\"\nsecond line"}},
		{{name: "name", content: "-2+3"}, {name: "email", content: "x@example.test"}, {name: "interests", content: "go"}, {name: "interests", content: "sql"}},
		{{name: "name", content: "@SUM(A1)"}, {name: "email", content: "y@example.test"}, {name: "website_url", content: "spam"}},
	}
	for _, parts := range rows {
		b.clock.Advance(90*time.Second - forms.MinFillTime) // b.submit lets MinFillTime pass
		r := b.submit(t, form, parts...)
		require.Equal(t, 201, r.status, r.body)
	}
	r := b.api(t, "PUT", "/contact/submissions/1", map[string]any{"is_read": true, "is_starred": true})
	require.Equal(t, 200, r.status)

	r = b.request(t, "GET", "/api/v1/forms/contact/submissions/export", "reader", "", nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, "text/csv; charset=utf-8", r.header.Get("Content-Type"))
	require.Equal(t, `attachment; filename=contact-submissions-2026-11-22.csv`, r.header.Get("Content-Disposition"))
	require.True(t, strings.HasPrefix(r.body, "Submission ID,Submission Number,Submitted At,Name,Email,Topic,Message,CV,'=Interests,Page URL,IP Address,Is Read,Is Spam,Is Starred,Source,Medium,Campaign,Landing Page,Country\n"))
	golden(t, "export.csv.golden", r.body)
}
