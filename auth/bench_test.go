package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// benchSite is a signed-in session on a real database, and a handler
// behind RequireUser beside the same handler bare.
func benchSite(b *testing.B, d store.Dialect, params auth.PasswordParams) (svc *auth.Service, guarded, bare http.Handler, cookie *http.Cookie) {
	b.Helper()
	db := storetest.Open(b, d, authsql.Migrations)
	svc, err := auth.NewService(authsql.New(db), &auth.Options{Password: params, LoginLimiter: store.NewSQLRateLimiter(db, nil)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	u, err := svc.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse"})
	if err != nil {
		b.Fatal(err)
	}
	id, _, err := svc.StartSession(ctx, u, false)
	if err != nil {
		b.Fatal(err)
	}
	w, err := auth.NewWeb(svc, nil)
	if err != nil {
		b.Fatal(err)
	}
	bare = http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { rw.WriteHeader(http.StatusNoContent) })
	return svc, w.RequireUser(bare), bare, &http.Cookie{Name: auth.SessionCookie, Value: id}
}

func serveBench(b *testing.B, h http.Handler, cookie *http.Cookie) {
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("GET", "/dashboard", nil)
		if cookie != nil {
			r.AddCookie(cookie)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusNoContent {
			b.Fatalf("status %d", w.Code)
		}
	}
}

// What RequireUser adds to a request with a live session: one indexed
// read (the session joined to its user), beside the same handler bare.
func BenchmarkRequireUser(b *testing.B) {
	for _, d := range storetest.Dialects() {
		_, guarded, bare, cookie := benchSite(b, d, cheap)
		b.Run(string(d)+"/bare", func(b *testing.B) { serveBench(b, bare, nil) })
		b.Run(string(d)+"/require-user", func(b *testing.B) { serveBench(b, guarded, cookie) })
	}
}

// One argon2id hash at the default parameters (19 MiB, t=2, p=1).
func BenchmarkPasswordHash(b *testing.B) {
	p := auth.PasswordParams{Memory: auth.PasswordMemoryDefault, Time: auth.PasswordTimeDefault, Threads: auth.PasswordThreadsDefault}
	for b.Loop() {
		if _, err := auth.HashPassword("correct horse", p); err != nil {
			b.Fatal(err)
		}
	}
}

// Sign-ins (CheckCredentials: lock-out count, user read, argon2id, count
// cleared) from many clients at once, at the default parameters and the
// default bound on concurrent hashing; ns/op is the cost per sign-in,
// so 1e9/ns-per-op is sign-ins a second.
func BenchmarkSignIn(b *testing.B) {
	svc, _, _, _ := benchSite(b, store.SQLite, auth.PasswordParams{})
	var n atomic.Int64
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			ip := "192.0.2." + strconv.FormatInt(n.Add(1)%250, 10)
			if _, err := svc.CheckCredentials(context.Background(), "ada@example.com", "correct horse", ip); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// An authenticated page request while 32 clients flood sign-ins: hashing
// is bounded to half the CPUs, so the request still finds a core. Compare
// with BenchmarkRequireUser/sqlite/require-user.
func BenchmarkRequireUserDuringSignInFlood(b *testing.B) {
	svc, guarded, _, cookie := benchSite(b, store.SQLite, auth.PasswordParams{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			ip := "198.51.100." + strconv.Itoa(i)
			for ctx.Err() == nil {
				_, _ = svc.CheckCredentials(ctx, "ada@example.com", "correct horse", ip)
			}
		})
	}
	serveBench(b, guarded, cookie)
	cancel()
	wg.Wait()
}

// A request whose bearer token is verified twice (a tenancy middleware,
// then the route's authorizer): under LoadUser the second asking is
// answered from the first ("once"); without it each reads the token and
// its user ("twice"). SQLite, and Postgres when TEST_DATABASE_URL is set.
func BenchmarkTokenAskedTwice(b *testing.B) {
	for _, d := range storetest.Dialects() {
		db := storetest.Open(b, d, authsql.Migrations)
		svc, err := auth.NewService(authsql.New(db), nil)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		u, err := svc.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse"})
		if err != nil {
			b.Fatal(err)
		}
		if u, err = svc.Grant(ctx, u.ID, "*"); err != nil {
			b.Fatal(err)
		}
		plain, _, err := svc.CreateUserToken(ctx, u, auth.NewToken{Name: "deploys", Abilities: []string{"forms:*"}})
		if err != nil {
			b.Fatal(err)
		}
		web, err := auth.NewWeb(svc, nil)
		if err != nil {
			b.Fatal(err)
		}
		twice := tokenAskedTwice(b, svc)
		for _, c := range []struct {
			name string
			h    http.Handler
		}{{"once", web.LoadUser(twice)}, {"twice", twice}} {
			b.Run(string(d)+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					r := httptest.NewRequest("GET", "/api/v1/forms", nil)
					r.Header.Set("Authorization", "Bearer "+plain)
					w := httptest.NewRecorder()
					c.h.ServeHTTP(w, r)
					if w.Code != http.StatusNoContent {
						b.Fatalf("status %d", w.Code)
					}
				}
			})
		}
	}
}
