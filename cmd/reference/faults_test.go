package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
)

// cluster is a throw-away Postgres of a test's own, which it may stop and
// start.
type cluster struct {
	t       *testing.T
	pgCtl   string
	data    string
	log     string
	as      []string // the command prefix that runs as the postgres user
	DSN     string
	options string
}

// startCluster makes and starts a Postgres cluster in a temporary
// directory on a free loopback port, or skips the test saying what is
// missing. As root it runs the server as the postgres user (Postgres
// refuses root).
func startCluster(t *testing.T) *cluster {
	t.Helper()
	initdb, err := exec.LookPath("initdb")
	if err != nil {
		found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
		if len(found) == 0 {
			t.Skip("no initdb here (the postgresql package) to make a throw-away cluster")
		}
		initdb = found[len(found)-1]
	}
	bin := filepath.Dir(initdb)
	c := &cluster{t: t, pgCtl: filepath.Join(bin, "pg_ctl")}
	root, err := os.MkdirTemp("", "gw-cluster-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	c.data, c.log = filepath.Join(root, "data"), filepath.Join(root, "postgres.log")
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root without a postgres user to run a cluster as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		require.NoError(t, os.Chmod(root, 0o755))
		require.NoError(t, os.Chown(root, uid, gid))
		c.as = []string{"runuser", "-u", "postgres", "--"}
	}
	c.run(initdb, "-D", c.data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	c.options = fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100", port, root)
	c.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	c.Start()
	t.Cleanup(c.stopQuietly)
	return c
}

func (c *cluster) run(name string, args ...string) {
	c.t.Helper()
	cmd := append(append([]string{}, c.as...), append([]string{name}, args...)...)
	out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput()
	require.NoError(c.t, err, "%s: %s", strings.Join(cmd, " "), out)
}

// Start starts the server and waits until it takes connections.
func (c *cluster) Start() {
	c.t.Helper()
	c.run(c.pgCtl, "-D", c.data, "-o", c.options, "-l", c.log, "-w", "start")
}

// Stop stops the server the way an operator's restart does: the clients
// cut off, what was committed kept.
func (c *cluster) Stop() {
	c.t.Helper()
	c.run(c.pgCtl, "-D", c.data, "-m", "fast", "-w", "stop")
}

func (c *cluster) stopQuietly() {
	cmd := append(append([]string{}, c.as...), c.pgCtl, "-D", c.data, "-m", "immediate", "-w", "stop")
	_ = exec.Command(cmd[0], cmd[1:]...).Run()
}

// outcomes counts a burst's answers by status; a 503 without a
// Retry-After counts as 599.
type outcomes struct {
	mu    sync.Mutex
	codes map[int]int
}

func (o *outcomes) add(res *http.Response, err error) int {
	code := status(res)
	if err != nil {
		code = 0
	}
	if code == http.StatusServiceUnavailable && res.Header.Get("Retry-After") == "" {
		code = 599
	}
	o.mu.Lock()
	if o.codes == nil {
		o.codes = map[int]int{}
	}
	o.codes[code]++
	o.mu.Unlock()
	return code
}

// only checks that every answer was one of ok or a 503 with a
// Retry-After (no 500, no hang past the client's deadline, no dropped
// connection), and returns how many 503s there were.
func (o *outcomes) only(t *testing.T, what string, ok ...int) int {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for code, n := range o.codes {
		if code != http.StatusServiceUnavailable && !contains(ok, code) {
			t.Errorf("%s: %d answered %d (0: no answer in time; 599: a 503 without Retry-After); all: %v", what, n, code, o.codes)
		}
	}
	return o.codes[http.StatusServiceUnavailable]
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// readiness is /readyz's status and reasons.
func readiness(t *testing.T, base string) (int, []string) {
	t.Helper()
	res, err := http.Get(base + "/readyz")
	if err != nil {
		return 0, []string{err.Error()}
	}
	defer res.Body.Close()
	var body struct {
		Reasons []string `json:"reasons"`
	}
	_ = json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body.Reasons
}

// The database restarted under a burst of submissions, bookings and page
// views (with a webhook for each submission and booking): while it is
// down every answer is a 503 with a Retry-After (never a 500 or a hang),
// /readyz says why; when it is back the server carries on by itself (pool,
// job queue, delivery loop, analytics writer); every submission and
// booking answered 201 is stored once, every view answered 202 is counted,
// and every stored change's webhook arrives (at least once).
func TestDatabaseRestart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs a Postgres cluster")
	}
	pg := startCluster(t)
	bin := buildReference(t)
	dir := t.TempDir()
	environ := append(os.Environ(), "GROUNDWORK_ADDR=127.0.0.1:0", "GROUNDWORK_LOG_FORMAT=json",
		"GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS=true", "GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS=true",
		"GROUNDWORK_DB="+pg.DSN, "GROUNDWORK_SECRET_KEY="+testSecretKey,
		"GROUNDWORK_FORMS_SUBMIT_LIMIT=off", "GROUNDWORK_API_RATE_LIMIT=off", "GROUNDWORK_FORM_TOKENS=optional",
		"GROUNDWORK_BOOKINGS_POST_LIMIT=off", "GROUNDWORK_ANALYTICS_COLLECT_LIMIT=off",
		// A delivery sent as the database went away, whose outcome could
		// not be recorded, is sent again once its claim times out, as
		// after a SIGKILL: the shortest claim, so the wait for it stays
		// within the test's (under the race detector, on two busy cores,
		// such a delivery is likely).
		"GROUNDWORK_WEBHOOKS_CLAIM_TIMEOUT=30s")
	srv := startBinary(t, bin, dir, environ)
	t.Cleanup(func() {
		if t.Failed() { // what the server said last, and whether it exited
			logs := srv.logs.String()
			t.Logf("the server's last log lines:\n%s", logs[max(0, len(logs)-6000):])
			select {
			case err := <-srv.exited:
				t.Logf("the server exited: %v", err)
			default:
			}
		}
	})
	token := binaryToken(t, bin, dir, environ)
	killSite(t, srv.base, token)
	hooks := killHooks(t, srv.base, token)

	w := startWrites(t, srv.base)
	submissions, bookingsMade, subs, books := w.submissions, w.bookingsMade, w.subs, w.books
	var views outcomes
	viewed := burst(t, 2, func(client *http.Client, c, i int) (string, int, error) {
		n := fmt.Sprintf("/v/%d-%d", c, i)
		req, _ := http.NewRequest("POST", srv.base+"/analytics/collect", strings.NewReader(`{"name":"pageview","url":"`+srv.base+n+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0")
		res, err := client.Do(req)
		code := views.add(res, err)
		if code == http.StatusAccepted {
			code = http.StatusCreated // acknowledged
		}
		return n, code, err
	})
	acked := func(n int) func() bool {
		return func() bool { return submissions.acked() >= n && bookingsMade.acked() >= n && viewed.acked() >= n }
	}
	require.Eventually(t, acked(50), 60*time.Second, 5*time.Millisecond)

	pg.Stop()
	down := time.Now()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		start := time.Now()
		code, reasons := readiness(t, srv.base)
		assert.Equal(c, http.StatusServiceUnavailable, code, "/readyz answered in %v: %q", time.Since(start), reasons)
		assert.Contains(c, strings.Join(reasons, "; "), "database")
	}, 10*time.Second, 100*time.Millisecond, "/readyz says the database is away")
	_, reasons := readiness(t, srv.base)
	time.Sleep(3*time.Second - time.Since(down))
	before := []int{submissions.acked(), bookingsMade.acked(), viewed.acked()}
	pg.Start()
	back := time.Now()
	require.Eventually(t, func() bool { code, _ := readiness(t, srv.base); return code == http.StatusOK }, 60*time.Second, 100*time.Millisecond,
		"/readyz ready again without a restart")
	recovered := time.Since(back)
	require.Eventually(t, func() bool {
		return submissions.acked() >= before[0]+50 && bookingsMade.acked() >= before[1]+50 && viewed.acked() >= before[2]+50
	}, 60*time.Second, 10*time.Millisecond, "writes taken again")
	submissions.stop()
	bookingsMade.stop()
	viewed.stop()

	refused := subs.only(t, "submissions", http.StatusCreated) + books.only(t, "bookings", http.StatusCreated) + views.only(t, "views", http.StatusAccepted)
	require.Positive(t, refused, "some writes met the database away")
	submitted := exportedValues(t, srv.base, token, "kill", "N")
	submissions.check(t, "submission", submitted)
	stored := map[string]int{}
	for _, n := range submitted {
		stored["form.submitted "+n]++
	}
	booked := bookingCustomers(t, srv.base, token)
	bookingsMade.check(t, "booking", booked)
	for _, n := range booked {
		stored["booking.created "+n]++
	}
	repeated := hooks.await(t, stored)
	var counted float64
	require.Eventually(t, func() bool {
		code, body := get(t, srv.base+"/analytics-reporting/overview?days=1", token)
		require.Equal(t, 200, code, body)
		var ov struct {
			Totals struct {
				PageViews float64 `json:"page_views"`
			}
		}
		require.NoError(t, json.Unmarshal([]byte(body), &ov))
		counted = ov.Totals.PageViews
		return counted >= float64(len(viewed.ok))
	}, 30*time.Second, 200*time.Millisecond, "every view answered 202 is counted")
	require.LessOrEqual(t, counted, float64(len(viewed.sent)), "no view counted twice")
	require.Contains(t, srv.logs.String(), `"msg":"database unavailable: answering 503"`)
	require.NotContains(t, srv.logs.String(), `"msg":"request failed"`, "no request failed as a bug")
	t.Logf("readyz while down: %v; ready %s after the start; answers: submissions %v, bookings %v, views %v; "+
		"stored: %d submissions (%d acknowledged), %d bookings (%d acknowledged), %.0f views (%d acknowledged, %d sent); %d webhooks, %d again",
		reasons, recovered.Round(time.Millisecond), subs.codes, books.codes, views.codes,
		len(submitted), len(submissions.ok), len(booked), len(bookingsMade.ok), counted, len(viewed.ok), len(viewed.sent), len(stored)+repeated, repeated)
}

