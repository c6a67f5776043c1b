package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

// env is a fake environment for run.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// runCmd runs the program in-process and returns its exit status and output.
func runCmd(t *testing.T, e env, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, e.get, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

var tokenPattern = regexp.MustCompile(`^[1-9][0-9]*\|gw_[A-Za-z0-9]{40}$`)

// TestEveryCommandHasHelp: each command and sub-command answers --help
// (anywhere among its arguments) with its own usage, exit 0.
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"token", "--help"}, "reference token create"},
		{[]string{"token", "create", "--help"}, "--force"},
		{[]string{"token", "list", "-h"}, "reference token list"},
		{[]string{"token", "revoke", "3", "--help"}, "reference token revoke ID"},
		{[]string{"webhooks", "-help"}, "reference webhooks emit"},
		{[]string{"webhooks", "emit", "--help"}, "reference webhooks emit"},
		{[]string{"webhooks", "reconcile", "--help"}, "--minutes"},
		{[]string{"webhooks", "session", "--help"}, "--provider"},
		{[]string{"webhooks", "retry", "--help"}, "--log-level"},
		{[]string{"a11y", "--help"}, "reference a11y check"},
		{[]string{"a11y", "audit", "--help"}, "--fail"},
		{[]string{"help", "token"}, "--expires"},
		{[]string{"help", "serve"}, "--api-rate-limit"},
		{[]string{"serve", "--help"}, "Endpoints"},
	} {
		code, out, stderr := runCmd(t, env{}, c.args...)
		require.Equal(t, 0, code, "%v: %s", c.args, stderr)
		require.Contains(t, out, c.want, c.args)
		require.Contains(t, out, "Usage:", c.args)
	}
	code, _, stderr := runCmd(t, env{}, "help", "nope")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `no command "nope"`)
}

// TestHelpListsEveryRoute: the routes help and the index list are the
// ones the server mounts.
func TestHelpListsEveryRoute(t *testing.T) {
	t.Parallel()
	cfg, err := parseServeFlags([]string{"--uploads", t.TempDir()}, env{}.get)
	require.NoError(t, err)
	db := storetest.Open(t, store.SQLite, migrations...)
	a, err := newApp(cfg, db, webhooks.GenerateSecretKey(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	require.ElementsMatch(t, append([]string{"GET /healthz", "GET /readyz", "GET /{$}", "GET /openapi.json", "GET /docs/api"}, a.routes...), routes)
	_, out, _ := runCmd(t, env{}, "--help")
	for _, e := range endpoints() {
		require.Contains(t, out, "\n  "+e+"\n")
	}
	require.Contains(t, out, "GET|POST /api/v1/forms\n")
	w := httptest.NewRecorder()
	a.handler.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	var index struct{ Endpoints []string }
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &index))
	require.Equal(t, endpoints(), index.Endpoints)
}

