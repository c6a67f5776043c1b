package outbound_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/outbound"
)

const secret = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"

// peer is an httptest server that answers each request with the next of
// its replies (the last one repeats) and records what it was sent, and
// when.
type peer struct {
	mu      sync.Mutex
	replies []reply
	got     []*http.Request
	bodies  []string
	at      []time.Time
}

type reply struct {
	status int
	header map[string]string
	body   string
	delay  time.Duration
}

func (p *peer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	n := len(p.got)
	p.got = append(p.got, r)
	p.bodies = append(p.bodies, string(body))
	p.at = append(p.at, time.Now())
	rep := p.replies[min(n, len(p.replies)-1)]
	p.mu.Unlock()
	if rep.delay > 0 {
		select {
		case <-time.After(rep.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(cmpOr(rep.status, 200))
	_, _ = io.WriteString(w, rep.body)
}

func (p *peer) calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.got)
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// serve starts a peer on loopback.
func serve(t *testing.T, replies ...reply) (*peer, *httptest.Server) {
	t.Helper()
	p := &peer{replies: replies}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv
}

func newClient(t *testing.T, base string, o outbound.Options) *outbound.Client {
	t.Helper()
	o.BaseURL = base
	if o.Provider == "" {
		o.Provider = "acme"
	}
	if o.Header == nil {
		o.Header = http.Header{"Authorization": {"Bearer " + secret}}
	}
	if o.BaseDelay == 0 {
		o.BaseDelay = time.Millisecond
	}
	c, err := outbound.New(o)
	require.NoError(t, err)
	return c
}

func TestErrorClasses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status  int
		body    string
		class   outbound.Class
		is      error
		message string
	}{
		{401, `{"error":{"type":"invalid_request_error","message":"Invalid API Key provided: ` + secret + `"}}`, outbound.ClassAuth, outbound.ErrAuth, "Invalid API Key provided: [REDACTED]"},
		{403, `{"message":"Missing scope"}`, outbound.ClassAuth, outbound.ErrAuth, "Missing scope"},
		{404, `{"error":{"message":"No such payment_intent: 'pi_1'"}}`, outbound.ClassNotFound, outbound.ErrNotFound, "No such payment_intent: 'pi_1'"},
		{410, `{"detail":"Gone for good"}`, outbound.ClassNotFound, outbound.ErrNotFound, "Gone for good"},
		{400, `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`, outbound.ClassValidation, outbound.ErrValidation, "Token has been expired or revoked."},
		{422, `{"errors":["Email address is invalid"]}`, outbound.ClassValidation, outbound.ErrValidation, "Email address is invalid"},
		{409, `{"title":"Member Exists","status":409}`, outbound.ClassValidation, outbound.ErrValidation, "Member Exists"},
		{500, `upstream exploded`, outbound.ClassServer, outbound.ErrServer, "upstream exploded"},
		{502, `<html><body>Bad gateway</body></html>`, outbound.ClassServer, outbound.ErrServer, ""},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			t.Parallel()
			p, srv := serve(t, reply{status: c.status, body: c.body})
			client := newClient(t, srv.URL+"/v1", outbound.Options{MaxAttempts: 1})
			var out map[string]any
			err := client.GetJSON(context.Background(), "/things/a b", nil, &out)
			var oe *outbound.Error
			require.ErrorAs(t, err, &oe)
			require.Equal(t, c.class, oe.Class)
			require.ErrorIs(t, err, c.is)
			require.Equal(t, c.status, oe.Status)
			require.Equal(t, c.message, oe.Message)
			require.Equal(t, "acme", oe.Provider)
			require.Equal(t, "/v1/things/a b", oe.Path)
			require.NotContains(t, err.Error(), secret)
			require.Contains(t, err.Error(), fmt.Sprintf("outbound: acme: GET /v1/things/a b: %d %s", c.status, c.class))

			require.Equal(t, 1, p.calls())
			got := p.got[0]
			require.Equal(t, "/v1/things/a%20b", got.URL.EscapedPath())
			require.Equal(t, "Bearer "+secret, got.Header.Get("Authorization"))
			require.Equal(t, outbound.UserAgent, got.Header.Get("User-Agent"))
			require.True(t, strings.HasPrefix(outbound.UserAgent, "groundwork/"), outbound.UserAgent)
			require.Equal(t, "application/json", got.Header.Get("Accept"))
		})
	}

	t.Run("RateLimited", func(t *testing.T) {
		t.Parallel()
		_, srv := serve(t, reply{status: 429, header: map[string]string{"Retry-After": "7"}, body: `{"message":"slow down"}`})
		err := newClient(t, srv.URL, outbound.Options{MaxAttempts: 1}).GetJSON(context.Background(), "/x", nil, nil)
		var oe *outbound.Error
		require.ErrorAs(t, err, &oe)
		require.ErrorIs(t, err, outbound.ErrRateLimited)
		require.Equal(t, 7*time.Second, oe.RetryAfter)
	})

	t.Run("UnexpectedJSONIsServer", func(t *testing.T) {
		t.Parallel()
		_, srv := serve(t, reply{body: `[1, 2`})
		var out map[string]any
		err := newClient(t, srv.URL, outbound.Options{}).GetJSON(context.Background(), "/x", nil, &out)
		require.ErrorIs(t, err, outbound.ErrServer)
		require.ErrorContains(t, err, "not the JSON expected")
	})

	t.Run("TooLargeIsTransportAndNotRetried", func(t *testing.T) {
		t.Parallel()
		p, srv := serve(t, reply{body: strings.Repeat("x", 2048)})
		_, err := newClient(t, srv.URL, outbound.Options{MaxResponseBytes: 1024}).Do(context.Background(), &outbound.Request{Path: "/x"})
		require.ErrorIs(t, err, outbound.ErrTransport)
		require.ErrorContains(t, err, "larger than 1024 bytes")
		require.Equal(t, 1, p.calls())
		res, err := newClient(t, srv.URL, outbound.Options{MaxResponseBytes: 2048}).Do(context.Background(), &outbound.Request{Path: "/x"})
		require.NoError(t, err)
		require.Len(t, res.Body, 2048)
	})

	t.Run("TimeoutIsTransport", func(t *testing.T) {
		t.Parallel()
		_, srv := serve(t, reply{delay: 5 * time.Second})
		start := time.Now()
		_, err := newClient(t, srv.URL, outbound.Options{Timeout: 50 * time.Millisecond, MaxAttempts: 2}).Do(context.Background(), &outbound.Request{Path: "/slow"})
		require.ErrorIs(t, err, outbound.ErrTransport)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Less(t, time.Since(start), 3*time.Second)
	})

	t.Run("RefusedIsTransportAndRedacted", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.NotFoundHandler())
		addr := srv.URL
		srv.Close() // nobody listens there now
		client := newClient(t, addr, outbound.Options{MaxAttempts: 2, Secrets: []string{"key-in-query"}})
		_, err := client.Do(context.Background(), &outbound.Request{Path: "/x", Query: map[string][]string{"key": {"key-in-query"}}})
		var oe *outbound.Error
		require.ErrorAs(t, err, &oe)
		require.ErrorIs(t, err, outbound.ErrTransport)
		require.ErrorIs(t, err, syscall.ECONNREFUSED)
		require.Equal(t, 2, oe.Attempts, "a refused connection is tried again: nothing was sent")
		require.NotContains(t, err.Error(), "key-in-query")
	})
}

