package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

func TestSecretKey(t *testing.T) {
	t.Parallel()
	want := []byte("0123456789abcdef0123456789abcdef")
	for _, s := range []string{testSecretKey, "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY", " " + testSecretKey + "\n",
		"3031323334353637383961626364656630313233343536373839616263646566"} {
		key, err := parseKey(s)
		require.NoError(t, err, s)
		require.Equal(t, want, key)
	}
	for _, bad := range []string{"", "short", "MDEy", strings.Repeat("a", 64) + "zz"} {
		_, err := parseKey(bad)
		require.Error(t, err, bad)
	}

	logger := slog.New(slog.DiscardHandler)
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "data.db")
	first, err := loadSecretKey(webhooksConfig{}, dsn, logger)
	require.NoError(t, err)
	require.Len(t, first, webhooks.SecretKeySize)
	info, err := os.Stat(filepath.Join(dir, "data.key"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	again, err := loadSecretKey(webhooksConfig{}, dsn, logger)
	require.NoError(t, err)
	require.Equal(t, first, again, "the key file is reused")
	fromEnv, err := loadSecretKey(webhooksConfig{secretKey: testSecretKey}, dsn, logger)
	require.NoError(t, err)
	require.Equal(t, want, fromEnv, "the variable wins")

	_, err = loadSecretKey(webhooksConfig{}, "postgres://u@h/db", logger)
	require.ErrorContains(t, err, "GROUNDWORK_SECRET_KEY is required with Postgres")
	_, err = loadSecretKey(webhooksConfig{secretKey: "nope"}, dsn, logger)
	require.ErrorContains(t, err, "GROUNDWORK_SECRET_KEY")
	mem, err := loadSecretKey(webhooksConfig{}, ":memory:", logger)
	require.NoError(t, err)
	require.Len(t, mem, webhooks.SecretKeySize)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.key"), []byte("garbage"), 0o600))
	_, err = loadSecretKey(webhooksConfig{}, "sqlite:"+filepath.Join(dir, "broken.db"), logger)
	require.ErrorContains(t, err, "broken.key")

	_, err = readWebhooksConfig(env{"GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS": "perhaps"}.get)
	require.ErrorContains(t, err, "GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS")
	c, err := readWebhooksConfig(env{"GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS": "true", "GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS": "1"}.get)
	require.NoError(t, err)
	require.True(t, c.allowPrivate)
	require.True(t, c.allowInsecure)
	_, err = readWebhooksConfig(env{"GROUNDWORK_WEBHOOKS_DISABLE_AFTER": "five days"}.get)
	require.ErrorContains(t, err, "GROUNDWORK_WEBHOOKS_DISABLE_AFTER must be a duration")
	c, err = readWebhooksConfig(env{"GROUNDWORK_WEBHOOKS_DISABLE_AFTER": "120h"}.get)
	require.NoError(t, err)
	require.Equal(t, 120*time.Hour, c.disableAfter)
}

func TestWebhooksCommandUsage(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.SQLite)
	e := env{"GROUNDWORK_DB": dsn}
	for _, args := range [][]string{{"webhooks"}, {"webhooks", "fire"}, {"webhooks", "emit"}, {"webhooks", "emit", "a.b", "c.d"},
		{"webhooks", "emit", "order.placed", "--data", "[1]"}, {"webhooks", "emit", "Not An Event"}, {"webhooks", "retry", "now"},
		{"webhooks", "emit", "order.placed", "--owner", "bad\x01owner"}} {
		code, _, stderr := runCmd(t, e, args...)
		require.Equal(t, 2, code, "%v: %s", args, stderr)
		require.Contains(t, stderr, "reference webhooks --help")
	}
	code, out, stderr := runCmd(t, e, "webhooks", "emit", "order.placed")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "recorded for 0 subscription(s)")
	code, out, stderr = runCmd(t, e, "webhooks", "emit", "order.placed", "--owner", "*")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "recorded for 0 subscription(s)", "every owner's: none yet")
	code, out, _ = runCmd(t, e, "webhooks", "prune")
	require.Equal(t, 0, code)
	require.Equal(t, "Pruned 0 finished deliveries and 0 inbound webhooks.\n", out)
}