func TestHelpDocumentsEverything(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"serve", "--help"}} {
		code, out, _ := runCmd(t, env{}, args...)
		require.Equal(t, 0, code, args)
		for _, want := range []string{"--addr", "--db", "--log-format", "--log-level", "--trusted-proxies", "--shutdown-timeout",
			"token create", "token list", "token revoke", "--name", "--ability", "--expires", "/healthz", "/api/v1/auth/token"} {
			require.Contains(t, out, want)
		}
		for _, v := range envVars {
			require.Contains(t, out, v.name)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	db := env{"GROUNDWORK_DB": "sqlite:" + filepath.Join(t.TempDir(), "u.db")}
	for _, args := range [][]string{
		{"--nope"}, {"extra"}, {"--log-format", "xml"}, {"--log-level", "loud"}, {"--trusted-proxies", "10.0.0.0/99"},
		{"--shutdown-timeout", "0s"}, {"token"}, {"token", "mint"}, {"token", "create", "--name", "x"},
		{"token", "create", "--ability", "*"}, {"token", "create", "--name", "x", "--ability", "a b"},
		{"token", "create", "--name", "x", "--ability", "*", "--expires", "soon"}, {"token", "revoke"}, {"token", "revoke", "x"},
		{"token", "list", "extra"},
	} {
		code, _, stderr := runCmd(t, db, args...)
		require.Equal(t, 2, code, "%v: %s", args, stderr)
		help := "'reference --help'"
		if args[0] == "token" {
			help = "'reference token --help'" // a sub-command's mistake points at its own help
		}
		require.Contains(t, stderr, help, args)
	}
	code, _, stderr := runCmd(t, env{"GROUNDWORK_SHUTDOWN_TIMEOUT": "later"}, "--addr", "127.0.0.1:0")
	require.Equal(t, 2, code, stderr)
}

func TestTokenCommands(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		// The flag and the variable name the same database.
		byFlag := func(args ...string) []string { return append(args, "--db", dsn) }
		byEnv := env{"GROUNDWORK_DB": dsn}

		code, out, stderr := runCmd(t, env{}, byFlag("token", "create", "--name", "ci", "--ability", "forms:*", "--ability", "a11y:ai", "--expires", "30d")...)
		require.Equal(t, 0, code, stderr)
		first := strings.TrimSpace(out)
		require.Regexp(t, tokenPattern, first)
		require.Contains(t, stderr, "shown only this once")

		code, out, _ = runCmd(t, byEnv, "token", "create", "--name", "me", "--ability", "*")
		require.Equal(t, 0, code)
		require.Regexp(t, tokenPattern, strings.TrimSpace(out))

		code, out, _ = runCmd(t, byEnv, "token", "list")
		require.Equal(t, 0, code)
		require.Contains(t, out, "ID  NAME  ABILITIES")
		require.Regexp(t, `(?m)^1\s+ci\s+forms:\*,a11y:ai\s+active\s+20\d\d-`, out)
		require.Regexp(t, `(?m)^2\s+me\s+\*\s+active\s+-`, out)
		require.NotContains(t, out, "gw_", "secrets are never listed")

		code, out, _ = runCmd(t, byEnv, "token", "revoke", "1")
		require.Equal(t, 0, code)
		require.Equal(t, "Token 1 (\"ci\") revoked.\n", out)
		code, out, _ = runCmd(t, byEnv, "token", "revoke", "1")
		require.Equal(t, 0, code, "revoking again is no failure")
		require.Regexp(t, `^Token 1 \("ci"\) was already revoked, at 20\d\d-\d\d-\d\dT`, out)

		// An ability no route checks is a typo until --force says not.
		for typo, meant := range map[string]string{"form:*": "forms:*", "forms:creat": "forms:create", "webhooks.*": "webhookSubscription.*",
			"a11y:aii": "a11y:ai"} {
			code, _, stderr = runCmd(t, byEnv, "token", "create", "--name", "typo", "--ability", typo)
			require.Equal(t, 2, code, typo)
			require.Contains(t, stderr, "no route checks the ability", typo)
			require.Contains(t, stderr, `(did you mean "`+meant+`"?)`, typo)
		}
		for _, ok := range []string{"forms:create", "webhookSubscription.*", "a11y:*", "webhookSubscription.replay"} {
			code, _, stderr = runCmd(t, byEnv, "token", "create", "--name", "known", "--ability", ok)
			require.Equal(t, 0, code, "%s: %s", ok, stderr)
		}
		code, _, stderr = runCmd(t, byEnv, "token", "create", "--name", "host", "--ability", "reports:view", "--force")
		require.Equal(t, 0, code, stderr)
		code, _, stderr = runCmd(t, byEnv, "token", "revoke", "99")
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "no token has ID 99")

		code, out, _ = runCmd(t, env{}, byFlag("token", "list", "--json")...)
		require.Equal(t, 0, code)
		var listed []map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &listed))
		require.Len(t, listed, 7)
		require.NotNil(t, listed[0]["revoked_at"])
		require.Nil(t, listed[1]["revoked_at"])
	})
}

func TestParseExpiry(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	cases := map[string]time.Time{
		"30d":                  now.AddDate(0, 0, 30),
		"720h":                 now.Add(720 * time.Hour),
		"2027-01-31":           time.Date(2027, 1, 31, 0, 0, 0, 0, time.UTC),
		"2027-01-31T08:00:00Z": time.Date(2027, 1, 31, 8, 0, 0, 0, time.UTC),
	}
	for in, want := range cases {
		got, err := parseExpiry(in, now)
		require.NoError(t, err, in)
		require.True(t, want.Equal(got), in)
	}
	for _, bad := range []string{"", "d", "-5d", "0h", "-1h", "tomorrow", "2027-13-01"} {
		_, err := parseExpiry(bad, now)
		require.Error(t, err, bad)
	}
}

