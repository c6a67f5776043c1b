package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// newService is a service on a fresh SQLite store.
func newService(t *testing.T, configure func(*webhooks.Options)) *webhooks.Service {
	t.Helper()
	o := &webhooks.Options{SecretKey: testKey}
	if configure != nil {
		configure(o)
	}
	svc, err := webhooks.NewService(webhookssql.New(storetest.Open(t, store.SQLite, webhookssql.Migrations)), o)
	require.NoError(t, err)
	return svc
}

type clock = testkit.Clock

func newClock() *clock { return testkit.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)) }

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
	host   string
	path   string
	at     time.Time
}

// receiver is an HTTP endpoint that records what it gets and answers with
// the status its reply function gives (200 by default).
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	got   []received
	reply atomic.Value // func(n int) int: the status of the n-th request (from 1)
	count atomic.Int64
	ch    chan received
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	rv := &receiver{ch: make(chan received, 20000)}
	rv.reply.Store(func(int) int { return http.StatusOK })
	rv.Server = httptest.NewServer(rv)
	t.Cleanup(rv.Close)
	return rv
}

func (rv *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	n := int(rv.count.Add(1))
	g := received{header: r.Header.Clone(), body: body, host: r.Host, path: r.URL.Path, at: time.Now()}
	rv.mu.Lock()
	rv.got = append(rv.got, g)
	rv.mu.Unlock()
	rv.ch <- g
	status := rv.reply.Load().(func(int) int)(n)
	if status >= 300 && status < 400 {
		w.Header().Set("Location", "/elsewhere")
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, "answer "+strconv.Itoa(n))
}

func (rv *receiver) answer(f func(n int) int) { rv.reply.Store(f) }

func (rv *receiver) requests() []received {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	return append([]received(nil), rv.got...)
}

// wait returns the next request, or fails after d.
func (rv *receiver) wait(t *testing.T, d time.Duration) received {
	t.Helper()
	select {
	case g := <-rv.ch:
		return g
	case <-time.After(d):
		t.Fatal("no request arrived")
		return received{}
	}
}

// hostOf is the receiver's address as host and port.
func (rv *receiver) port() string {
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(rv.URL, "http://"))
	return port
}

// tlsReceiver is an HTTPS endpoint whose certificate names example.com,
// and the client TLS configuration that trusts it.
type tlsReceiver struct {
	port  string
	tls   *tls.Config
	count atomic.Int64
}

func newTLSReceiver(t *testing.T) *tlsReceiver {
	t.Helper()
	tr := &tlsReceiver{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr.count.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	tr.tls = &tls.Config{RootCAs: pool}
	_, tr.port, _ = net.SplitHostPort(strings.TrimPrefix(srv.URL, "https://"))
	return tr
}

// dnsTable is a Resolver whose answers the test changes.
type dnsTable struct {
	mu      sync.Mutex
	answers map[string][]netip.Addr
}

func (d *dnsTable) set(host string, addrs ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.answers == nil {
		d.answers = map[string][]netip.Addr{}
	}
	var list []netip.Addr
	for _, a := range addrs {
		list = append(list, netip.MustParseAddr(a))
	}
	d.answers[host] = list
}

func (d *dnsTable) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a, ok := d.answers[host]; ok {
		return append([]netip.Addr(nil), a...), nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

type bundle struct {
	svc   *webhooks.Service
	store webhooks.Store
	db    *store.DB
	queue *store.Queue
	clock *clock
	dns   *dnsTable
}

type setupOptions struct {
	dialect store.Dialect
	dsn     string // a database of the dialect to open (another instance's), else a fresh one
	start   bool   // run the queue's workers
	service func(*webhooks.Options)
}

// setup builds a service on a fresh database (SQLite unless told), with a
// queue (started when asked), a settable clock, a DNS table, and private
// and insecure URLs allowed so receivers on loopback can be used.
func setup(t testing.TB, configure ...func(*setupOptions)) *bundle {
	t.Helper()
	o := setupOptions{dialect: store.SQLite}
	for _, c := range configure {
		c(&o)
	}
	b := &bundle{clock: newClock(), dns: &dnsTable{}}
	if o.dsn != "" {
		b.db = storetest.OpenDSN(t, o.dsn, webhookssql.Migrations)
	} else {
		b.db = storetest.Open(t, o.dialect, webhookssql.Migrations)
	}
	b.store = webhookssql.New(b.db)
	var err error
	b.queue, err = store.NewQueue(b.db, &store.QueueOptions{TestOnly: true, FetchPollInterval: 20 * time.Millisecond, FetchCooldown: 5 * time.Millisecond})
	require.NoError(t, err)
	so := &webhooks.Options{SecretKey: testKey, Enqueuer: b.queue, Now: b.clock.Now, Resolver: b.dns,
		AllowPrivateHosts: true, AllowInsecureURLs: true, Timeout: 5 * time.Second}
	if o.service != nil {
		o.service(so)
	}
	b.svc, err = webhooks.NewService(b.store, so)
	require.NoError(t, err)
	if so.Enqueuer != nil {
		require.NoError(t, webhooks.RegisterWorkers(b.queue.Workers(), b.svc))
	}
	if o.start {
		require.NoError(t, b.queue.Start(context.Background()))
		t.Cleanup(func() { require.NoError(t, b.queue.Stop(context.Background())) })
	}
	return b
}

func on(d store.Dialect) func(*setupOptions) { return func(o *setupOptions) { o.dialect = d } }

// onDSN opens the database at dsn, of dialect d, as another instance would.
func onDSN(d store.Dialect, dsn string) func(*setupOptions) {
	return func(o *setupOptions) { o.dialect, o.dsn = d, dsn }
}

// dispatchErr is a Dispatch's error, for require.NoError(t,
// dispatchErr(svc.Dispatch(...))).
func dispatchErr(_ webhooks.Fanout, err error) error { return err }
func running(o *setupOptions)                        { o.start = true }

func str(s string) *string { return &s }
func yes() *bool           { b := true; return &b }
func no() *bool            { b := false; return &b }

// subscribe creates a subscription to url for events, with a known secret.
func (b *bundle) subscribe(t testing.TB, url string, events ...string) *webhooks.Subscription {
	t.Helper()
	if len(events) == 0 {
		events = []string{"*"}
	}
	sub, err := b.svc.CreateSubscription(context.Background(), webhooks.SubscriptionInput{Name: str("test"), URL: &url,
		Events: events, Secret: str("whsec_test_secret_0123")})
	require.NoError(t, err)
	return sub
}

// delivery reads a delivery back.
func (b *bundle) delivery(t *testing.T, id int64) *webhooks.Delivery {
	t.Helper()
	d, err := b.store.Delivery(context.Background(), id)
	require.NoError(t, err)
	return d
}

// attempt runs the job of a delivery as River would, with its claim.
func (b *bundle) attempt(t *testing.T, id int64) {
	t.Helper()
	d := b.delivery(t, id)
	require.NotNil(t, d.NextAttemptAt, "delivery %d has no claim (status %s)", id, d.Status)
	require.NoError(t, b.svc.Attempt(context.Background(), id, *d.NextAttemptAt))
}

// specVerify checks X-Platform-Signature as a receiver written from the
// spec alone would: split "t=<unix>, v1=<hex>", HMAC-SHA256 over
// "<t>.<raw body>" with the secret, constant-time compare, 300 s window.
func specVerify(secret, header string, body []byte, now time.Time) bool {
	var ts, v1 string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = v
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Unix()-unix > 300 || unix-now.Unix() > 300 {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(want), []byte(v1))
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
