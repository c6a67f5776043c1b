package reporting

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/idna"

	"github.com/groundwork-go/groundwork/tenant"
)

// HostStore keeps each site's hosts (AnalyticsOptions.SiteHosts;
// reportingsql.Join keeps them in the analytics' database): the
// addresses whose pages the collector counts for the site, besides its
// own Hosts, which count for "" and no site may take. A host is one
// site's at most. A change made through the analytics (the settings
// page, the hosts route) counts at once on the instance that made it,
// and within seconds on the others.
type HostStore interface {
	// Hosts are the hosts of the ctx's site, sorted.
	Hosts(ctx context.Context) ([]string, error)
	// SetHosts makes hosts (lower-case ASCII names, none twice) the ctx's
	// site's, in one transaction: when any of them is another site's it
	// changes nothing and returns those (taken), else it returns none. A
	// site's concurrent changes are made one after the other.
	SetHosts(ctx context.Context, hosts []string) (taken []string, err error)
	// SitesOfHosts is every site's hosts, host to site, whatever tenant
	// ctx acts for.
	SitesOfHosts(ctx context.Context) (map[string]string, error)
}

// maxSiteHosts is how many hosts a site may have.
const maxSiteHosts = 20

// hostsFresh is how long the analytics count by the map of hosts they
// read before reading it again: how soon another instance's change
// counts here.
const hostsFresh = 10 * time.Second

// errBadHosts wraps what is wrong with a site's hosts.
var errBadHosts = errors.New("reporting: bad hosts")

// hostMap is the analytics' copy of the store's hosts.
type hostMap struct {
	sites atomic.Pointer[hostSites]
	// reading is held by whoever reads the map again.
	reading sync.Mutex
	// own are the collectors' Hosts, which no site may take.
	own atomic.Pointer[[]string]
	// fresh is hostsFresh (shorter in tests).
	fresh time.Duration
}

// hostSites is the map as read at read.
type hostSites struct {
	sites map[string]string
	read  time.Time
}

// reserve keeps hosts for the collectors' own site ("").
func (m *hostMap) reserve(hosts []string) {
	for {
		old := m.own.Load()
		var all []string
		if old != nil {
			all = slices.Clone(*old)
		}
		for _, h := range hosts {
			if !slices.Contains(all, h) {
				all = append(all, h)
			}
		}
		if m.own.CompareAndSwap(old, &all) {
			return
		}
	}
}

// owned reports whether host is a collector's own.
func (m *hostMap) owned(host string) bool {
	own := m.own.Load()
	return own != nil && slices.Contains(*own, host)
}

// siteOfHost is the site of host's pages: SiteOfHost's when the options
// name one, else the store's map of hosts (a collector's own host is
// none's).
func (a *Analytics) siteOfHost(ctx context.Context, host string) (string, bool) {
	if a.o.SiteOfHost != nil {
		return a.o.SiteOfHost(ctx, host)
	}
	if a.o.SiteHosts == nil || a.hosts.owned(host) {
		return "", false
	}
	site, ok := a.hostSites(ctx)[host]
	return site, ok
}

// hostSites is the map of hosts, read again when older than its fresh:
// by one caller, the others counting by the old map meanwhile.
func (a *Analytics) hostSites(ctx context.Context) map[string]string {
	cur := a.hosts.sites.Load()
	if cur != nil && time.Since(cur.read) < a.hosts.fresh {
		return cur.sites
	}
	if cur == nil {
		a.hosts.reading.Lock()
	} else if !a.hosts.reading.TryLock() {
		return cur.sites
	}
	defer a.hosts.reading.Unlock()
	if now := a.hosts.sites.Load(); now != cur && now != nil {
		return now.sites // read meanwhile
	}
	sites, err := a.o.SiteHosts.SitesOfHosts(tenant.All(context.WithoutCancel(ctx)))
	if err != nil {
		a.o.Logger.ErrorContext(ctx, "reporting: read the sites' hosts", "error", err)
		if cur != nil {
			sites = cur.sites
		}
	}
	a.hosts.sites.Store(&hostSites{sites: sites, read: time.Now()}) // on an error, tried again when stale
	return sites
}

// siteHosts are the hosts of ctx's site; errNoHosts when none are
// kept.
func (a *Analytics) siteHosts(ctx context.Context) ([]string, error) {
	if a.o.SiteHosts == nil {
		return nil, errNoHosts
	}
	hosts, err := a.o.SiteHosts.Hosts(ctx)
	if hosts == nil {
		hosts = []string{}
	}
	return hosts, err
}

// errNoHosts is asked of analytics that keep no hosts.
var errNoHosts = errors.New("reporting: no hosts of sites are kept")

// setSiteHosts checks hosts (see normalizeHosts) and makes them ctx's
// site's: kept are the hosts as stored; taken, when not empty, those
// another site has, and nothing changed. A collector's own host is
// refused (errBadHosts).
func (a *Analytics) setSiteHosts(ctx context.Context, hosts []string) (kept, taken []string, err error) {
	if a.o.SiteHosts == nil {
		return nil, nil, errNoHosts
	}
	if kept, err = normalizeHosts(hosts); err != nil {
		return nil, nil, err
	}
	for _, h := range kept {
		if a.hosts.owned(h) {
			return nil, nil, fmt.Errorf("%w: This server's own address, %s, counts for the server's site: no site may name it.", errBadHosts, h)
		}
	}
	if taken, err = a.o.SiteHosts.SetHosts(ctx, kept); err != nil || len(taken) > 0 {
		return nil, taken, err
	}
	a.hosts.sites.Store(nil) // read again at the next view
	return kept, nil, nil
}

// normalizeHosts checks a site's hosts: names (as shop.example.com; an
// address's host is taken from it, its scheme and port dropped, a path
// refused), internationalized names in their ASCII form, IP addresses,
// at most maxSiteHosts; returned lower-case, sorted, none twice.
func normalizeHosts(in []string) ([]string, error) {
	var out []string
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		h, err := normalizeHost(s)
		if err != nil {
			return nil, fmt.Errorf("%w: %s (%q).", errBadHosts, err.Error(), clip(s, 100))
		}
		if !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	if len(out) > maxSiteHosts {
		return nil, fmt.Errorf("%w: A site has at most %d addresses.", errBadHosts, maxSiteHosts)
	}
	slices.Sort(out)
	return out, nil
}

// errNotHost is an address that is no host's.
var errNotHost = errors.New("Not a host name: give one as shop.example.com")

func normalizeHost(s string) (string, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || u.User != nil:
		return "", errNotHost
	case u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "":
		return "", errors.New("Give the host alone, as shop.example.com, not a path: every page of a host counts for one site")
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap().String(), nil
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil || ascii == "" || len(ascii) > 253 {
		return "", errNotHost
	}
	return ascii, nil
}