// testSecretKey is a GROUNDWORK_SECRET_KEY for tests.
const testSecretKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// startServe runs serve in-process until the test ends.
func startServe(t *testing.T, dsn string) string {
	t.Helper()
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir()},
		env{"GROUNDWORK_SECRET_KEY": testSecretKey}.get)
	require.NoError(t, err)
	return startServeConfig(t, cfg)
}

// startServeConfig runs serve with cfg until the test ends.
func startServeConfig(t *testing.T, cfg *config) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	logs := &syncBuffer{}
	servedLogs.Store(t.Name(), logs)
	go func() { done <- serve(ctx, cfg, logs, func(a string) { addr <- a }) }()
	stopped := false
	t.Cleanup(func() {
		cancel()
		if !stopped {
			require.NoError(t, <-done, logs.String())
		}
	})
	select {
	case a := <-addr:
		return "http://" + a
	case err := <-done:
		stopped = true
		t.Fatalf("serve stopped: %v\n%s", err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	return ""
}

// servedLogs holds each test's server log, by test name.
var servedLogs sync.Map

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	return request(t, http.MethodGet, url, token, "")
}

// request sends a request, with a bearer token when given, and returns
// the status and the trimmed body.
func request(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, strings.TrimSpace(string(b))
}

func TestServe(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		base := startServe(t, dsn)

		code, body := get(t, base+"/healthz", "")
		require.Equal(t, 200, code)
		require.JSONEq(t, `{"status": "ok"}`, body)

		code, body = get(t, base+"/", "")
		require.Equal(t, 200, code)
		require.Contains(t, body, "/api/v1/auth/token")

		code, body = get(t, base+"/no/such/thing", "")
		require.Equal(t, 404, code)
		require.JSONEq(t, `{"message": "Not Found."}`, body)

		// A token made by the sub-command works against the running server.
		c, out, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn}, "token", "create", "--name", "me", "--ability", "*")
		require.Equal(t, 0, c, stderr)
		token := strings.TrimSpace(out)
		code, body = get(t, base+"/api/v1/auth/token", token)
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"name":"me"`)
		code, _ = get(t, base+"/api/v1/auth/token", "")
		require.Equal(t, 401, code)
	})
}

func TestHealthzFailsWithoutDatabase(t *testing.T) {
	t.Parallel()
	cfg, err := parseServeFlags(nil, env{}.get)
	require.NoError(t, err)
	cfg.uploads = t.TempDir() // not beside the default database, in the source tree
	cfg.webhooks.secretKey = testSecretKey
	db := storetest.Open(t, store.SQLite, migrations...)
	a, err := newApp(cfg, db, webhooks.GenerateSecretKey(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	require.NoError(t, db.Close())
	w := httptest.NewRecorder()
	a.handler.ServeHTTP(w, httptest.NewRequest("GET", "/healthz", nil))
	require.Equal(t, 503, w.Code)
	require.JSONEq(t, `{"status": "unavailable"}`, w.Body.String())
}

func TestPanicsAnswer500(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	h := recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }), newLogger(&config{logFormat: "json"}, &logs))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/x", nil))
	require.Equal(t, 500, w.Code)
	require.JSONEq(t, `{"message": "Server Error."}`, w.Body.String())
	require.Contains(t, logs.String(), `"panic":"boom"`)
}

// TestBinary builds the command and drives it as a newcomer would: serve,
// create a token with the sub-command, call the API, stop with SIGTERM.
func TestBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildReference(t)
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dir := t.TempDir()
		environ := binaryEnv(t, d)
		srv := startBinary(t, bin, dir, environ)
		base, logs, exited := srv.base, srv.logs, srv.exited
		code, body := get(t, base+"/healthz", "")
		require.Equal(t, 200, code, body)
		if d == store.SQLite {
			require.FileExists(t, filepath.Join(dir, "groundwork.db"))
		}

		create := exec.Command(bin, "token", "create", "--name", "me", "--ability", "*")
		create.Dir, create.Env = dir, environ
		var stdout, stderr bytes.Buffer
		create.Stdout, create.Stderr = &stdout, &stderr
		require.NoError(t, create.Run(), stderr.String())
		token := strings.TrimSpace(stdout.String())
		require.Regexp(t, tokenPattern, token)
		code, body = get(t, base+"/api/v1/auth/token", token)
		require.Equal(t, 200, code, body)
		code, _ = get(t, base+"/api/v1/auth/token", "")
		require.Equal(t, 401, code)

		// A webhook: subscribe a local receiver, emit a test event with the
		// sub-command, and watch the signed delivery arrive.
		got := make(chan *http.Request, 1)
		bodies := make(chan []byte, 1)
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			bodies <- b
			got <- r
		}))
		defer receiver.Close()
		code, body = postJSON(t, base+"/api/ecommerce/v1/admin/webhook-subscriptions", token,
			`{"name":"local","url":"`+receiver.URL+`/hook","events":["order.placed"]}`)
		require.Equal(t, 201, code, body)
		var created struct {
			Data struct {
				Secret string `json:"secret"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &created))
		emit := exec.Command(bin, "webhooks", "emit", "order.placed", "--data", `{"order":{"id":42}}`)
		emit.Dir, emit.Env = dir, environ
		out, err := emit.CombinedOutput()
		require.NoError(t, err, string(out))
		require.Contains(t, string(out), "recorded for 1 subscription(s)")
		select {
		case r := <-got:
			b := <-bodies
			require.Equal(t, "order.placed", r.Header.Get("X-Platform-Event"))
			require.NoError(t, webhooks.Verify(created.Data.Secret, r.Header.Get("X-Platform-Signature"), b, time.Now(), 0))
			require.Contains(t, string(b), `"data":{"order":{"id":42}}`)
		case <-time.After(30 * time.Second):
			t.Fatalf("no delivery arrived:\n%s", logs)
		}
		if d == store.SQLite {
			info, err := os.Stat(filepath.Join(dir, "groundwork.key"))
			require.NoError(t, err, "the secret key is kept beside the database")
			require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
		}
		retry := exec.Command(bin, "webhooks", "retry")
		retry.Dir, retry.Env = dir, environ
		out, err = retry.CombinedOutput()
		require.NoError(t, err, string(out))
		require.Contains(t, string(out), "Queued 0 due deliveries.")

		require.NoError(t, srv.cmd.Process.Signal(syscall.SIGTERM))
		select {
		case err := <-exited:
			require.NoError(t, err, logs.String())
		case <-time.After(30 * time.Second):
			t.Fatalf("no exit after SIGTERM:\n%s", logs)
		}
		require.Contains(t, logs.String(), `"msg":"stopped"`)
	})
}

