package webhooks_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

// portal is the portal over real HTTP, with a browser's cookie jar and
// redirects left to the test.
type portal struct {
	*httptest.Server
	b      *bundle
	client *http.Client
}

func newPortal(t *testing.T, b *bundle, opts *webhooks.PortalOptions) *portal {
	t.Helper()
	h, err := webhooks.NewPortalHandler(b.svc, opts)
	require.NoError(t, err)
	p := &portal{Server: httptest.NewServer(h), b: b}
	t.Cleanup(p.Close)
	jar, _ := cookiejar.New(nil)
	p.client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return p
}

func (p *portal) do(t *testing.T, method, target string, form url.Values) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, p.URL+target, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", p.URL)
	res, err := p.client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(body), res.Header.Get("Location")
}

func (p *portal) link(t *testing.T, owner string) string {
	t.Helper()
	token, err := p.b.svc.PortalLink(owner, time.Hour)
	require.NoError(t, err)
	return webhooks.PortalPrefixDefault + "/" + token
}

var secretShown = regexp.MustCompile(`<code class="secret" id="portal-secret">(whsec_[A-Za-z0-9+/=_]+)</code>`)

// The portal by an owner's link, as the owner uses it: an endpoint added
// (a mistake first, said at the field), a test event delivered and
// listed with the receiver's answer, a delivery replayed, the secret
// rotated (both verify in the grace) and revealed, the endpoint disabled,
// enabled and deleted after asking. Another owner's link never shows it,
// and a link tampered with or expired opens nothing. On both databases.
func TestPortal(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		p := newPortal(t, b, nil)
		rv := newReceiver(t)
		ctx := context.Background()
		a := p.link(t, "acct_a")

		code, body, _ := p.do(t, "GET", a, nil)
		require.Equal(t, 200, code, body)
		require.Contains(t, body, "No endpoint yet")
		code, body, _ = p.do(t, "POST", a, url.Values{"name": {"Warehouse"}, "url": {"not an address"}, "events": {"order.placed"}})
		require.Equal(t, 422, code)
		require.Contains(t, body, `href="#f-url"`, "the summary links to the field")
		require.Contains(t, body, `value="Warehouse"`, "what was typed is kept")
		code, body, _ = p.do(t, "POST", a, url.Values{"name": {"Warehouse"}, "url": {rv.URL}, "events": {"order.placed"},
			"description": {"Orders to pack"}, "headers": {"X-Tenant: acct a"}, "channels": {"store-1, store-2"}, "rate_limit": {"5"}})
		require.Equal(t, 201, code, body)
		m := secretShown.FindStringSubmatch(body)
		require.NotNil(t, m, "the secret, shown this once")
		secret := m[1]
		list, _, err := b.svc.Subscriptions(webhooks.ScopeToOwner(ctx, "acct_a"), webhooks.SubscriptionQuery{Limit: 10}, false)
		require.NoError(t, err)
		require.Len(t, list, 1)
		sub := list[0]
		require.Equal(t, "acct_a", sub.Owner, "the link's owner's")
		require.Equal(t, []string{"store-1", "store-2"}, sub.Channels)
		require.Equal(t, map[string]string{"X-Tenant": "acct a"}, sub.Headers)
		page := a + "/" + itoa(sub.ID)

		// A test event: recorded for this endpoint alone, delivered, listed.
		code, _, loc := p.do(t, "POST", page+"/test", nil)
		require.Equal(t, 303, code)
		require.Equal(t, page, loc)
		ds := b.deliveriesOf(t, sub.ID)
		require.Len(t, ds, 1)
		require.Equal(t, webhooks.EventTest, ds[0].Event)
		b.attempt(t, ds[0].ID)
		got := rv.requests()[0]
		require.NoError(t, webhooks.Verify(secret, got.header.Get(webhooks.HeaderSignature), got.body, b.clock.Now(), 0), "signed with the secret shown")
		require.Equal(t, "acct a", got.header.Get("X-Tenant"))
		code, body, _ = p.do(t, "GET", page, nil)
		require.Equal(t, 200, code)
		require.Contains(t, body, "A test event is on its way")
		require.Contains(t, body, `<td data-label="Status"><span class="status status-ok">Delivered</span></td>`)
		require.Contains(t, body, "answer 1", "the receiver's answer")

		// Replay one, then a range.
		code, _, _ = p.do(t, "POST", page+"/replay", url.Values{"delivery": {itoa(ds[0].ID)}})
		require.Equal(t, 303, code)
		require.Len(t, b.deliveriesOf(t, sub.ID), 2)
		now := b.clock.Now().UTC()
		code, body, _ = p.do(t, "POST", page+"/replay-range", url.Values{"from": {now.Add(-time.Hour).Format("2006-01-02T15:04")},
			"to": {now.Format("2006-01-02T15:04")}})
		require.Equal(t, 303, code, body)
		require.Len(t, b.deliveriesOf(t, sub.ID), 4)
		code, body, _ = p.do(t, "POST", page+"/replay-range", url.Values{"from": {"yesterday"}, "to": {""}})
		require.Equal(t, 422, code)
		require.Contains(t, body, "Give the range as two times")

		// Rotate: the new secret shown; a delivery in the grace verifies
		// with either. Reveal shows the new one.
		code, body, _ = p.do(t, "POST", page+"/rotate", nil)
		require.Equal(t, 200, code)
		rotated := secretShown.FindStringSubmatch(body)[1]
		require.NotEqual(t, secret, rotated)
		require.Contains(t, body, "The old secret signs deliveries too until")
		require.NoError(t, dispatchErr(b.svc.DispatchFor(webhooks.WithChannels(ctx, "store-1"), "acct_a", placed(1))))
		ds = b.deliveriesOf(t, sub.ID)
		b.attempt(t, ds[len(ds)-1].ID)
		last := rv.requests()[len(rv.requests())-1]
		for _, s := range []string{secret, rotated} {
			require.NoError(t, webhooks.Verify(s, last.header.Get(webhooks.HeaderSignature), last.body, b.clock.Now(), 0))
		}
		code, body, _ = p.do(t, "POST", page+"/reveal", nil)
		require.Equal(t, 200, code)
		require.Equal(t, rotated, secretShown.FindStringSubmatch(body)[1])

		// Settings saved; a mistake said.
		code, body, _ = p.do(t, "POST", page, url.Values{"name": {"Warehouse"}, "url": {rv.URL}, "headers": {"Content-Type: text/plain"}})
		require.Equal(t, 422, code)
		require.Contains(t, body, "The header Content-Type is the delivery&#39;s own")
		code, _, _ = p.do(t, "POST", page, url.Values{"name": {"Warehouse 2"}, "url": {rv.URL}, "rate_limit": {""}})
		require.Equal(t, 303, code)
		again, err := b.svc.Subscription(ctx, sub.ID)
		require.NoError(t, err)
		require.Equal(t, "Warehouse 2", again.Name)
		require.Zero(t, again.RateLimit)
		require.Equal(t, []string{"*"}, again.Events, "none chosen: every event")

		// Another owner's link: not theirs.
		b2 := p.link(t, "acct_b")
		for _, c := range []struct{ method, path string }{{"GET", b2 + "/" + itoa(sub.ID)}, {"POST", b2 + "/" + itoa(sub.ID) + "/reveal"},
			{"POST", b2 + "/" + itoa(sub.ID) + "/rotate"}, {"POST", b2 + "/" + itoa(sub.ID) + "/test"},
			{"POST", b2 + "/" + itoa(sub.ID) + "/delete"}, {"POST", b2 + "/" + itoa(sub.ID)}} {
			code, body, _ := p.do(t, c.method, c.path, url.Values{"name": {"taken"}, "url": {rv.URL}})
			require.Equal(t, 404, code, "%s %s", c.method, c.path)
			require.NotContains(t, body, "whsec_")
		}
		code, body, _ = p.do(t, "GET", b2, nil)
		require.Equal(t, 200, code)
		require.NotContains(t, body, "Warehouse")
		for _, bad := range []string{a + "x", webhooks.PortalPrefixDefault + "/bogus", webhooks.PortalPrefixDefault + "/me"} {
			code, body, _ := p.do(t, "GET", bad, nil)
			require.Equal(t, 404, code, bad)
			require.Contains(t, body, "Link not valid")
		}
		b.clock.Advance(2 * time.Hour)
		code, _, _ = p.do(t, "GET", a, nil)
		require.Equal(t, 404, code, "expired")
		a = p.link(t, "acct_a")
		page = a + "/" + itoa(sub.ID)

		// Disable, enable, delete after asking.
		code, _, _ = p.do(t, "POST", page+"/active", url.Values{"active": {"0"}})
		require.Equal(t, 303, code)
		code, body, _ = p.do(t, "POST", page+"/test", nil)
		require.Equal(t, 422, code)
		require.Contains(t, body, "Enable the endpoint before sending it a test event.")
		code, _, _ = p.do(t, "POST", page+"/active", url.Values{"active": {"1"}})
		require.Equal(t, 303, code)
		code, body, _ = p.do(t, "GET", page+"?delete=1", nil)
		require.Equal(t, 200, code)
		require.Contains(t, body, "Delete Warehouse 2?")
		code, _, loc = p.do(t, "POST", page+"/delete", nil)
		require.Equal(t, 303, code)
		require.Equal(t, a, loc)
		_, err = b.svc.Subscription(ctx, sub.ID)
		require.ErrorIs(t, err, webhooks.ErrNotFound)

		// A post from another origin is refused.
		req, _ := http.NewRequest("POST", p.URL+a, strings.NewReader("name=x&url=https://x.example"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://evil.example")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		res, err := p.client.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 403, res.StatusCode)
	})
}

