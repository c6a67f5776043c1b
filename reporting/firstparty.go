package reporting

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/medama-io/go-useragent"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/hooks"
)

// First-party defaults.
const (
	// FlushIntervalDefault is how often collected hits are written.
	FlushIntervalDefault = time.Second
	// FlushSizeDefault writes as soon as this many hits wait.
	FlushSizeDefault = 1000
	// FlushBatchDefault is the most hits one flush writes in one
	// transaction; more waiting are written by the next flushes at once.
	FlushBatchDefault = 5000
	// MaxPendingDefault is how many collected hits may wait to be written
	// (about 300 bytes each) before Collect refuses more with ErrBusy.
	MaxPendingDefault = 100_000
	// ShutdownFlushDefault is how long Run's last flush goes on trying
	// while every write fails.
	ShutdownFlushDefault = time.Minute
	// lastFlushReport is how often the last flush says how far it has got.
	lastFlushReport = 5 * time.Second
	// flushTimeout bounds one flush of Run's loop.
	flushTimeout = 30 * time.Second
	// RetentionDefault keeps the daily rollups two years.
	RetentionDefault = 2 * 365 * 24 * time.Hour
	// MaxPathLength and MaxTitleLength cap what a hit keeps.
	MaxPathLength  = 1024
	MaxTitleLength = 300
	// MaxEventNameLength caps an event's name.
	MaxEventNameLength = 120
	// MaxPropNameLength and MaxPropValueLength cap an event's property.
	MaxPropNameLength  = 40
	MaxPropValueLength = 200
	// MaxProps caps an event's props (see View.Props).
	MaxProps = 30
)

// AnalyticsOptions configures [NewAnalytics]. Nil means the defaults.
type AnalyticsOptions struct {
	// Location is the zone days are counted in; UTC when nil.
	Location *time.Location
	// FlushInterval and FlushSize: how often, or at how many waiting
	// hits, the collector writes; the ...Default when zero.
	FlushInterval time.Duration
	FlushSize     int
	// FlushBatch bounds one flush's transaction: a writer that fell
	// behind drains in transactions of this size, not one of everything
	// waiting. FlushBatchDefault when zero.
	FlushBatch int
	// FlushWriters is how many transactions one flush writes at once, each
	// a share of the waiting hits split by visitor (a visitor's hits stay
	// in one, in order), written in transactions of at most FlushBatch.
	// 1 when zero. More than one
	// helps a database that writes in parallel (Postgres), not SQLite,
	// whose writers take turns.
	FlushWriters int
	// MaxPending is how many hits may wait to be written, the batch being
	// written included; beyond it Collect answers ErrBusy, so nothing is
	// taken that cannot be stored. MaxPendingDefault when zero.
	MaxPending int
	// ShutdownFlush is how long Run's last flush, after its context ends,
	// goes on trying while every write fails (the database away); as long
	// as writes succeed it goes on until every hit waiting is written,
	// however long that takes. ShutdownFlushDefault when zero.
	ShutdownFlush time.Duration
	// Retention: rollups of days longer ago are pruned;
	// RetentionDefault when zero, kept for ever when negative.
	Retention time.Duration
	// Now and Rand are the clock and the salts' randomness.
	Now func() time.Time
	// Logger receives what the collector decides without a caller to
	// tell (views refused, writes failed, the last flush's progress, bots
	// left out at debug); slog.Default() when nil.
	Logger *slog.Logger
	// Meter counts the views buffered, flushed and refused
	// (groundwork.MetricViews); nil counts nothing.
	Meter groundwork.Meter
	// SiteOfHost is the site (the tenant's key; see tenant.With) whose
	// analytics count the pages of host (lower case, no port), and
	// whether it has one: each tenant's views count in its own reports.
	// The collector takes the pages of such a host whatever its Hosts
	// say. Called for every view, so it answers from memory. When nil,
	// the hosts each site names in SiteHosts count for it instead. For
	// a host neither knows, a view counts for the site "".
	SiteOfHost func(ctx context.Context, host string) (site string, ok bool)
	// SiteHosts keeps the hosts each site names for itself (on the
	// settings page, or PUT /analytics-hosts), read when SiteOfHost is
	// nil; reportingsql.Join keeps them in its database. Nil keeps none.
	SiteHosts HostStore
}