// buildReference builds the reference binary into a temporary directory.
func buildReference(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "reference")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// binaryEnv is the environment the binary runs with on dialect d: any
// free loopback port, JSON logs, webhooks to local receivers.
func binaryEnv(t *testing.T, d store.Dialect) []string {
	t.Helper()
	environ := append(os.Environ(), "GROUNDWORK_ADDR=127.0.0.1:0", "GROUNDWORK_LOG_FORMAT=json",
		"GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS=true", "GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS=true")
	if d == store.Postgres {
		environ = append(environ, "GROUNDWORK_DB="+storetest.DSN(t, d), "GROUNDWORK_SECRET_KEY="+testSecretKey)
	}
	return environ
}

// binaryToken makes an API token with every ability by running bin token
// create in dir with environ, as the server there runs.
func binaryToken(t *testing.T, bin, dir string, environ []string) string {
	t.Helper()
	create := exec.Command(bin, "token", "create", "--name", "me", "--ability", "*")
	create.Dir, create.Env = dir, environ
	out, err := create.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// binary is a running reference process.
type binary struct {
	cmd    *exec.Cmd
	base   string
	logs   *syncBuffer
	exited chan error
}

// startBinary runs bin serve in dir (where the default database lands)
// with environ, and waits until it listens; it is killed when the test
// ends.
func startBinary(t *testing.T, bin, dir string, environ []string, args ...string) *binary {
	t.Helper()
	b := &binary{cmd: exec.Command(bin, args...), logs: &syncBuffer{}, exited: make(chan error, 1)}
	b.cmd.Dir, b.cmd.Env = dir, environ
	b.cmd.Stdout, b.cmd.Stderr = b.logs, b.logs
	require.NoError(t, b.cmd.Start())
	go func() { b.exited <- b.cmd.Wait() }()
	t.Cleanup(func() { _ = b.cmd.Process.Kill() })
	require.Eventually(t, func() bool {
		m := regexp.MustCompile(`"msg":"listening","addr":"(http://[^"]+)"`).FindStringSubmatch(b.logs.String())
		if m != nil {
			b.base = m[1]
		}
		return m != nil
	}, 30*time.Second, 50*time.Millisecond, "no listening line:\n%s", b.logs)
	return b
}

// Listening beyond loopback without a base URL is warned about at start:
// links in mail would point at the listening address.
func TestWarnsWithoutBaseURLBeyondLoopback(t *testing.T) {
	t.Parallel()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "w.db")
	for _, c := range []struct {
		args []string
		warn bool
	}{
		{[]string{"--addr", "0.0.0.0:0"}, true},
		{[]string{"--addr", "0.0.0.0:0", "--base-url", "https://app.example.com"}, false},
		{[]string{"--addr", "127.0.0.1:0"}, false},
	} {
		cfg, err := parseServeFlags(append(c.args, "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir()),
			env{"GROUNDWORK_SECRET_KEY": testSecretKey}.get)
		require.NoError(t, err)
		name := t.Name() + strings.Join(c.args, " ")
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			startServeConfig(t, cfg)
			v, _ := servedLogs.Load(t.Name())
			require.Equal(t, c.warn, strings.Contains(v.(*syncBuffer).String(), "without --base-url"), name)
		})
	}
}

