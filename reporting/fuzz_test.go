package reporting_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
)

// No page view (its name, address with any query and UTM values, referrer
// and properties) makes the collector panic or answer 5xx, and whatever it
// takes is written: the flush never fails on a value.
func FuzzCollect(f *testing.F) {
	f.Add("pageview", "https://shop.example/p?utm_source=news&utm_medium=email&utm_campaign=spring&utm_term=a&utm_content=b", "https://www.google.com/", `{"plan":"pro"}`)
	f.Add("signup", "https://shop.example/?utm_source=%00&utm_campaign=%ff", "android-app://com.google.android.gm/", `{"n":1,"ok":true}`)
	f.Add("pageview", "https://shop.example/"+string(make([]byte, 100)), "not a url", `[]`)
	f.Add("", "https://other.example/", "", `{"a":{"b":1}}`)
	f.Add("pageview", "https://shop.example/?ref=x&gclid=1&UTM_SOURCE=Caps", "https://shop.example/self", `null`)
	f.Add("pageview", "https://shop.example:8443/a/../b/%2e%2e/?utm_source="+fmt.Sprint(make([]int, 40)), "https://t.co/x", `{"k":"v\u0000"}`)
	b := setup(f, store.SQLite)
	f.Fuzz(func(t *testing.T, name, url, referrer, props string) {
		body := map[string]any{"name": name, "url": url, "referrer": referrer}
		if json.Valid([]byte(props)) {
			body["props"] = json.RawMessage(props)
		} else {
			body["props"] = props
		}
		raw, err := json.Marshal(body)
		if err != nil {
			t.Skip(err)
		}
		code := b.view(t, "", browser, string(raw))
		if code >= 500 || code != 202 && code != 400 && code != 422 && code != 413 {
			t.Fatalf("%s: %d", raw, code)
		}
		if held := apitest.Held(); len(held) > 0 {
			t.Fatalf("%s: %v", raw, held)
		}
		if err := b.analytics.Flush(t.Context()); err != nil {
			t.Fatalf("%s: taken but not written: %v", raw, err)
		}
	})
}

// No JSON body sent to the reporting API's writing routes (goals, shared
// links, email reports) makes one panic or answer 5xx, and every answer
// is JSON as documented.
func FuzzAdminBodies(f *testing.F) {
	paths := []string{"/analytics-goals", "/analytics-shared-links", "/analytics-email-reports"}
	for i, body := range []string{`{"page":"/thanks"}`, `{"event":"signup","props":{"plan":"pro"}}`, `{"page":"/a*[b"}`,
		`{"name":"board","days":-1,"expires_at":"2026-02-30T00:00:00Z"}`, `{"email":"a@b.co","period":"fortnightly"}`,
		`{"page":"","event":""}`, `{"email":["x"]}`} {
		f.Add(uint8(i), body)
	}
	b := setup(f, store.SQLite)
	queue, err := store.NewQueue(b.db, &store.QueueOptions{TestOnly: true})
	if err != nil {
		f.Fatal(err)
	}
	reports, err := reporting.NewEmailReports(reporting.EmailReportsOptions{Analytics: b.analytics, Store: reportingsql.New(b.db), Enqueuer: queue,
		Mailer: mail.NewOutbox(&mail.OutboxOptions{From: "r@shop.example", Logger: slog.New(slog.DiscardHandler)}), SiteName: "Shop"})
	if err != nil {
		f.Fatal(err)
	}
	svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics})
	if err != nil {
		f.Fatal(err)
	}
	h, err := reporting.NewHandler(svc, groundwork.RequestAuthorizerFunc(func(*http.Request, string, any) groundwork.Access { return groundwork.Allowed }),
		&reporting.HandlerOptions{EmailReports: reports, SharedLinks: reportingsql.New(b.db)})
	if err != nil {
		f.Fatal(err)
	}
	srv := httptest.NewServer(apitest.Documented(f, h))
	f.Cleanup(srv.Close)
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		path := paths[int(route)%len(paths)]
		res, err := srv.Client().Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode >= 500 || !json.Valid(out) {
			t.Fatalf("POST %s %q: %d %s", path, body, res.StatusCode, out)
		}
		if held := apitest.Held(); len(held) > 0 {
			t.Fatalf("POST %s %q: %v", path, body, held)
		}
	})
}
