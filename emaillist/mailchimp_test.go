package emaillist_test

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/emaillist"
)

// mailchimpServer speaks enough of the Marketing API v3: the member
// upsert and the member tags.
type mailchimpServer struct {
	*httptest.Server
	mu     sync.Mutex
	calls  []string
	status map[int]int // by call number: answer with this status instead
}

func newMailchimp(t *testing.T) *mailchimpServer {
	m := &mailchimpServer{status: map[int]int{}}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.calls = append(m.calls, r.Method+" "+r.URL.Path+" "+strings.TrimSpace(string(body)))
		forced := m.status[len(m.calls)]
		m.mu.Unlock()
		w.Header().Set("Content-Type", "application/problem+json")
		_, key, _ := strings.Cut(decodeBasic(r.Header.Get("Authorization")), ":")
		switch {
		case key != "key-us21":
			w.WriteHeader(401)
			io.WriteString(w, `{"title":"API Key Invalid","status":401,"detail":"Your API key may be invalid"}`)
		case forced != 0:
			w.WriteHeader(forced)
			io.WriteString(w, `{"title":"Too Many Requests","status":429}`)
		case r.Method == "PUT":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"`+r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]+`","email_address":"grace@example.com",
				"status":"subscribed","merge_fields":{"FNAME":"Grace","COMPANY":"Navy"},"timestamp_signup":"2026-06-01T08:00:00+00:00"}`)
		case strings.HasSuffix(r.URL.Path, "/tags"):
			w.WriteHeader(204)
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(m.Close)
	return m
}

func decodeBasic(h string) string {
	b, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic "))
	return string(b)
}

func (m *mailchimpServer) Calls() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.calls...)
}

func mailchimpProvider(t *testing.T, m *mailchimpServer, key string) *emaillist.Mailchimp {
	p, err := emaillist.NewMailchimp(key, "a1b2c3d4e5", &emaillist.MailchimpOptions{BaseURL: m.URL + "/3.0",
		AllowInsecure: true, TagNames: map[int64]string{3: "customers"}, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})
	require.NoError(t, err)
	return p
}

func TestMailchimp(t *testing.T) {
	t.Parallel()
	m := newMailchimp(t)
	p := mailchimpProvider(t, m, "key-us21")
	first := "Grace"
	ctx := context.Background()
	got, err := p.Subscribe(ctx, emaillist.Subscription{Email: " Grace@Example.com", FirstName: &first,
		Fields: map[string]any{"COMPANY": "Navy"}, TagIDs: []int64{3, 9}, ListFormID: ptr(int64(217))})
	require.NoError(t, err)
	hash := emaillist.SubscriberHash("grace@example.com")
	require.Equal(t, "9f528ceb410182ebd9d490172948f11f", hash, "md5 of the lower-cased address (md5sum)")
	require.Equal(t, hash, got.ID)
	require.Equal(t, "Grace", got.FirstName)
	require.Equal(t, "subscribed", got.State)
	require.Equal(t, []string{
		`PUT /3.0/lists/a1b2c3d4e5/members/` + hash + ` {"email_address":" Grace@Example.com","merge_fields":{"COMPANY":"Navy","FNAME":"Grace"},"status_if_new":"subscribed"}`,
		`POST /3.0/lists/a1b2c3d4e5/members/` + hash + `/tags {"tags":[{"name":"customers","status":"active"},{"name":"9","status":"active"}]}`,
	}, m.Calls())
	// An existing member: the same two calls (the upsert is idempotent).
	_, err = p.Subscribe(ctx, emaillist.Subscription{Email: "grace@example.com", FirstName: &first, TagIDs: []int64{3}})
	require.NoError(t, err)
	calls := m.Calls()[2:]
	require.Len(t, calls, 2)
	require.Equal(t, `PUT /3.0/lists/a1b2c3d4e5/members/`+hash+` {"email_address":"grace@example.com","merge_fields":{"FNAME":"Grace"},"status_if_new":"subscribed"}`, calls[0])
	require.Equal(t, `POST /3.0/lists/a1b2c3d4e5/members/`+hash+`/tags {"tags":[{"name":"customers","status":"active"}]}`, calls[1])

	// 429 then success, within the call; 60 tags, 50 applied.
	m.mu.Lock()
	m.calls, m.status = nil, map[int]int{1: 429}
	m.mu.Unlock()
	tags := make([]int64, 60)
	for i := range tags {
		tags[i] = int64(100 + i)
	}
	_, err = p.Subscribe(ctx, emaillist.Subscription{Email: "grace@example.com", TagIDs: tags})
	require.NoError(t, err)
	calls = m.Calls()
	require.Len(t, calls, 3)
	require.Equal(t, calls[0], calls[1], "sent again after the 429")
	require.Equal(t, 50, strings.Count(calls[2], `"status":"active"`))
	require.Contains(t, calls[2], `"name":"149"`)
	require.NotContains(t, calls[2], `"name":"150"`)

	// A wrong key: not retryable, and the key never in the error.
	bad := mailchimpProvider(t, m, "wrong-us21")
	_, err = bad.Subscribe(ctx, emaillist.Subscription{Email: "grace@example.com"})
	require.Error(t, err)
	require.NotErrorIs(t, err, emaillist.ErrRetryable)
	require.NotContains(t, err.Error(), "wrong-us21")
}

type recordingTransport struct{ hosts []string }

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.hosts = append(r.hosts, req.URL.Scheme+"://"+req.URL.Host+req.URL.Path)
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"health_status":"Everything's Chimpy!"}`)), Request: req}, nil
}

// The base URL comes from the key's data centre.
func TestMailchimpDataCentre(t *testing.T) {
	t.Parallel()
	rt := &recordingTransport{}
	p, err := emaillist.NewMailchimp("0123abcd-us21", "l", &emaillist.MailchimpOptions{HTTPClient: &http.Client{Transport: rt}})
	require.NoError(t, err)
	require.NoError(t, p.Ping(context.Background()))
	require.Equal(t, []string{"https://us21.api.mailchimp.com/3.0/ping"}, rt.hosts)
	for _, c := range []struct{ key, list, base string }{{"nodc", "l", ""}, {"k-us1", "", ""}, {"k-us1.evil.example/x", "l", ""},
		{"k-us1", "l", "http://localhost"}} {
		_, err := emaillist.NewMailchimp(c.key, c.list, &emaillist.MailchimpOptions{BaseURL: c.base})
		require.Error(t, err, "%+v", c)
	}
}

// The job with Mailchimp as the provider: one event each, a wrong key
// failing at once.
func TestMailchimpJob(t *testing.T) {
	t.Parallel()
	m := newMailchimp(t)
	b := setup(t, func(o *setupOptions) { o.work, o.provider = true, mailchimpProvider(t, m, "key-us21") })
	subscribeVia(t, b, `{"list_form_id":1,"email":"grace@example.com","tags":[3]}`)
	events := b.waitEvents(t, 1)
	require.Equal(t, emaillist.EventSubscribed, events[0].Type, "%v", events[0].Err)
	require.Len(t, m.Calls(), 2)

	bad := setup(t, func(o *setupOptions) { o.work, o.provider = true, mailchimpProvider(t, m, "wrong-us21") })
	subscribeVia(t, bad, `{"list_form_id":1,"email":"grace@example.com"}`)
	events = bad.waitEvents(t, 1)
	require.Equal(t, emaillist.EventSubscriptionFailed, events[0].Type)
	time.Sleep(200 * time.Millisecond)
	require.Len(t, bad.Events(), 1)
	require.Len(t, m.Calls(), 3, "one call, no retry")
}