// The host's own session: {prefix}/me is the owner Owner names.
func TestPortalBySession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := newPortal(t, b, &webhooks.PortalOptions{Owner: func(r *http.Request) (string, bool) {
		o := r.Header.Get("X-Test-Owner")
		return o, o != ""
	}})
	_, err := b.svc.CreateSubscription(webhooks.ScopeToOwner(context.Background(), "acct_s"), webhooks.SubscriptionInput{Name: str("Mine"),
		URL: str("http://127.0.0.1:9/hook"), Events: []string{"*"}})
	require.NoError(t, err)
	req, _ := http.NewRequest("GET", p.URL+webhooks.PortalPrefixDefault+"/me", nil)
	req.Header.Set("X-Test-Owner", "acct_s")
	res, err := p.client.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, string(body), "Mine")
	code, _, _ := p.do(t, "GET", webhooks.PortalPrefixDefault+"/me", nil)
	require.Equal(t, 404, code, "no session")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// The delivery log shows each attempt: a failed one with the receiver's
// status and answer, then the one that delivered it.
func TestPortalAttemptLog(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		p := newPortal(t, b, nil)
		rv := newReceiver(t)
		rv.answer(func(n int) int {
			if n == 1 {
				return http.StatusServiceUnavailable
			}
			return http.StatusOK
		})
		ctx := webhooks.ScopeToOwner(context.Background(), "acct_log")
		sub, err := b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("Flaky"), URL: str(rv.URL), Events: []string{"*"}})
		require.NoError(t, err)
		dl, err := b.svc.SendTest(ctx, sub.ID)
		require.NoError(t, err)
		b.attempt(t, dl.ID)
		b.clock.Advance(2 * time.Minute)
		b.attempt(t, dl.ID)
		log, err := b.svc.Attempts(ctx, sub.ID, dl.ID)
		require.NoError(t, err)
		require.Len(t, log, 2)
		require.Equal(t, 503, *log[0].ResponseStatus)
		require.Equal(t, "answer 1", log[0].Response)
		require.False(t, log[0].Delivered)
		require.True(t, log[1].Delivered)
		require.Equal(t, 2, log[1].Number)
		_, err = b.svc.Attempts(webhooks.ScopeToOwner(context.Background(), "acct_other"), sub.ID, dl.ID)
		require.ErrorIs(t, err, webhooks.ErrNotFound, "another owner's log")
		// The API answers the same log, to the owner alone.
		a := b.api(t)
		path := subs + "/" + itoa(sub.ID) + "/deliveries/" + itoa(dl.ID) + "/attempts"
		r := a.do("GET", path, "admin", nil)
		require.Equal(t, 200, r.status, r.body)
		require.Contains(t, r.body, `{"number":1,"response_status":503,"response":"answer 1","at":"2026-11-22T10:00:00.000000Z","delivered":false}`)
		require.Equal(t, 404, a.do("GET", path, "ownerA", nil).status)
		code, body, _ := p.do(t, "GET", p.link(t, "acct_log")+"/"+itoa(sub.ID), nil)
		require.Equal(t, 200, code)
		require.Contains(t, body, "<summary>Each attempt")
		require.Contains(t, body, `10:00:00 UTC: 503 <small class="detail">answer 1</small></li>`)
		require.Contains(t, body, `10:02:00 UTC: delivered, 200 <small class="detail">answer 2</small></li>`)
	})
}

