package reporting_test

import (
	"bytes"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
)

// oldBots is the case-insensitive regular expression Bot replaced: the
// oracle its answers must agree with.
var oldBots = regexp.MustCompile(`(?i)bot|crawl|spider|slurp|curl|wget|python|java/|go-http-client|okhttp|axios|headless|lighthouse|` +
	`phantomjs|facebookexternalhit|embedly|preview|monitor|uptime|scrapy|httpclient|libwww|feedfetcher`)

var userAgents = []string{
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
	"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36",
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
	"python-requests/2.32.3", "curl/8.5.0", "Go-http-client/1.1", "Java/17.0.2", "facebookexternalhit/1.1", "UptimeRobot/2.0",
	"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
	"", "   ", "BOT", "SpIdEr", strings.Repeat("x", 600) + "Crawler", strings.Repeat("Mozilla ", 100),
}

// Bot answers as the regular expression did, for real user agents, for
// long ones and for random mixtures of words, noise and case.
func TestBotAgreesWithTheExpression(t *testing.T) {
	t.Parallel()
	old := func(ua string) bool { return strings.TrimSpace(ua) == "" || oldBots.MatchString(ua) }
	for _, ua := range userAgents {
		require.Equal(t, old(ua), reporting.Bot(ua), ua)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"Mozilla/5.0", " ", "(", ")", "Bo", "t", "CRAWL", "sp", "ider", "Java", "/", "go-http", "-client", "ÄÖ", "ſ",
		"Headless", "x", "uptime", "Okhttp", "préview", "\t", "é"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		ua := b.String()
		if strings.Contains(ua, "ſ") {
			continue // the expression folds the long s into s; Bot looks at ASCII only
		}
		require.Equal(t, old(ua), reporting.Bot(ua), "%q", ua)
	}
}

// The bot check per hit, against the expression it replaced.
func BenchmarkBot(b *testing.B) {
	for _, impl := range []struct {
		name string
		fn   func(string) bool
	}{{"expression", func(ua string) bool { return strings.TrimSpace(ua) == "" || oldBots.MatchString(ua) }}, {"words", reporting.Bot}} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, ua := range userAgents[:13] {
					impl.fn(ua)
				}
			}
		})
	}
}

// A robot's view is answered 202 like any other (a crawler learns
// nothing) and left out, said at debug in the log with its user agent.
func TestBotViewIsSaidAtDebug(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	var logs bytes.Buffer
	a, err := reporting.NewAnalytics(b.analytics.Store(), &reporting.AnalyticsOptions{Now: b.clock.Now,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	require.NoError(t, err)
	h, err := reporting.NewCollectHandler(a, &reporting.CollectOptions{Hosts: []string{"shop.example"}, Limit: -1})
	require.NoError(t, err)
	req := httptest.NewRequest("POST", "/analytics/collect", strings.NewReader(`{"url":"https://shop.example/"}`))
	req.Header.Set("User-Agent", "curl/8.5.0")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	require.Equal(t, 202, w.Code)
	require.Zero(t, a.Pending(), "not counted")
	require.Contains(t, logs.String(), "level=DEBUG")
	require.Contains(t, logs.String(), "reporting: view left out")
	require.Contains(t, logs.String(), "curl/8.5.0")
}
