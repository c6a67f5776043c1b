// Package reportinggeo tells the collector a visitor's country, never
// storing the address: from a header a trusted proxy sets (Cloudflare's
// CF-IPCountry, or another name), else from an MMDB file the host points
// to (DB-IP's free IP-to-Country Lite, or MaxMind's GeoLite2 Country or
// City), read with github.com/oschwald/maxminddb-golang. It is a package
// of its own so that a collector without it does not link the reader.
package reportinggeo

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"github.com/oschwald/maxminddb-golang/v2"

	"github.com/groundwork-go/groundwork/internal/proxies"
)

// HeaderDefault is Cloudflare's country header.
const HeaderDefault = "CF-IPCountry"

// Countries looks countries up in an MMDB file. Safe for concurrent use.
type Countries struct {
	r *maxminddb.Reader
}

// Open reads an MMDB file of countries (DB-IP Lite, GeoLite2 Country or
// City).
func Open(path string) (*Countries, error) {
	r, err := maxminddb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reportinggeo: open %s: %w", path, err)
	}
	return &Countries{r: r}, nil
}

// Close releases the file.
func (c *Countries) Close() error { return c.r.Close() }

// record is the part of a country record read: both DB-IP's and
// MaxMind's files have it.
type record struct {
	Country struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"country"`
}

// Country is ip's country as an ISO 3166 code ("DE"), "" when the file
// does not know it.
func (c *Countries) Country(ip netip.Addr) string {
	var rec record
	if err := c.r.Lookup(ip.Unmap()).Decode(&rec); err != nil {
		return ""
	}
	return strings.ToUpper(rec.Country.ISOCode)
}

// Options configures [Func].
type Options struct {
	// Header is the header a trusted proxy sets (HeaderDefault when ""),
	// read only from requests that came through TrustedProxies; "-" reads
	// none.
	Header string
	// TrustedProxies are the proxies whose header and forwarded address
	// are believed.
	TrustedProxies []netip.Prefix
	// Countries, when set, looks up the client's address where no header
	// says.
	Countries *Countries
}

// Func is a reporting.CollectOptions.Country: a proxy's header when a
// trusted proxy sent the request and set it (unknown values, "XX" and
// Tor's "T1", as none), else the MMDB's answer for the client's address,
// else "".
func Func(o Options) func(r *http.Request) string {
	header := o.Header
	if header == "" {
		header = HeaderDefault
	}
	return func(r *http.Request) string {
		if header != "-" && fromTrusted(r, o.TrustedProxies) {
			if v := strings.ToUpper(strings.TrimSpace(r.Header.Get(header))); len(v) == 2 && v != "XX" && v != "T1" {
				return v
			}
		}
		if o.Countries == nil {
			return ""
		}
		ip, err := netip.ParseAddr(proxies.ClientIPString(r, o.TrustedProxies))
		if err != nil {
			return ""
		}
		return o.Countries.Country(ip)
	}
}

// fromTrusted reports whether r came straight from a trusted proxy.
func fromTrusted(r *http.Request, trusted []netip.Prefix) bool {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	for _, p := range trusted {
		if p.Contains(ap.Addr().Unmap()) {
			return true
		}
	}
	return false
}