func TestRetries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name       string
		method     string
		idempotent bool
		replies    []reply
		wantCalls  int
		wantErr    error
	}{
		{"GetAfterTwo503s", "GET", false, []reply{{status: 503}, {status: 503}, {body: `{}`}}, 3, nil},
		{"GetGivesUpAfterMaxAttempts", "GET", false, []reply{{status: 500}}, 3, outbound.ErrServer},
		{"PostNotRetriedAfter500", "POST", false, []reply{{status: 500}, {body: `{}`}}, 1, outbound.ErrServer},
		{"IdempotentPostRetriedAfter500", "POST", true, []reply{{status: 500}, {body: `{}`}}, 2, nil},
		{"PostRetriedAfter429", "POST", false, []reply{{status: 429}, {body: `{}`}}, 2, nil},
		{"ValidationNotRetried", "PUT", false, []reply{{status: 422}, {body: `{}`}}, 1, outbound.ErrValidation},
		{"AuthNotRetried", "GET", false, []reply{{status: 401}, {body: `{}`}}, 1, outbound.ErrAuth},
		{"NotImplementedNotRetried", "GET", false, []reply{{status: 501}, {body: `{}`}}, 1, outbound.ErrServer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, srv := serve(t, c.replies...)
			var logs bytes.Buffer
			client := newClient(t, srv.URL, outbound.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			res, err := client.Do(ctx, &outbound.Request{Method: c.method, Path: "/r", Body: []byte(`{"n":1}`), Idempotent: c.idempotent})
			require.Equal(t, c.wantCalls, p.calls())
			if c.wantErr == nil {
				require.NoError(t, err)
				require.Equal(t, 200, res.Status)
			} else {
				require.ErrorIs(t, err, c.wantErr)
				var oe *outbound.Error
				require.ErrorAs(t, err, &oe)
				require.Equal(t, c.wantCalls, oe.Attempts)
			}
			for _, b := range p.bodies {
				require.Equal(t, `{"n":1}`, b, "the body is sent whole on every attempt")
			}
			require.Equal(t, c.wantCalls-1, strings.Count(logs.String(), "outbound: retrying"))
			require.NotContains(t, logs.String(), secret)
		})
	}
}