// An accepted form submission is delivered as a form.submitted webhook:
// the reference wires the two domains through a hook.
func TestFormSubmissionWebhook(t *testing.T) {
	t.Parallel()
	base, token := serveWithWebhooksToLoopback(t)

	bodies := make(chan []byte, 4)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- b
	}))
	defer receiver.Close()
	code, body := request(t, "POST", base+"/api/ecommerce/v1/admin/webhook-subscriptions", token,
		`{"name":"forms","url":"`+receiver.URL+`","events":["form.submitted"]}`)
	require.Equal(t, 201, code, body)
	code, body = request(t, "POST", base+"/api/v1/forms", token, `{"name":"Hello"}`)
	require.Equal(t, 201, code, body)
	code, body = request(t, "POST", base+"/api/v1/forms/hello/fields", token, `{"type":"text","label":"Name"}`)
	require.Equal(t, 201, code, body)

	require.Equal(t, 201, submitForm(t, base, "hello", "name", "Ann"))
	select {
	case b := <-bodies:
		var env struct {
			Event string         `json:"event"`
			Data  map[string]any `json:"data"`
		}
		require.NoError(t, json.Unmarshal(b, &env))
		require.Equal(t, "form.submitted", env.Event)
		require.Equal(t, "hello", env.Data["form"])
		require.Equal(t, map[string]any{"name": "Ann"}, env.Data["values"])
		require.Regexp(t, `^FORM-2026-\d{5}$`, env.Data["number"])
	case <-time.After(30 * time.Second):
		t.Fatal("no form.submitted delivery")
	}
}

