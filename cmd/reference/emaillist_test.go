package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The email-list walk-through of docs/emaillist.md against a local Kit double: a
// form and two feeds (one whose logic fails), a submission, and the
// job's calls to Kit; the public subscribe; the CLI.
func TestEmaillistFeeds(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []string
	kit := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		calls = append(calls, r.Method+" "+r.URL.Path+" "+string(b))
		mu.Unlock()
		if r.Header.Get("X-Kit-Api-Key") != "kit-key" {
			w.WriteHeader(401)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		io.WriteString(w, `{"subscriber":{"id":660,"email_address":"ann@example.com","state":"active"},"user":{}}`)
	}))
	defer kit.Close()
	e := env{"GROUNDWORK_SECRET_KEY": testSecretKey, "GROUNDWORK_EMAILLIST_PROVIDER": "kit", "GROUNDWORK_EMAILLIST_API_KEY": "kit-key",
		"GROUNDWORK_EMAILLIST_BASE_URL": kit.URL + "/v4", "GROUNDWORK_EMAILLIST_ALLOW_INSECURE_URLS": "true"}
	dsn := storetest.DSN(t, store.SQLite)
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir()}, e.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)
	e["GROUNDWORK_DB"] = dsn
	c, out, stderr := runCmd(t, e, "token", "create", "--name", "lists", "--ability", "emailmarketing:*", "--ability", "forms:*")
	require.Equal(t, 0, c, stderr)
	token := strings.TrimSpace(out)

	code, body := request(t, "POST", base+"/api/v1/forms", token, `{"name":"Hello"}`)
	require.Equal(t, 201, code, body)
	for _, f := range []string{`{"type":"text","label":"Name"}`, `{"type":"email","label":"Email"}`} {
		code, body = request(t, "POST", base+"/api/v1/forms/hello/fields", token, f)
		require.Equal(t, 201, code, body)
	}
	code, body = get(t, base+"/admin/emailmarketing/feeds", "")
	require.Equal(t, 403, code, "no token, no session")
	require.Empty(t, body)
	c, out, _ = runCmd(t, e, "token", "create", "--name", "forms-only", "--ability", "forms:*")
	require.Equal(t, 0, c)
	code, _ = get(t, base+"/admin/emailmarketing/feeds", strings.TrimSpace(out))
	require.Equal(t, 403, code, "a token without emailmarketing")
	code, body = request(t, "POST", base+"/admin/emailmarketing/feeds", token,
		`{"form_id":999,"name":"Newsletter","list_form_id":217,"list_tag_ids":[3],"field_map":{"email_address":"email","first_name":"name"}}`)
	require.Equal(t, 422, code, "a feed for a form the server does not have")
	require.Contains(t, body, `"form_id":["The selected form id is invalid."]`)
	code, body = request(t, "POST", base+"/admin/emailmarketing/feeds", token,
		`{"form_id":1,"name":"Newsletter","list_form_id":217,"list_tag_ids":[3],"field_map":{"email_address":"email","first_name":"name"}}`)
	require.Equal(t, 201, code, body)
	code, body = request(t, "POST", base+"/admin/emailmarketing/feeds", token, `{"form_id":1,"name":"VIPs","field_map":{"email_address":"email"},
		"conditional_logic":{"match":"all","conditions":[{"field":"name","operator":"equals","value":"Ada"}]}}`)
	require.Equal(t, 201, code, body)
	code, body = request(t, "POST", base+"/admin/emailmarketing/feeds/1/test", token, `{"values":{"name":"Ann","email":"ann@example.com"}}`)
	require.Equal(t, 200, code)
	require.JSONEq(t, `{"would_send":true,"reason":null,"payload":{"email_address":"ann@example.com","first_name":"Ann"}}`, body)

	require.Equal(t, 201, submitForm(t, base, "hello", "name", "Ann", "email", "ann@example.com"))
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(calls) >= 3
	}, 20*time.Second, 20*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // a second job would show by now
	mu.Lock()
	require.Equal(t, []string{
		`POST /v4/subscribers {"email_address":"ann@example.com","first_name":"Ann"}`,
		`POST /v4/forms/217/subscribers/660 {"referrer":"` + base + `/api/v1/forms/hello/submit"}`, // the page it was sent from
		`POST /v4/tags/3/subscribers/660 {}`,
	}, calls, "one feed sent; the VIP feed's logic did not match")
	calls = nil
	mu.Unlock()

	code, body = request(t, "POST", base+"/emailmarketing/subscribers", "", `{"list_form_id":9,"email":"bo@example.com"}`)
	require.Equal(t, 202, code, body)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(calls) >= 2
	}, 20*time.Second, 20*time.Millisecond)

	c, out, stderr = runCmd(t, e, "emaillist", "feeds", "list")
	require.Equal(t, 0, c, stderr)
	require.Contains(t, out, "1\tform 1\tNewsletter\tlist form 217\ttags [3]\tactive\n")
	c, out, stderr = runCmd(t, e, "emaillist", "ping")
	require.Equal(t, 0, c, stderr)
	require.Equal(t, "kit accepts the key.\n", out)
	e["GROUNDWORK_EMAILLIST_API_KEY"] = "wrong"
	c, _, stderr = runCmd(t, e, "emaillist", "ping")
	require.Equal(t, 1, c)
	require.Contains(t, stderr, "401")
	require.NotContains(t, stderr, "wrong")
	e["GROUNDWORK_EMAILLIST_PROVIDER"] = "sendgrid"
	c, _, stderr = runCmd(t, e, "emaillist", "ping")
	require.Equal(t, 2, c)
	require.Contains(t, stderr, "must be kit or mailchimp")
}

// Mailchimp's tag names come from GROUNDWORK_EMAILLIST_TAG_NAMES; a pair
// that does not read is refused at start.
func TestEmaillistTagNames(t *testing.T) {
	t.Parallel()
	c, err := readEmaillistConfig(env{"GROUNDWORK_EMAILLIST_TAG_NAMES": "3=VIP, 7 = Newsletter"}.get)
	require.NoError(t, err)
	require.Equal(t, map[int64]string{3: "VIP", 7: "Newsletter"}, c.tagNames)
	for _, bad := range []string{"3", "x=VIP", "3=", "0=Zero"} {
		_, err := readEmaillistConfig(env{"GROUNDWORK_EMAILLIST_TAG_NAMES": bad}.get)
		require.Error(t, err, bad)
	}
}