// On an instance given another secret key than the one that sealed a
// secret, "Show the secret" says in words that it cannot be shown (a
// 503 page, not the generic failure), and nothing of the server.
func TestPortalSecretUnderAnotherKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.dns.set("hooks.example", "93.184.216.34")
	sub := b.subscribe(t, "https://hooks.example/in")
	other, err := webhooks.NewService(b.store, &webhooks.Options{SecretKey: []byte("another key of thirty-two bytes!"), Now: b.clock.Now})
	require.NoError(t, err)
	p := newPortal(t, &bundle{db: b.db, store: b.store, svc: other, clock: b.clock, dns: b.dns}, nil)
	code, body, _ := p.do(t, "POST", p.link(t, "")+"/"+itoa(sub.ID)+"/reveal", nil)
	require.Equal(t, 503, code, body)
	require.Contains(t, body, "The secret cannot be shown just now")
	require.Contains(t, body, "This server cannot read the endpoint&#39;s signing secret.")
	require.NotContains(t, body, "GROUNDWORK_SECRET_KEY")
}

// An address the server does not send to is refused on the portal in
// its customer's words: no option or setting of the operator's named.
func TestPortalRefusedAddressInCustomersWords(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) {
		o.service = func(so *webhooks.Options) { so.AllowPrivateHosts, so.AllowInsecureURLs = false, false }
	})
	b.dns.set("hooks.example", "93.184.216.34")
	p := newPortal(t, b, nil)
	a := p.link(t, "acct_a")
	for _, c := range []struct{ url, said string }{
		{"http://hooks.example/in", "The address must start with https://."},
		{"https://127.0.0.1/in", "The address must be on the public internet: this site does not send to private or local addresses."},
	} {
		code, body, _ := p.do(t, "POST", a, url.Values{"name": {"Warehouse"}, "url": {c.url}, "events": {"order.placed"}})
		require.Equal(t, 422, code, body)
		require.Contains(t, body, c.said, c.url)
		require.NotContains(t, body, "Allow", c.url)
		require.NotContains(t, body, "GROUNDWORK_", c.url)
	}
}

