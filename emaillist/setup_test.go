package emaillist_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/emaillist/emaillistsql"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// kitServer speaks enough of Kit v4 for the provider: it records each
// call as "METHOD /path body" and answers from script (by call number,
// then by path), else as Kit would.
type kitServer struct {
	*httptest.Server
	mu     sync.Mutex
	calls  []string
	script map[int]func(w http.ResponseWriter) // by call number, from 1
	known  map[string]bool                     // emails that exist already
}

func newKit(t testing.TB) *kitServer {
	k := &kitServer{script: map[int]func(http.ResponseWriter){}, known: map[string]bool{}}
	k.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		k.mu.Lock()
		k.calls = append(k.calls, r.Method+" "+r.URL.Path+" "+strings.TrimSpace(string(body)))
		n := len(k.calls)
		answer := k.script[n]
		k.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("X-Kit-Api-Key") != "kit-key" {
			w.WriteHeader(401)
			io.WriteString(w, `{"errors":["The access token is invalid"]}`)
			return
		}
		if answer != nil {
			answer(w)
			return
		}
		switch {
		case r.URL.Path == "/v4/subscribers":
			var in struct {
				Email     string  `json:"email_address"`
				FirstName *string `json:"first_name"`
			}
			_ = json.Unmarshal(body, &in)
			k.mu.Lock()
			existed := k.known[in.Email]
			k.known[in.Email] = true
			k.mu.Unlock()
			if existed {
				w.WriteHeader(200)
			} else {
				w.WriteHeader(201)
			}
			name, _ := json.Marshal(in.FirstName)
			io.WriteString(w, `{"subscriber":{"id":660,"first_name":`+string(name)+`,"email_address":"`+in.Email+
				`","state":"active","created_at":"2026-06-01T08:00:00Z","fields":{}}}`)
		case r.URL.Path == "/v4/account":
			io.WriteString(w, `{"user":{"email":"owner@example.com"},"account":{"name":"Shop"}}`)
		default:
			w.WriteHeader(201)
			io.WriteString(w, `{"subscriber":{"id":660}}`)
		}
	}))
	t.Cleanup(k.Close)
	return k
}

func (k *kitServer) Calls() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.calls...)
}

func (k *kitServer) on(n int, status int, body string, header ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.script[n] = func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

type bundle struct {
	db     *store.DB
	svc    *emaillist.Service
	queue  *store.Queue
	kit    *kitServer
	mu     sync.Mutex
	events []emaillist.Event
	admin  *httptest.Server
	public *httptest.Server
	// allow is what the Authorizer answers; asked records the feeds it
	// was asked about.
	allow bool
	asked []*emaillist.Feed
}

type setupOptions struct {
	dialect   store.Dialect
	work      bool // start the queue
	kit       emaillist.KitOptions
	kitKey    string
	subscribe *emaillist.SubscribeHandlerOptions
	enqueuer  func(store.Enqueuer) store.Enqueuer
	provider  emaillist.Provider // instead of Kit
}

func setup(t *testing.T, configure ...func(*setupOptions)) *bundle {
	t.Helper()
	return setupTB(t, configure...)
}

// setupTB is setup for tests and benchmarks.
func setupTB(t testing.TB, configure ...func(*setupOptions)) *bundle {
	t.Helper()
	o := setupOptions{dialect: store.SQLite}
	for _, c := range configure {
		c(&o)
	}
	b := &bundle{db: storetest.Open(t, o.dialect, emaillistsql.Migrations), allow: true}
	b.kit = newKit(t)
	var err error
	b.queue, err = store.NewQueue(b.db, &store.QueueOptions{TestOnly: true, FetchPollInterval: 50 * time.Millisecond})
	require.NoError(t, err)
	ko := o.kit
	ko.BaseURL, ko.AllowInsecure = b.kit.URL+"/v4", true
	if ko.BaseDelay == 0 {
		ko.BaseDelay, ko.MaxDelay = time.Millisecond, 5*time.Millisecond
	}
	kit, err := emaillist.NewKit(cmpOr(o.kitKey, "kit-key"), &ko)
	require.NoError(t, err)
	var enq store.Enqueuer = b.queue
	if o.enqueuer != nil {
		enq = o.enqueuer(enq)
	}
	so := &emaillist.Options{Provider: kit}
	if o.provider != nil {
		so.Provider = o.provider
	}
	b.svc, err = emaillist.NewService(emaillistsql.New(b.db), enq, so)
	require.NoError(t, err)
	b.svc.OnEvent(func(_ context.Context, e emaillist.Event) {
		b.mu.Lock()
		b.events = append(b.events, e)
		b.mu.Unlock()
	})
	require.NoError(t, emaillist.RegisterWorkers(b.queue.Workers(), b.svc))
	if o.work {
		require.NoError(t, b.queue.Start(context.Background()))
		t.Cleanup(func() { require.NoError(t, b.queue.Stop(context.Background())) })
	}
	admin, err := emaillist.NewAdminHandler(b.svc, groundwork.RequestAuthorizerFunc(
		func(_ *http.Request, ability string, resource any) groundwork.Access {
			f, isFeed := resource.(*emaillist.Feed)
			if resource != nil && (!isFeed || f == nil) {
				t.Errorf("the resource is %#v: a *Feed that is not nil, or an untyped nil", resource)
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			b.asked = append(b.asked, f)
			if b.allow && ability == emaillist.AbilityManageFeeds {
				return groundwork.Allowed
			}
			return groundwork.Forbidden
		}), nil)
	require.NoError(t, err)
	b.admin = httptest.NewServer(apitest.Of(t, admin).Handler(admin))
	t.Cleanup(b.admin.Close)
	public, err := emaillist.NewSubscribeHandler(b.svc, o.subscribe)
	require.NoError(t, err)
	b.public = httptest.NewServer(apitest.Of(t, public).Handler(public))
	t.Cleanup(b.public.Close)
	return b
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

type answer struct {
	code   int
	header http.Header
	body   string
}

func call(t testing.TB, srv *httptest.Server, method, path, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return answer{res.StatusCode, res.Header, string(out)}
}

func (b *bundle) Events() []emaillist.Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]emaillist.Event(nil), b.events...)
}

// jobs are the queued subscribe jobs' args, oldest first.
func (b *bundle) jobs(t *testing.T) []emaillist.SubscribeArgs {
	t.Helper()
	var raw []string
	require.NoError(t, b.db.Select(&raw, b.db.Rebind("SELECT CAST(args AS TEXT) FROM river_job WHERE kind = ? ORDER BY id"), "emaillist_subscribe"))
	out := make([]emaillist.SubscribeArgs, len(raw))
	for i, r := range raw {
		require.NoError(t, json.Unmarshal([]byte(r), &out[i]))
	}
	return out
}

const newsletter = `{"form_id":1,"name":"Newsletter","list_form_id":217,"list_tag_ids":[3,4],
	"field_map":{"email_address":"email","first_name":"name","company":"org"},
	"conditional_logic":{"match":"all","conditions":[{"field":"consent","operator":"equals","value":"yes"}]}}`

type (
	riverArgs = river.JobArgs
	riverOpts = river.InsertOpts
	riverMany = river.InsertManyParams
)

func strconvFormat(n int64) string { return strconv.FormatInt(n, 10) }