// pipeNet is an in-memory network for a synctest bubble: an httptest
// server listens on it and the client dials it, so every goroutine blocks
// on channels the bubble owns and its fake clock can run.
type pipeNet struct {
	conns  chan net.Conn
	done   chan struct{}
	once   sync.Once
	refuse atomic.Int32 // refuse this many dials first
}

func newPipeNet() *pipeNet { return &pipeNet{conns: make(chan net.Conn), done: make(chan struct{})} }

func (n *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.done:
		return nil, net.ErrClosed
	}
}

func (n *pipeNet) Close() error   { n.once.Do(func() { close(n.done) }); return nil }
func (n *pipeNet) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 443} }

func (n *pipeNet) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	if n.refuse.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	client, server := net.Pipe()
	select {
	case n.conns <- server:
		return client, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// bubblePeer starts a peer on a pipeNet inside the current bubble and a
// client that dials it.
func bubblePeer(t *testing.T, o outbound.Options, replies ...reply) (*peer, *pipeNet, *outbound.Client) {
	t.Helper()
	p := &peer{replies: replies}
	pn := newPipeNet()
	srv := httptest.NewUnstartedServer(p)
	srv.Listener.Close()
	srv.Listener = pn
	srv.Start()
	tr := &http.Transport{DialContext: pn.DialContext}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	o.HTTPClient = &http.Client{Transport: tr}
	if o.Jitter == nil {
		o.Jitter = func() float64 { return 0.5 }
	}
	o.BaseURL, o.Provider = srv.URL, "acme"
	c, err := outbound.New(o)
	require.NoError(t, err)
	return p, pn, c
}

// gaps are the times between one attempt and the next.
func (p *peer) gaps() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []time.Duration
	for i := 1; i < len(p.at); i++ {
		out = append(out, p.at[i].Sub(p.at[i-1]))
	}
	return out
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("ExponentialWithJitterAndCap", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			p, _, c := bubblePeer(t, outbound.Options{MaxAttempts: 6, BaseDelay: time.Second, MaxDelay: 4 * time.Second},
				reply{status: 503})
			start := time.Now()
			_, err := c.Do(ctx, &outbound.Request{Path: "/x"})
			require.ErrorIs(t, err, outbound.ErrServer)
			// d = 1s, 2s, 4s, 4s (capped), 4s; each wait is d/2 + jitter·d/2, jitter 0.5.
			require.Equal(t, []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second, 3 * time.Second, 3 * time.Second}, p.gaps())
			require.Equal(t, 11250*time.Millisecond, time.Since(start))
		})
	})

	t.Run("JitterSpreadsTheWait", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			jitters := []float64{0, 0.999}
			i := 0
			p, _, c := bubblePeer(t, outbound.Options{MaxAttempts: 3, BaseDelay: 2 * time.Second,
				Jitter: func() float64 { j := jitters[i]; i++; return j }}, reply{status: 500})
			_, _ = c.Do(ctx, &outbound.Request{Path: "/x"})
			gaps := p.gaps()
			require.Equal(t, time.Second, gaps[0], "the least wait is half the step")
			require.Equal(t, 2*time.Second+1998*time.Millisecond, gaps[1], "the most is just under the whole step")
		})
	})

	t.Run("RetryAfterSeconds", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			p, _, c := bubblePeer(t, outbound.Options{}, reply{status: 429, header: map[string]string{"Retry-After": "2"}}, reply{status: 200})
			_, err := c.Do(ctx, &outbound.Request{Method: "POST", Path: "/x"})
			require.NoError(t, err)
			require.Equal(t, []time.Duration{2 * time.Second}, p.gaps())
		})
	})

	t.Run("RetryAfterDate", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			at := time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)
			p, _, c := bubblePeer(t, outbound.Options{}, reply{status: 503, header: map[string]string{"Retry-After": at}}, reply{status: 200})
			_, err := c.Do(ctx, &outbound.Request{Path: "/x"})
			require.NoError(t, err)
			require.Equal(t, []time.Duration{5 * time.Second}, p.gaps())
		})
	})

	t.Run("RetryAfterPastTheCapEndsTheCall", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			p, _, c := bubblePeer(t, outbound.Options{MaxRetryAfter: 30 * time.Second},
				reply{status: 429, header: map[string]string{"Retry-After": "120"}}, reply{status: 200})
			start := time.Now()
			_, err := c.Do(ctx, &outbound.Request{Path: "/x"})
			var oe *outbound.Error
			require.ErrorAs(t, err, &oe)
			require.ErrorIs(t, err, outbound.ErrRateLimited)
			require.Equal(t, 120*time.Second, oe.RetryAfter, "for the caller to come back then")
			require.Equal(t, 1, p.calls())
			require.Zero(t, time.Since(start))
		})
	})

	t.Run("RefusedConnectionsBackOffToo", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			p, pn, c := bubblePeer(t, outbound.Options{BaseDelay: time.Second}, reply{status: 200})
			pn.refuse.Store(2)
			start := time.Now()
			_, err := c.Do(ctx, &outbound.Request{Method: "POST", Path: "/x"})
			require.NoError(t, err)
			require.Equal(t, 1, p.calls())
			require.Equal(t, 750*time.Millisecond+1500*time.Millisecond, time.Since(start))
		})
	})

	t.Run("NoWaitPastTheDeadline", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			p, _, c := bubblePeer(t, outbound.Options{BaseDelay: 10 * time.Second}, reply{status: 503})
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			start := time.Now()
			_, err := c.Do(ctx, &outbound.Request{Path: "/x"})
			require.ErrorIs(t, err, outbound.ErrServer)
			require.Equal(t, 1, p.calls())
			require.Zero(t, time.Since(start), "a wait that would outlast the context is not begun")
		})
	})

	t.Run("CancelledWhileWaiting", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			p, _, c := bubblePeer(t, outbound.Options{BaseDelay: 10 * time.Second}, reply{status: 503})
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(2*time.Second, cancel)
			start := time.Now()
			_, err := c.Do(ctx, &outbound.Request{Path: "/x"})
			require.ErrorIs(t, err, outbound.ErrServer)
			require.Equal(t, 1, p.calls())
			require.Equal(t, 2*time.Second, time.Since(start))
		})
	})

	t.Run("TimeoutPerAttempt", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			p, _, c := bubblePeer(t, outbound.Options{Timeout: 3 * time.Second, BaseDelay: time.Second},
				reply{delay: time.Hour}, reply{status: 200})
			start := time.Now()
			_, err := c.Do(ctx, &outbound.Request{Path: "/x"})
			require.NoError(t, err)
			require.Equal(t, 2, p.calls())
			require.Equal(t, 3*time.Second+750*time.Millisecond, time.Since(start))
		})
	})
}

func TestNewRefusesBadOptions(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"", "ftp://x", "http://", "::"} {
		_, err := outbound.New(outbound.Options{BaseURL: base})
		require.Error(t, err, base)
	}
	_, err := outbound.New(outbound.Options{BaseURL: "https://x.test", Timeout: -1})
	require.Error(t, err)
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"error":{"message":"a"}}`:                  "a",
		`{"error":"invalid_grant"}`:                  "invalid_grant",
		`{"errors":[{"message":"b"}]}`:               "b",
		`{"status":400}`:                             "",
		strings.Repeat("é", 400):                     strings.Repeat("é", 150) + "…",
		`<!doctype html><title>502</title>`:          "",
		`{"type":"x","title":"T","detail":"D"}`:      "D",
		`{"message":"m","error":{"message":"deep"}}`: "deep",
	} {
		require.Equal(t, want, outbound.ErrorMessage([]byte(body)), body)
	}
	require.True(t, errors.Is(&outbound.Error{Class: outbound.ClassAuth}, outbound.ErrAuth))
	require.False(t, errors.Is(&outbound.Error{Class: outbound.ClassAuth}, outbound.ErrServer))
}