// Analytics is the first-party analytics: it collects page views and
// events without cookies (a visitor is a hash of the day's salt, the
// site, the IP and the user agent; the salt is forgotten after a day, so
// no visitor can be followed from one day to the next, and no IP is
// stored), and answers the analytics reports from daily rollups. It is
// a DetailSource (and so an AnalyticsSource). Safe for concurrent use.
type Analytics struct {
	store Store
	o     AnalyticsOptions

	mu      sync.Mutex
	pending hitQueue
	writing int // hits of the batch being written
	warned  time.Time
	salts   map[string][]byte // day → salt, today's and yesterday's
	kick    chan struct{}
	flushMu sync.Mutex
	// room is closed, and replaced, as each flush ends: a view that finds
	// MaxPending waiting waits on it for the room the flush made.
	room chan struct{}
	// reached are the OnGoalReachedTx hooks.
	reached hooks.List[func(ctx context.Context, tx *sql.Tx, r []GoalReached) error]
	// hosts is the store's map of hosts to sites (HostStore).
	hosts hostMap
}

// NewAnalytics returns the first-party source on store. Run its
// collector with [Analytics.Run] (or call [Analytics.Flush]).
func NewAnalytics(st Store, opts *AnalyticsOptions) (*Analytics, error) {
	if st == nil {
		return nil, errors.New("reporting: new analytics: store is nil")
	}
	var o AnalyticsOptions
	if opts != nil {
		o = *opts
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = FlushIntervalDefault
	}
	if o.FlushSize <= 0 {
		o.FlushSize = FlushSizeDefault
	}
	if o.FlushBatch <= 0 {
		o.FlushBatch = FlushBatchDefault
	}
	if o.FlushWriters <= 0 {
		o.FlushWriters = 1
	}
	if o.MaxPending <= 0 {
		o.MaxPending = MaxPendingDefault
	}
	if o.ShutdownFlush <= 0 {
		o.ShutdownFlush = ShutdownFlushDefault
	}
	if o.Retention == 0 {
		o.Retention = RetentionDefault
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	a := &Analytics{store: st, o: o, salts: map[string][]byte{}, kick: make(chan struct{}, 1), room: make(chan struct{})}
	a.hosts.fresh = hostsFresh
	return a, nil
}

// Store is the source's store.
func (a *Analytics) Store() Store { return a.store }

// Fresh implements [Fresh]: the first-party reports are read from the
// rollups at every request (they take milliseconds over a million views).
func (a *Analytics) Fresh() {}

// View is one page view or event to record, as a browser reports it.
type View struct {
	// Name is "pageview" (or empty) for a page view, else the event.
	Name string
	// URL is the page's address; Referrer the previous page's.
	URL, Referrer, Title string
	// IP and UserAgent identify the visitor for the day (hashed, never
	// stored); Country is the host's guess, or "".
	IP, UserAgent, Country string
	// Props are an event's properties (ignored for a page view): at most
	// MaxProps, names of at most MaxPropNameLength bytes and values of
	// at most MaxPropValueLength, no control characters.
	Props map[string]string
	// Revenue is what an event earned ("49.90": a decimal, at most three
	// places, at most a trillion) in Currency (ISO 4217: "EUR"), both or
	// neither: the goals it reaches report it. Ignored for a page view.
	Revenue, Currency string

	// site and sited: the collector's answer of SiteOfHost for the
	// page's host, so a view it checked is not looked up again.
	site  string
	sited bool
}

// Reasons a view is not recorded.
var (
	// ErrBot: the user agent is a bot's, a crawler's or a script's.
	ErrBot = errors.New("reporting: bot")
	// ErrBadView: the view's URL or name cannot be used.
	ErrBadView = errors.New("reporting: bad view")
	// ErrBusy: MaxPending hits wait to be written already (the store
	// takes them slower than they come, or is down); the view is not
	// taken. The collect handler answers 503 with Retry-After.
	ErrBusy = errors.New("reporting: too many views wait to be written")
)

// The events the analytics script sends of itself, each opted into on
// its tag: a click on a link to another site (prop url), on a link to a
// file (url), a page the server answered 404 (path), and, as a page is
// left, how far down it was read and how long it was seen (scroll_depth
// and time_on_page, in the bands of engagementProps).
const (
	eventOutbound   = "outbound_link"
	eventDownload   = "file_download"
	eventNotFound   = "not_found"
	eventEngagement = "engagement"
)

// scrollBands and timeBands are the bands an engagement event's
// scroll_depth (percent read) and seconds fall in, each from its lower
// bound, in order: counted in bands, a page's reading is a handful of
// rows however its visitors read.
var (
	scrollBands = []bandFrom{{0, "Under 25%"}, {25, "25–49%"}, {50, "50–74%"}, {75, "75–99%"}, {100, "100%"}}
	timeBands   = []bandFrom{{0, "Under 10 s"}, {10, "10–29 s"}, {30, "30–59 s"}, {60, "1–2 min"}, {180, "3–9 min"}, {600, "10 min or more"}}
)

// engagementProps are an engagement event's props as counted: its
// scroll_depth and seconds (whole numbers; anything else is dropped) as
// the scroll_depth and time_on_page bands they fall in.
func engagementProps(in []Prop) []Prop {
	var out []Prop
	for _, p := range in {
		n, err := strconv.Atoi(p.Value)
		if err != nil || n < 0 {
			continue
		}
		switch p.Name {
		case "scroll_depth":
			out = append(out, Prop{Name: "scroll_depth", Value: band(scrollBands, min(n, 100))})
		case "seconds":
			out = append(out, Prop{Name: "time_on_page", Value: band(timeBands, n)})
		}
	}
	slices.SortFunc(out, func(a, b Prop) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// bandFrom is a band of numbers from its lower bound, by its label.
type bandFrom struct {
	from  int
	label string
}

// band is the label of the last band n reaches.
func band(bands []bandFrom, n int) string {
	label := bands[0].label
	for _, b := range bands {
		if n >= b.from {
			label = b.label
		}
	}
	return label
}

// parseRevenue reads an event's revenue: amount a decimal of at most
// twelve digits before its point and three after, currency three letters
// (ISO 4217, upper-cased); the amount in thousandths of a unit.
func parseRevenue(amount, currency string) (int64, string, error) {
	bad := func(why string) error { return fmt.Errorf("%w: the revenue %s", ErrBadView, why) }
	amount, currency = strings.TrimSpace(amount), strings.ToUpper(strings.TrimSpace(currency))
	if len(currency) != 3 || strings.IndexFunc(currency, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return 0, "", bad("needs its currency, three letters (ISO 4217: EUR)")
	}
	whole, frac, _ := strings.Cut(amount, ".")
	digits := func(s string) bool { return strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0 }
	if whole == "" || len(whole) > 12 || len(frac) > 3 || !digits(whole) || !digits(frac) || strings.HasSuffix(amount, ".") {
		return 0, "", bad("amount must be a number of at least 0, with at most three decimal places")
	}
	n, _ := strconv.ParseInt(whole+(frac + "000")[:3], 10, 64)
	return n, currency, nil
}

// botWords are the parts of a user agent that mark a robot, a crawler or
// a script, in lower case.
var botWords = func() [][]byte {
	words := []string{"bot", "crawl", "spider", "slurp", "curl", "wget", "python", "java/", "go-http-client", "okhttp", "axios",
		"headless", "lighthouse", "phantomjs", "facebookexternalhit", "embedly", "preview", "monitor", "uptime", "scrapy", "httpclient",
		"libwww", "feedfetcher"}
	out := make([][]byte, len(words))
	for i, w := range words {
		out[i] = []byte(w)
	}
	return out
}()

// botUAMax is the longest user agent lowered on the stack: real
// browsers' are a few hundred bytes.
const botUAMax = 512

// Bot reports whether a user agent is a robot's (or empty): any of
// botWords in it, whatever the (ASCII) case. It lowers the user agent
// into a buffer on the stack and looks for each word with bytes.Contains,
// a fraction of what a case-insensitive regular expression costs per hit.
func Bot(userAgent string) bool {
	if strings.TrimSpace(userAgent) == "" {
		return true
	}
	var buf [botUAMax]byte
	lower := buf[:0]
	if len(userAgent) > botUAMax {
		lower = make([]byte, 0, len(userAgent)) // rare: the whole of a long one, on the heap
	}
	for i := 0; i < len(userAgent); i++ {
		c := userAgent[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower = append(lower, c)
	}
	for _, w := range botWords {
		if bytes.Contains(lower, w) {
			return true
		}
	}
	return false
}

// Device is "mobile", "tablet" or "desktop" for a user agent.
func Device(userAgent string) string {
	ua := strings.ToLower(userAgent)
	switch {
	case strings.Contains(ua, "ipad") || strings.Contains(ua, "tablet") || strings.Contains(ua, "android") && !strings.Contains(ua, "mobile"):
		return "tablet"
	case strings.Contains(ua, "mobi") || strings.Contains(ua, "iphone") || strings.Contains(ua, "android"):
		return "mobile"
	}
	return "desktop"
}

// Collect takes one view: a bot's is refused (ErrBot), a view without a
// usable http(s) URL too (ErrBadView), and any while MaxPending wait and
// no flush makes room within a second (ErrBusy); otherwise it is hashed
// and kept for the next flush. A view
// taken is written unless the process is killed first: at most
// FlushInterval's views (a second's by default) are lost to a hard kill.
func (a *Analytics) Collect(ctx context.Context, v View) error { return a.collect(ctx, v, true) }

// collect is Collect; a server's own event (botCheck false) is taken
// whatever the user agent.
func (a *Analytics) collect(ctx context.Context, v View, botCheck bool) error {
	u, err := url.Parse(v.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: the url must be an absolute http(s) address", ErrBadView)
	}
	name := strings.TrimSpace(v.Name)
	if name == "pageview" {
		name = ""
	}
	if len(name) > MaxEventNameLength || strings.ContainsFunc(name, isControl) {
		return fmt.Errorf("%w: the event name is too long or holds control characters", ErrBadView)
	}
	props, err := checkProps(v.Props)
	if err != nil {
		return err
	}
	switch name {
	case "":
		props = nil // a page view's are not counted
	case eventEngagement:
		props = engagementProps(props)
	}
	var revenue int64
	var currency string
	if name != "" && (v.Revenue != "" || v.Currency != "") {
		if revenue, currency, err = parseRevenue(v.Revenue, v.Currency); err != nil {
			return err
		}
	}
	if botCheck && Bot(v.UserAgent) { // after the cheaper refusals
		a.o.Logger.DebugContext(ctx, "reporting: view left out: the user agent is a robot's or a script's", "user_agent", clip(v.UserAgent, 200))
		return ErrBot
	}
	if !a.hasRoom(ctx) {
		return a.refuse(ctx)
	}
	now := a.o.Now()
	day := now.In(a.o.Location).Format(time.DateOnly)
	salt, err := a.salt(ctx, day)
	if err != nil {
		return err
	}
	site := strings.ToLower(u.Hostname())
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	owner := v.site
	if !v.sited {
		owner, _ = a.siteOfHost(ctx, site)
	}
	h := Hit{Site: owner, At: now, Day: day, Visitor: visitorHash(salt, site, v.IP, v.UserAgent), Event: name, Path: clip(path, MaxPathLength),
		Title: clip(strings.TrimSpace(v.Title), MaxTitleLength), Source: source(u, v.Referrer, site), Device: Device(v.UserAgent),
		Country: clip(strings.ToUpper(strings.TrimSpace(v.Country)), 2), Props: props, Campaign: campaign(u), Revenue: revenue, Currency: currency}
	h.Browser, h.OS = browserAndOS(v.UserAgent)
	a.mu.Lock()
	if a.pending.len()+a.writing >= a.o.MaxPending { // filled again meanwhile
		a.mu.Unlock()
		return a.refuse(ctx)
	}
	a.pending.push(h)
	full := a.pending.len() >= a.o.FlushSize
	a.mu.Unlock()
	groundwork.Count(a.o.Meter, groundwork.MetricViews, "buffered")
	if full {
		select {
		case a.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

// roomWait is how long a view that finds MaxPending waiting waits for a
// flush to make room before it is refused. A client that sends faster
// than the database writes is then paced by the writer rather than
// refused at once and again: each refusal is a request's work (most of
// the CPU of a view) taken from the writer, which is what falls behind.
const roomWait = time.Second

// hasRoom reports whether a view may be taken: fewer than MaxPending
// wait, or a flush makes room within roomWait.
func (a *Analytics) hasRoom(ctx context.Context) bool {
	var timer *time.Timer
	for {
		a.mu.Lock()
		full, room := a.pending.len()+a.writing >= a.o.MaxPending, a.room
		a.mu.Unlock()
		if !full {
			return true
		}
		if timer == nil {
			timer = time.NewTimer(roomWait)
			defer timer.Stop()
		}
		select {
		case <-room:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// refuse counts a view refused because MaxPending wait (and says so in
// the log, once in ten seconds), and returns ErrBusy.
func (a *Analytics) refuse(ctx context.Context) error {
	now := a.o.Now()
	a.mu.Lock()
	n := a.pending.len() + a.writing
	warn := now.Sub(a.warned) >= 10*time.Second
	if warn {
		a.warned = now
	}
	a.mu.Unlock()
	if warn {
		a.o.Logger.WarnContext(ctx, "reporting: views refused: too many wait to be written", "waiting", n)
	}
	groundwork.Count(a.o.Meter, groundwork.MetricViews, "refused")
	return ErrBusy
}

// source is where a visit came from: utm_source, else ref or source (a
// framed page's host passes on where its visitor came from as ref, as
// Plausible reads it), else the referrer's host (not the site's own),
// else "Direct".
func source(u *url.URL, referrer, site string) string {
	if u.RawQuery != "" {
		q := u.Query()
		for _, k := range []string{"utm_source", "ref", "source"} {
			if s := strings.TrimSpace(dropControls(q.Get(k))); s != "" {
				return clip(knownSource(strings.TrimPrefix(strings.ToLower(s), "www.")), 100)
			}
		}
	}
	if r, err := url.Parse(referrer); err == nil && r.Host != "" {
		host := strings.TrimPrefix(strings.ToLower(r.Hostname()), "www.")
		if host != strings.TrimPrefix(site, "www.") {
			return clip(knownSource(host), 100)
		}
	}
	return "Direct"
}

// sourceAliases are the hosts a known source's visitors arrive from
// besides its own (its link shims, its mobile and regional sites), by the
// name it is counted under: l.facebook.com is facebook.com.
var sourceAliases = map[string]string{
	"l.facebook.com": "facebook.com", "lm.facebook.com": "facebook.com", "m.facebook.com": "facebook.com", "mbasic.facebook.com": "facebook.com",
	"l.instagram.com": "instagram.com", "t.co": "x.com", "twitter.com": "x.com", "mobile.twitter.com": "x.com",
	"lnkd.in": "linkedin.com", "out.reddit.com": "reddit.com", "old.reddit.com": "reddit.com", "m.youtube.com": "youtube.com",
	"youtu.be": "youtube.com", "com.google.android.gm": "mail.google.com",
}

// knownSource is the name a referrer's host is counted under: an
// alias's source (sourceAliases), a search engine's country site as its
// main one (google.co.uk and google.de are google.com, bing's m. is
// bing.com), else the host.
func knownSource(host string) string {
	if s, ok := sourceAliases[host]; ok {
		return s
	}
	host = strings.TrimPrefix(host, "m.")
	for _, engine := range []string{"google", "bing", "yandex", "yahoo"} {
		// google.de, google.co.uk, google.com.au, search.yahoo.co.jp
		name := strings.TrimPrefix(host, "search.")
		if rest, ok := strings.CutPrefix(name, engine+"."); ok && !strings.Contains(rest, "/") && len(rest) <= 6 {
			return engine + ".com"
		}
	}
	return host
}

// userAgents parses user agents (github.com/medama-io/go-useragent: a
// trie of the browsers' and systems' tokens, no regular expressions,
// about 0.35 µs a user agent); made on first use, which takes ~40 ms.
var userAgents = sync.OnceValue(useragent.NewParser)

// browserAndOS names a user agent's browser and operating system,
// "Unknown" for what it does not say.
func browserAndOS(ua string) (string, string) {
	a := userAgents().Parse(ua)
	return cmp.Or(a.GetBrowser(), "Unknown"), cmp.Or(a.GetOS(), "Unknown")
}

// maxCampaignLength caps a utm_ value kept, in bytes.
const maxCampaignLength = 100

// campaign is the utm_medium, utm_campaign, utm_term and utm_content of a
// page's address, control characters removed, trimmed and bounded.
func campaign(u *url.URL) [4]string {
	var out [4]string
	if u.RawQuery == "" {
		return out
	}
	q := u.Query()
	for i, name := range []string{"utm_medium", "utm_campaign", "utm_term", "utm_content"} {
		out[i] = clip(strings.TrimSpace(dropControls(q.Get(name))), maxCampaignLength)
	}
	return out
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// checkProps checks an event's properties and returns them in order of
// name (ErrBadView, naming the first that is wrong).
func checkProps(in map[string]string) ([]Prop, error) {
	if len(in) > MaxProps {
		return nil, fmt.Errorf("%w: an event has at most %d props", ErrBadView, MaxProps)
	}
	out := make([]Prop, 0, len(in))
	for name, value := range in {
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		switch {
		case name == "" || len(name) > MaxPropNameLength || strings.ContainsFunc(name, isControl):
			return nil, fmt.Errorf("%w: a prop's name is empty, longer than %d bytes or holds control characters", ErrBadView, MaxPropNameLength)
		case len(value) > MaxPropValueLength || strings.ContainsFunc(value, isControl):
			return nil, fmt.Errorf("%w: the prop %q is longer than %d bytes or holds control characters", ErrBadView, name, MaxPropValueLength)
		}
		out = append(out, Prop{Name: name, Value: value})
	}
	slices.SortFunc(out, func(a, b Prop) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// dropControls removes control characters (a tag's value is free text).
func dropControls(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 { // not inside a character
		n--
	}
	return s[:n]
}

// visitorHash is a visitor of a day (Hit.Visitor): the hex of the first
// 16 bytes of SHA-256 over the day's salt, the site, the IP and the user
// agent.
func visitorHash(salt []byte, site, ip, userAgent string) string {
	sum := sha256.New()
	sum.Write(salt)
	for _, part := range []string{site, ip, userAgent} {
		sum.Write([]byte{0})
		sum.Write([]byte(part))
	}
	return hex.EncodeToString(sum.Sum(nil)[:16])
}

// salt is day's salt: kept in memory, agreed through the store.
func (a *Analytics) salt(ctx context.Context, day string) ([]byte, error) {
	a.mu.Lock()
	s, ok := a.salts[day]
	a.mu.Unlock()
	if ok {
		return s, nil
	}
	fresh := make([]byte, 32)
	rand.Read(fresh)
	s, err := a.store.Salt(ctx, day, fresh)
	if err != nil {
		return nil, fmt.Errorf("reporting: salt: %w", err)
	}
	a.mu.Lock()
	for d := range a.salts { // one day's at a time is enough
		if d != day {
			delete(a.salts, d)
		}
	}
	a.salts[day] = s
	a.mu.Unlock()
	return s, nil
}