// A sub-command given another secret key than the database knows refuses
// before it changes anything, as the server does; emaillist ping without
// a provider says what to set.
func TestSubcommandsRefuseAnotherSecretKey(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	keyA := env{"GROUNDWORK_DB": db, "GROUNDWORK_SECRET_KEY": testSecretKey}
	code, _, stderr := runCmd(t, keyA, "token", "create", "--name", "a", "--ability", "*")
	require.Equal(t, 0, code, stderr)
	other := base64.StdEncoding.EncodeToString(webhooks.GenerateSecretKey())
	keyB := env{"GROUNDWORK_DB": db, "GROUNDWORK_SECRET_KEY": other}
	for _, args := range [][]string{{"token", "create", "--name", "b", "--ability", "*"}, {"user", "list"}, {"bookings", "complete-past"}} {
		code, _, stderr = runCmd(t, keyB, args...)
		require.Equal(t, 1, code, "%v: %s", args, stderr)
		require.Contains(t, stderr, "secret key", args)
	}
	code, out, stderr := runCmd(t, keyA, "token", "list", "--json")
	require.Equal(t, 0, code, stderr)
	var tokens []struct{ Name string }
	require.NoError(t, json.Unmarshal([]byte(out), &tokens))
	require.Len(t, tokens, 1, "nothing was made with the other key")
	require.Equal(t, "a", tokens[0].Name)

	code, _, stderr = runCmd(t, env{}, "emaillist", "ping")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "GROUNDWORK_EMAILLIST_PROVIDER")
}

