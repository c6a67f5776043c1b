package reporting

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// Names as people read them: events humanised, days in words, a country
// by its name with its code as the mark (no emoji font needed).
func TestWordsForNames(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"form_submitted": "Form submitted", "booking_paid": "Booking paid", "signUp": "Sign up",
		"purchase": "Purchase", "add-to-cart": "Add to cart", "Signed up": "Signed up", "": "", "page.view": "Page view"} {
		require.Equal(t, want, eventWords(in), in)
	}
	require.Equal(t, "5 May", dayWords("2026-05-05", false))
	require.Equal(t, "1 June 2026", dayWords("2026-06-01", true))
	require.Equal(t, "week 22", dayWords("week 22", true), "a label that is not a day is as it is")
	name, mark := countryLabel("gb")
	require.Equal(t, "United Kingdom", name)
	require.Equal(t, "GB", mark)
	name, mark = countryLabel("ZZ")
	require.Equal(t, "ZZ", name)
	require.Empty(t, mark)
}

// Known sources are counted under one name: a site's link shims and
// mobile hosts with it, a search engine's country sites as its own.
func TestKnownSourcesGrouped(t *testing.T) {
	t.Parallel()
	for referrer, want := range map[string]string{"https://l.facebook.com/l.php?u=x": "facebook.com", "https://m.facebook.com/": "facebook.com",
		"https://www.facebook.com/": "facebook.com", "https://t.co/abc": "x.com", "https://twitter.com/": "x.com",
		"https://www.google.co.uk/": "google.com", "https://www.google.de/": "google.com", "https://google.com/": "google.com",
		"https://m.bing.com/": "bing.com", "https://search.yahoo.co.jp/": "yahoo.com", "android-app://com.google.android.gm/": "mail.google.com",
		"https://news.example/story": "news.example", "https://googleblog.example/": "googleblog.example", "https://site.example/own": "Direct"} {
		u, err := url.Parse("https://site.example/landing")
		require.NoError(t, err)
		require.Equal(t, want, source(u, referrer, "site.example"), referrer)
	}
}
