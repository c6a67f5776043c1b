package reportinggeo_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportinggeo"
	"github.com/groundwork-go/groundwork/reporting/reportinggeo/reportinggeotest"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func countriesFile(t testing.TB, n map[string]string) string { return reportinggeotest.Countries(t, n) }

var networks = map[string]string{"192.0.2.0/24": "DE", "198.51.100.0/24": "fr", "2001:db8::/32": "JP"}

func TestCountryOfAnAddress(t *testing.T) {
	t.Parallel()
	c, err := reportinggeo.Open(countriesFile(t, networks))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	for ip, want := range map[string]string{
		"192.0.2.7": "DE", "198.51.100.200": "FR", "2001:db8:1::5": "JP", "::ffff:192.0.2.9": "DE",
		"203.0.113.1": "", "127.0.0.1": "", "::1": "",
	} {
		require.Equal(t, want, c.Country(netip.MustParseAddr(ip)), ip)
	}
	_, err = reportinggeo.Open(filepath.Join(t.TempDir(), "none.mmdb"))
	require.ErrorContains(t, err, "reportinggeo: open")
	bad := filepath.Join(t.TempDir(), "bad.mmdb")
	require.NoError(t, os.WriteFile(bad, []byte("not a database"), 0o600))
	_, err = reportinggeo.Open(bad)
	require.Error(t, err)
}

func TestFuncBelievesOnlyTrustedProxies(t *testing.T) {
	t.Parallel()
	c, err := reportinggeo.Open(countriesFile(t, networks))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	proxy := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	req := func(remote string, header ...string) *http.Request {
		r := httptest.NewRequest("POST", "/analytics/collect", nil)
		r.RemoteAddr = remote
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		return r
	}
	both := reportinggeo.Func(reportinggeo.Options{TrustedProxies: proxy, Countries: c})
	for _, tc := range []struct {
		name string
		r    *http.Request
		want string
	}{
		{"a trusted proxy's header", req("10.1.2.3:5000", "CF-IPCountry", "br"), "BR"},
		{"a trusted proxy's XX: the file for the forwarded address", req("10.1.2.3:5000", "CF-IPCountry", "XX", "X-Forwarded-For", "192.0.2.1"), "DE"},
		{"Tor is no country", req("10.1.2.3:5000", "CF-IPCountry", "T1"), ""},
		{"no header: the forwarded address", req("10.1.2.3:5000", "X-Forwarded-For", "203.0.113.9, 198.51.100.4"), "FR"},
		{"a client's own header is not believed", req("192.0.2.50:5000", "CF-IPCountry", "US"), "DE"},
		{"a client's forwarded address is not believed", req("192.0.2.50:5000", "X-Forwarded-For", "198.51.100.4"), "DE"},
		{"IPv6", req("[2001:db8::1]:443"), "JP"},
		{"unknown", req("203.0.113.5:1"), ""},
		{"a header too long", req("10.1.2.3:5000", "CF-IPCountry", "DEU", "X-Forwarded-For", "198.51.100.4"), "FR"},
	} {
		require.Equal(t, tc.want, both(tc.r), tc.name)
	}
	named := reportinggeo.Func(reportinggeo.Options{Header: "X-Country", TrustedProxies: proxy})
	require.Equal(t, "NL", named(req("10.0.0.1:1", "X-Country", "nl", "CF-IPCountry", "US")))
	require.Equal(t, "", named(req("10.0.0.1:1", "CF-IPCountry", "US")), "another header than the one named")
	require.Equal(t, "", named(req("192.0.2.1:1")), "no file, no header: unknown")
	none := reportinggeo.Func(reportinggeo.Options{Header: "-", TrustedProxies: proxy, Countries: c})
	require.Equal(t, "FR", none(req("10.0.0.1:1", "CF-IPCountry", "US", "X-Forwarded-For", "198.51.100.4")), `"-" reads no header`)
}

// TestCountriesReport counts views by country through the collector, on
// both databases, against the counts made from the views sent.
func TestCountriesReport(t *testing.T) {
	t.Parallel()
	c, err := reportinggeo.Open(countriesFile(t, networks))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		a, err := reporting.NewAnalytics(reportingsql.New(storetest.Open(t, d, reportingsql.Migrations)), nil)
		require.NoError(t, err)
		loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
		h, err := reporting.NewCollectHandler(a, &reporting.CollectOptions{Hosts: []string{"shop.example"}, Limit: -1,
			HTTPOptions: groundwork.HTTPOptions{TrustedProxies: loopback},
			Country:     reportinggeo.Func(reportinggeo.Options{TrustedProxies: loopback, Countries: c})})
		require.NoError(t, err)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		sent := []struct{ forwarded, header string }{
			{"192.0.2.1", ""}, {"192.0.2.1", ""}, {"192.0.2.2", ""}, {"198.51.100.1", ""},
			{"2001:db8::7", ""}, {"203.0.113.1", "CH"}, {"203.0.113.2", ""}, {"192.0.2.3", "IT"},
		}
		views, visitors := map[string]float64{}, map[string]map[string]bool{}
		for _, s := range sent {
			r, err := http.NewRequest("POST", srv.URL+"/analytics/collect", strings.NewReader(`{"url":"https://shop.example/"}`))
			require.NoError(t, err)
			r.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
			r.Header.Set("X-Forwarded-For", s.forwarded)
			if s.header != "" {
				r.Header.Set("CF-IPCountry", s.header)
			}
			res, err := srv.Client().Do(r)
			require.NoError(t, err)
			res.Body.Close()
			require.Equal(t, 202, res.StatusCode)
			want := s.header // the proxy's header first, else the file
			if want == "" {
				want = c.Country(netip.MustParseAddr(s.forwarded))
			}
			if want == "" {
				continue
			}
			views[want]++
			if visitors[want] == nil {
				visitors[want] = map[string]bool{}
			}
			visitors[want][s.forwarded] = true
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, a.Flush(ctx))
		got, err := a.Breakdown(ctx, reporting.DimCountry, reporting.AnalyticsQuery{Days: 1})
		require.NoError(t, err)
		gotViews, gotUsers := map[string]float64{}, map[string]float64{}
		for _, row := range got.Rows {
			gotViews[row.Key], gotUsers[row.Key] = row.Views, row.Users
		}
		wantUsers := map[string]float64{}
		for k, v := range visitors {
			wantUsers[k] = float64(len(v))
		}
		require.Equal(t, views, gotViews)
		require.Equal(t, wantUsers, gotUsers)
		// Narrowed by a country, its views alone.
		one, err := a.Breakdown(ctx, reporting.DimCountry, reporting.AnalyticsQuery{Days: 1, Filters: reporting.Filters{{Dim: reporting.DimCountry, Value: got.Rows[0].Key}}})
		require.NoError(t, err)
		require.Equal(t, []reporting.BreakdownRow{{Key: got.Rows[0].Key, Views: got.Rows[0].Views, Users: got.Rows[0].Users, Shares: 1}}, one.Rows)
	})
}