// /readyz: 200 only with the database answering, the schema current and
// the job queue running, else 503 with each reason; /healthz stays the
// liveness check.
func TestReadiness(t *testing.T) {
	t.Parallel()
	cfg, err := parseServeFlags(nil, env{}.get)
	require.NoError(t, err)
	cfg.uploads = t.TempDir()
	cfg.webhooks.secretKey = testSecretKey
	// A schema one line short, and a queue never started.
	db := storetest.Open(t, store.SQLite, migrations[:len(migrations)-1]...)
	a, err := newApp(cfg, db, webhooks.GenerateSecretKey(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	ready := func() (int, string) {
		w := httptest.NewRecorder()
		a.handler.ServeHTTP(w, httptest.NewRequest("GET", "/readyz", nil))
		return w.Code, w.Body.String()
	}
	code, body := ready()
	require.Equal(t, 503, code)
	require.JSONEq(t, `{"status": "unavailable", "reasons": ["migrations not applied: reporting 0009_baseline, reporting 0010_visitor_days, reporting 0011_day_versions, reporting 0012_day_columns, reporting 0013_day_changes, reporting 0014_goal_owners, reporting 0015_sites, reporting 0016_hosts", "the job queue is not running"]}`, body)
	require.NoError(t, store.Migrate(context.Background(), db, migrations...))
	require.NoError(t, a.queue.Start(context.Background()))
	code, body = ready()
	require.Equal(t, 200, code, body)
	require.JSONEq(t, `{"status": "ready"}`, body)
	require.NoError(t, a.queue.Stop(context.Background()))
	require.NoError(t, db.Close())
	code, body = ready()
	require.Equal(t, 503, code)
	require.JSONEq(t, `{"status": "unavailable", "reasons": ["the database does not answer", "the job queue is not running"]}`, body)
}

// A stopping server with a drain delay keeps serving for it, /readyz at
// 503 ("shutting down") and everything else as before, then stops.
func TestDrainKeepsServing(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", storetest.DSN(t, d), "--log-level", "warn",
			"--uploads", t.TempDir(), "--drain-delay", "1500ms"}, env{"GROUNDWORK_SECRET_KEY": testSecretKey}.get)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		addr := make(chan string, 1)
		done := make(chan error, 1)
		go func() { done <- serve(ctx, cfg, io.Discard, func(a string) { addr <- a }) }()
		base := "http://" + <-addr
		code, body := get(t, base+"/readyz", "")
		require.Equal(t, 200, code, body)
		cancel()
		deadline := time.Now().Add(time.Second)
		for {
			code, body = get(t, base+"/readyz", "")
			if code == 503 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		require.Equal(t, 503, code)
		require.JSONEq(t, `{"status": "unavailable", "reasons": ["shutting down"]}`, body)
		code, _ = get(t, base+"/healthz", "")
		require.Equal(t, 200, code, "alive while draining")
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(20 * time.Second):
			t.Fatal("serve did not stop")
		}
		_, err = http.Get(base + "/healthz")
		require.Error(t, err, "stopped")
	})
}

// A mistyped database address is refused as a usage error naming the
// form to use, before any file (the database, its key, its uploads) is
// made of it; sub-commands refuse it too.
func TestMistypedDatabaseAddress(t *testing.T) {
	t.Parallel()
	for _, dsn := range []string{"postgres:app_db", "postgresql:app", "mysql://root@localhost/app"} {
		_, err := parseServeFlags([]string{"--db", dsn}, env{}.get)
		var usage usageError
		require.ErrorAs(t, err, &usage, dsn)
		require.Contains(t, err.Error(), "--db", dsn)
		require.Contains(t, err.Error(), "not a database address", dsn)
	}
	_, err := parseServeFlags([]string{"--db", "postgres:app_db"}, env{}.get)
	require.Contains(t, err.Error(), "postgres://USER@HOST/DATABASE")
	code, _, stderr := runCmd(t, env{}, "token", "create", "--name", "me", "--ability", "*", "--db", "postgres:app_db")
	require.NotZero(t, code)
	require.Contains(t, stderr, "postgres://")
	require.NoFileExists(t, "postgres:app_db")
	require.NoFileExists(t, "postgres:app_db.key")
}

// The server migrates through its environment, the commands through
// openDB: both apply the same lines, in the same order.
func TestServerAndCommandsMigrateTheSameLines(t *testing.T) {
	t.Parallel()
	cfg, err := parseServeFlags([]string{"--uploads", t.TempDir()}, env{}.get)
	require.NoError(t, err)
	a, err := newApp(cfg, storetest.Open(t, store.SQLite, migrations...), webhooks.GenerateSecretKey(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	lines := func(ms []store.Migrations) (out []string) {
		for _, m := range ms {
			out = append(out, m.Line)
		}
		return out
	}
	require.Equal(t, lines(migrations), lines(a.env.Migrations()))
}