// Stripe end to end: a signed webhook settles its session; reconcile
// settles one whose webhook never came; both against an httptest Stripe.
func TestServeStripe(t *testing.T) {
	t.Parallel()
	stripe := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk_test_ref" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/v1/checkout/sessions/cs_2":
			_, _ = io.WriteString(w, `{"id":"cs_2","object":"checkout.session","status":"complete","payment_status":"paid"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer stripe.Close()
	dsn := storetest.DSN(t, store.SQLite)
	e := env{"GROUNDWORK_DB": dsn, "GROUNDWORK_STRIPE_WEBHOOK_SECRET": "whsec_old_one,whsec_ref_secret",
		"GROUNDWORK_STRIPE_API_KEY": "sk_test_ref", "GROUNDWORK_STRIPE_API_BASE": stripe.URL}
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--log-level", "warn", "--uploads", t.TempDir()}, e.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)
	for _, ref := range []string{"pi_1", "cs_2"} {
		code, out, stderr := runCmd(t, e, "webhooks", "session", ref)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, out, "awaits settlement")
	}

	body := `{"id":"evt_1","object":"event","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1","object":"payment_intent"}}}`
	ts := fmt.Sprint(time.Now().Unix())
	mac := hmac.New(sha256.New, []byte("whsec_ref_secret"))
	mac.Write([]byte(ts + "." + body))
	req, err := http.NewRequest("POST", base+"/ecommerce/webhooks/stripe", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Stripe-Signature", "t="+ts+",v1="+hex.EncodeToString(mac.Sum(nil)))
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode, string(raw))
	require.JSONEq(t, `{"received":true,"event_id":"evt_1","type":"payment_intent.succeeded"}`, string(raw))
	code, page := get(t, base+"/ecommerce/webhooks/paypal", "")
	require.Equal(t, 405, code, page)

	db, err := store.Open(context.Background(), dsn)
	require.NoError(t, err)
	defer db.Close()
	sessions := webhookssql.NewPaymentSessions(db, nil)
	require.Eventually(t, func() bool {
		s, _ := sessions.Status(context.Background(), "stripe", "pi_1")
		return s == "succeeded"
	}, 20*time.Second, 20*time.Millisecond, "the webhook settled its session")

	code, out, stderr := runCmd(t, e, "webhooks", "reconcile", "--minutes", "0")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "Finalized 1, released 0, left 0, errors 0.\n", out)
	code, out, stderr = runCmd(t, e, "webhooks", "session", "--status", "cs_2")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "succeeded\n", out)
	code, _, stderr = runCmd(t, e, "webhooks", "session", "cs_9", "--status")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "no payment session cs_9 (stripe)")
	code, _, stderr = runCmd(t, e, "webhooks", "session")
	require.Equal(t, 2, code, stderr)

	// A provider without a gateway could never be settled: refused.
	code, _, stderr = runCmd(t, e, "webhooks", "session", "PAY-1", "--provider", "paypal")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, `no gateway for provider "paypal"`)

	// A session Stripe does not know: reconcile names it and says why.
	code, _, stderr = runCmd(t, e, "webhooks", "session", "pi_404")
	require.Equal(t, 0, code, stderr)
	code, out, stderr = runCmd(t, e, "webhooks", "reconcile", "--minutes", "0", "--log-level", "error")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, out, "errors 1.\n  pi_404 (stripe): looking the session up: ")
	require.Contains(t, out, "404")
	require.Contains(t, stderr, "1 sessions could not be reconciled")
	require.NotContains(t, stderr, "level=WARN", "--log-level error keeps warnings out")
	code, _, stderr = runCmd(t, e, "webhooks", "reconcile", "--minutes", "0", "--log-level", "debug")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "level=WARN msg=\"webhooks: reconcile: session lookup\"", "the log goes to stderr at the level asked")
	code, _, stderr = runCmd(t, e, "webhooks", "retry", "--log-level", "loud")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--log-level")
}

// A second instance given another secret key refuses to start, saying
// why, and so do sub-commands that would seal or open secrets with it;
// the first instance's key still works.
func TestInstancesMustShareTheSecretKey(t *testing.T) {
	t.Parallel()
	const otherKey = "ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA="
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--uploads", t.TempDir()},
			env{"GROUNDWORK_SECRET_KEY": testSecretKey}.get)
		require.NoError(t, err)
		startServeConfig(t, cfg) // records the key's fingerprint

		other, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--uploads", t.TempDir()},
			env{"GROUNDWORK_SECRET_KEY": otherKey}.get)
		require.NoError(t, err)
		var logs bytes.Buffer
		err = serve(context.Background(), other, &logs, nil)
		require.ErrorIs(t, err, store.ErrKeyMismatch)
		require.ErrorContains(t, err, "start it with the key the other instances use")
		require.NotContains(t, err.Error(), testSecretKey)
		require.NotContains(t, err.Error(), otherKey)

		code, _, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn, "GROUNDWORK_SECRET_KEY": otherKey}, "webhooks", "emit", "order.placed")
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "is not the one this database has used")
		code, _, stderr = runCmd(t, env{"GROUNDWORK_DB": dsn, "GROUNDWORK_SECRET_KEY": testSecretKey}, "webhooks", "emit", "order.placed")
		require.Equal(t, 0, code, stderr)
	})
}

// serveWithWebhooksToLoopback serves the reference on a fresh SQLite
// database, letting webhooks reach loopback http:// receivers, and returns
// its address and a token with every ability.
func serveWithWebhooksToLoopback(t *testing.T) (base, token string) {
	t.Helper()
	dsn := storetest.DSN(t, store.SQLite)
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir()},
		env{"GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS": "true", "GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS": "true"}.get)
	require.NoError(t, err)
	base = startServeConfig(t, cfg)
	c, out, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn}, "token", "create", "--name", "all", "--ability", "*")
	require.Equal(t, 0, c, stderr)
	return base, strings.TrimSpace(out)
}

// submitForm submits the form slug through the API with its form-load
// token and the fields (name, value, ...), and returns the status.
func submitForm(t *testing.T, base, slug string, fields ...string) int {
	t.Helper()
	formToken := renderToken(t, base, slug)
	time.Sleep(forms.MinFillTime)
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	require.NoError(t, w.WriteField("_form_token", formToken))
	for i := 0; i+1 < len(fields); i += 2 {
		require.NoError(t, w.WriteField(fields[i], fields[i+1]))
	}
	require.NoError(t, w.Close())
	res, err := http.Post(base+"/api/v1/forms/"+slug+"/submit", w.FormDataContentType(), &buf)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

// TestPortalLinkNamesTheServer: "webhooks portal-link" prints an address a
// browser opens on this machine even when the server listens on every
// interface (":PORT", "0.0.0.0:PORT"), and the public one when given.
func TestPortalLinkNamesTheServer(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.SQLite)
	e := env{"GROUNDWORK_DB": dsn}
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir()}, e.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)
	port := base[strings.LastIndex(base, ":")+1:]
	for _, addr := range []string{":" + port, "0.0.0.0:" + port, "127.0.0.1:" + port} {
		code, out, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn, "GROUNDWORK_ADDR": addr}, "webhooks", "portal-link", "--owner", "acme")
		require.Equal(t, 0, code, stderr)
		link := strings.TrimSpace(out)
		require.True(t, strings.HasPrefix(link, "http://127.0.0.1:"+port+"/webhooks-portal/"), "%s: %s", addr, link)
		require.Contains(t, stderr, "give the public one")
		status, body := get(t, link, "")
		require.Equal(t, 200, status, body)
	}
	code, out, stderr := runCmd(t, e, "webhooks", "portal-link", "--owner", "acme", "--base-url", "https://hooks.example.com/")
	require.Equal(t, 0, code, stderr)
	require.True(t, strings.HasPrefix(out, "https://hooks.example.com/webhooks-portal/"), out)
	require.Empty(t, stderr)
}