// The portal offers the events this site sends (those described, with
// what each means and an example of its data, by group), not the whole
// catalogue, and keeps an event an endpoint already takes. An endpoint's
// state has its colour and its reason: failing, with how far from being
// switched off; switched off by its failures, with a warning on the list.
func TestPortalEventsAndStates(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) { o.service = func(so *webhooks.Options) { so.DisableAfterFailures = 2 } })
	type sent struct {
		Form string `json:"form"`
	}
	require.NoError(t, b.svc.DescribeEvent("form.submitted", "A form submission was accepted.", sent{Form: "contact"}))
	require.NoError(t, b.svc.DescribeEvent("booking.created", "A booking was made.", sent{Form: "intake"}))
	p := newPortal(t, b, nil)
	rv := newReceiver(t)
	rv.answer(func(int) int { return http.StatusInternalServerError })
	ctx := webhooks.ScopeToOwner(context.Background(), "acct_s")
	a := p.link(t, "acct_s")

	code, body, _ := p.do(t, "POST", a, url.Values{"name": {""}, "url": {""}})
	require.Equal(t, 422, code)
	require.Contains(t, body, `<span class="visually-hidden">Error: </span>Enter a name</p>`, "the pages' voice, not the API's")
	require.Contains(t, body, `<span class="visually-hidden">Error: </span>Enter an address</p>`)
	_, body, _ = p.do(t, "GET", a, nil)
	require.Contains(t, body, "<h3>Booking events</h3>")
	require.Contains(t, body, "<h3>Form events</h3>")
	require.Less(t, strings.Index(body, "<h3>Booking events</h3>"), strings.Index(body, "<h3>Form events</h3>"))
	require.Contains(t, body, `<code>form.submitted</code><span class="event-what">A form submission was accepted.</span>`)
	require.Contains(t, body, "<pre>{\n  &#34;form&#34;: &#34;contact&#34;\n}</pre>", "an example of its data")
	require.Contains(t, body, `id="f-events" name="events" value="booking.created"`, "the first is where the summary links")
	require.NotContains(t, body, "order.placed", "the commerce names the site does not send")

	sub, err := b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("Shop"), URL: str(rv.URL), Events: []string{"order.placed"}})
	require.NoError(t, err)
	_, body, _ = p.do(t, "GET", a+"/"+itoa(sub.ID), nil)
	require.Contains(t, body, `value="order.placed" checked`, "an event the endpoint takes stays offered")
	require.Contains(t, body, `<span class="status status-ok">Active</span>`)

	fail := func() {
		t.Helper()
		dl, err := b.svc.SendTest(ctx, sub.ID)
		require.NoError(t, err)
		b.attempt(t, dl.ID)
	}
	fail()
	_, body, _ = p.do(t, "GET", a+"/"+itoa(sub.ID), nil)
	require.Contains(t, body, `<span class="status status-failing">Failing</span><br>1 failed delivery attempt in a row; the last at 22 Nov 2026, 10:00 UTC. After 2 it is switched off.`)
	_, body, _ = p.do(t, "GET", a, nil)
	require.Contains(t, body, `<span class="status status-failing">Failing</span><br>1 failed delivery attempt`, "the list warns too")
	fail()
	_, body, _ = p.do(t, "GET", a, nil)
	require.Contains(t, body, `<div class="notice notice-warning" role="status"><p><strong>Switched off for failing:</strong> Shop.`)
	require.Contains(t, body, `<span class="status status-off">Disabled</span><br>Switched off by us after 2 failed delivery attempts in a row`)

	// Disabled by its owner: no warning, and it says so.
	on := true
	_, err = b.svc.UpdateSubscription(ctx, sub.ID, webhooks.SubscriptionInput{IsActive: &on})
	require.NoError(t, err)
	off := false
	_, err = b.svc.UpdateSubscription(ctx, sub.ID, webhooks.SubscriptionInput{IsActive: &off})
	require.NoError(t, err)
	_, body, _ = p.do(t, "GET", a, nil)
	require.NotContains(t, body, "Switched off for failing")
	require.Contains(t, body, `<span class="status status-off">Disabled</span><br>Disabled: no events are sent to it until it is enabled.`)
}