// tmpfs mounts a tmpfs of size bytes on a new temporary directory, or
// skips the test saying why it cannot (mounting takes root).
func tmpfs(t *testing.T, size int) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gw-tmpfs-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.Remove(dir) })
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (it takes root and the mount capability): %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// ext4 mounts a new ext4 file system of size bytes (a file on a loop
// device) on a temporary directory, or skips the test saying why it
// cannot (mounting takes root and a loop device).
func ext4(t *testing.T, size int64) string {
	t.Helper()
	root, err := os.MkdirTemp("", "gw-ext4-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	img, dir := filepath.Join(root, "fs.img"), filepath.Join(root, "mnt")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(img, nil, 0o600))
	require.NoError(t, os.Truncate(img, size))
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput(); err != nil {
		t.Skipf("cannot make an ext4 file system here (e2fsprogs): %v: %s", err, out)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a loop device here (it takes root and a loop device): %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// immutable sets or clears the immutable attribute of the files: ext4
// then refuses writes through handles already open (EPERM), as a file
// system remounted read-only after an error refuses them (EROFS).
func immutable(t *testing.T, on bool, files ...string) {
	t.Helper()
	flag := map[bool]string{true: "+i", false: "-i"}[on]
	out, err := exec.Command("chattr", append([]string{flag}, files...)...).CombinedOutput()
	require.NoError(t, err, string(out))
}

// writeLoad is submissions and bookings sent to srv as fast as four
// clients can, with their answers counted.
type writeLoad struct {
	subs, books               *outcomes
	submissions, bookingsMade *load
}

func startWrites(t *testing.T, base string) *writeLoad {
	t.Helper()
	w := &writeLoad{subs: &outcomes{}, books: &outcomes{}}
	tomorrow := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	w.submissions = burst(t, 2, func(client *http.Client, c, i int) (string, int, error) {
		n := fmt.Sprintf("%d-%d", c, i)
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.WriteField("n", n)
		_ = mw.Close()
		res, err := client.Post(base+"/api/v1/forms/kill/submit", mw.FormDataContentType(), &buf)
		return n, w.subs.add(res, err), err
	})
	w.bookingsMade = burst(t, 2, func(client *http.Client, c, i int) (string, int, error) {
		n := fmt.Sprintf("%d-%d", c, i)
		start := tomorrow.Add(time.Duration(c)*30*24*time.Hour + time.Duration(i)*15*time.Minute)
		res, err := client.Post(base+"/api/bookings", "application/json", strings.NewReader(fmt.Sprintf(
			`{"service":"kill","start_time":%q,"customer_name":%q,"customer_email":"kill@example.test"}`, start.Format(time.RFC3339), n)))
		return n, w.books.add(res, err), err
	})
	return w
}

// acked reports whether at least n more of each were acknowledged than
// the counts of from.
func (w *writeLoad) acked(n int, from [2]int) func() bool {
	return func() bool { return w.submissions.acked() >= from[0]+n && w.bookingsMade.acked() >= from[1]+n }
}

func (w *writeLoad) counts() [2]int { return [2]int{w.submissions.acked(), w.bookingsMade.acked()} }

func (w *writeLoad) stop() {
	w.submissions.stop()
	w.bookingsMade.stop()
}

// check stops the load and checks every acknowledged write is stored once
// and every answer was a 201 or a 503 with a Retry-After; it returns the
// 503s.
func (w *writeLoad) check(t *testing.T, base, token string) int {
	t.Helper()
	w.stop()
	refused := w.subs.only(t, "submissions", http.StatusCreated) + w.books.only(t, "bookings", http.StatusCreated)
	w.submissions.check(t, "submission", exportedValues(t, base, token, "kill", "N"))
	w.bookingsMade.check(t, "booking", bookingCustomers(t, base, token))
	return refused
}

// killSite makes the form "kill" (one text field, n) and the bookable
// service "kill" the burst tests write to.
func killSite(t *testing.T, base, token string) {
	t.Helper()
	code, body := postJSON(t, base+"/api/v1/forms", token, `{"name":"Kill","min_fill_seconds":0}`)
	require.Equal(t, 201, code, body)
	code, body = postJSON(t, base+"/api/v1/forms/kill/fields", token, `{"type":"text","label":"N","name":"n"}`)
	require.Equal(t, 201, code, body)
	bookableService(t, base, token, "kill")
}

// killHooks subscribes a webhook counter to the form submissions and
// bookings of killSite.
func killHooks(t *testing.T, base, token string) *webhookCounter {
	t.Helper()
	hooks := newWebhookCounter(t)
	code, body := postJSON(t, base+"/api/ecommerce/v1/admin/webhook-subscriptions", token,
		`{"name":"local","url":"`+hooks.URL+`/hook","events":["form.submitted","booking.created"]}`)
	require.Equal(t, 201, code, body)
	return hooks
}

// sqliteServer runs the binary on an SQLite file at path with a form and
// a bookable service, and returns it and an all-abilities token.
func sqliteServer(t *testing.T, path string) (*binary, string, []string) {
	t.Helper()
	bin := buildReference(t)
	environ := append(os.Environ(), "GROUNDWORK_ADDR=127.0.0.1:0", "GROUNDWORK_LOG_FORMAT=json",
		"GROUNDWORK_DB=sqlite:"+path, "GROUNDWORK_SECRET_KEY="+testSecretKey,
		"GROUNDWORK_FORMS_SUBMIT_LIMIT=off", "GROUNDWORK_API_RATE_LIMIT=off", "GROUNDWORK_FORM_TOKENS=optional",
		"GROUNDWORK_BOOKINGS_POST_LIMIT=off")
	dir := t.TempDir()
	srv := startBinary(t, bin, dir, environ)
	token := binaryToken(t, bin, dir, environ)
	killSite(t, srv.base, token)
	return srv, token, environ
}

// integrity runs SQLite's integrity check on the file at path.
func integrity(t *testing.T, path string) string {
	t.Helper()
	db, err := store.Open(context.Background(), "sqlite:"+path)
	require.NoError(t, err)
	defer db.Close()
	var res string
	require.NoError(t, db.Reader().Get(&res, "PRAGMA integrity_check"))
	return res
}

// underFault serves on the SQLite file at path and writes to it as fast
// as four clients can; once some writes are acknowledged it makes the
// fault, waits until noticed says the server saw it, keeps it for hold and
// heals it. Then the server must carry on by itself: ready again and taking
// writes, every write answered 201 stored once, some refused with a 503
// and a Retry-After meanwhile and none failed as a bug, and the file sound.
// It returns /readyz's reasons while the fault lasted, and the load.
func underFault(t *testing.T, path string, fault, heal func(), noticed func(srv *binary) bool, hold time.Duration) ([]string, *writeLoad) {
	t.Helper()
	srv, token, _ := sqliteServer(t, path)
	w := startWrites(t, srv.base)
	require.Eventually(t, w.acked(30, [2]int{}), 60*time.Second, 5*time.Millisecond)
	fault()
	require.Eventually(t, func() bool { return noticed(srv) }, 30*time.Second, 50*time.Millisecond, "the server sees the fault")
	_, reasons := readiness(t, srv.base)
	time.Sleep(hold)
	heal()
	back := w.counts()
	require.Eventually(t, func() bool { code, _ := readiness(t, srv.base); return code == http.StatusOK }, 30*time.Second, 50*time.Millisecond)
	require.Eventually(t, w.acked(30, back), 60*time.Second, 5*time.Millisecond, "writes taken again")
	require.Positive(t, w.check(t, srv.base, token))
	require.Contains(t, srv.logs.String(), `"msg":"database unavailable: answering 503"`)
	require.NotContains(t, srv.logs.String(), `"msg":"request failed"`)
	_ = srv.cmd.Process.Kill()
	<-srv.exited
	require.Equal(t, "ok", integrity(t, path))
	return reasons, w
}

// The SQLite file and its write-ahead log refusing writes for a while
// (made immutable: writes through the open handles fail, as on a file
// system remounted read-only) under a burst of writes: every write
// meanwhile is a 503 with a Retry-After, /readyz says writes fail, and
// when the files take writes again the server carries on by itself; every
// write answered 201 is stored once, and the file is sound.
func TestSQLiteReadOnlyForAWhile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	path := filepath.Join(ext4(t, 128<<20), "gw.db")
	files := []string{path, path + "-wal"}
	t.Cleanup(func() { _ = exec.Command("chattr", append([]string{"-i"}, files...)...).Run() })
	reasons, w := underFault(t, path, func() { immutable(t, true, files...) }, func() { immutable(t, false, files...) },
		func(srv *binary) bool {
			code, reasons := readiness(t, srv.base)
			return code == http.StatusServiceUnavailable && strings.Contains(strings.Join(reasons, "; "), "writes fail")
		}, 2*time.Second)
	t.Logf("readyz while read-only: %v; answers: submissions %v, bookings %v", reasons, w.subs.codes, w.books.codes)
}

// The disk under the SQLite file full (a small tmpfs filled by another
// file) under a burst of writes: writes are 503s with a Retry-After and a
// log line naming the full disk, nothing stored is damaged (the integrity
// check), and once space is freed the server carries on by itself.
func TestSQLiteDiskFull(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := tmpfs(t, 48<<20)
	filler := filepath.Join(dir, "filler")
	fill := func() {
		f, err := os.Create(filler)
		require.NoError(t, err)
		chunk := make([]byte, 1<<16)
		for {
			if _, err := f.Write(chunk); err != nil {
				require.ErrorIs(t, err, syscall.ENOSPC)
				break
			}
		}
		require.NoError(t, f.Close())
	}
	reasons, w := underFault(t, filepath.Join(dir, "gw.db"), fill, func() { require.NoError(t, os.Remove(filler)) },
		func(srv *binary) bool { return strings.Contains(srv.logs.String(), `"cause":"the disk is full"`) }, time.Second)
	t.Logf("readyz while full: %v; answers: submissions %v, bookings %v", reasons, w.subs.codes, w.books.codes)
}
