package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/textproto"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/store"
)

// smtpDouble is an SMTP server that refuses every session (421, as a
// server in maintenance does) until accept is set, then keeps each
// message by its Message-ID.
type smtpDouble struct {
	accept  atomic.Bool
	refused atomic.Int64
	mu      sync.Mutex
	got     map[string][]string // Message-ID → bodies
}

func (d *smtpDouble) NewSession(*smtp.Conn) (smtp.Session, error) {
	if !d.accept.Load() {
		d.refused.Add(1)
		return nil, &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Down for maintenance, try again later"}
	}
	return &smtpSession{d: d}, nil
}

type smtpSession struct{ d *smtpDouble }

func (s *smtpSession) Reset()                               { /* nothing kept between messages */ }
func (s *smtpSession) Logout() error                        { return nil }
func (s *smtpSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *smtpSession) Rcpt(string, *smtp.RcptOptions) error { return nil }

func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	h, err := textproto.NewReader(bufio.NewReader(strings.NewReader(string(b)))).ReadMIMEHeader()
	if err != nil {
		return err
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	id := h.Get("Message-Id")
	s.d.got[id] = append(s.d.got[id], string(b))
	return nil
}

// received is how many messages came, and how many IDs.
func (d *smtpDouble) received() (messages, ids int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, bodies := range d.got {
		messages += len(bodies)
	}
	return messages, len(d.got)
}

// outbox is "reference mail outbox --json" on the binary's database.
func outbox(t *testing.T, bin, dir string, environ []string) []store.WaitingJob {
	t.Helper()
	cmd := exec.Command(bin, "mail", "outbox", "--json")
	cmd.Dir, cmd.Env = dir, environ
	out, err := cmd.Output()
	require.NoError(t, err)
	var jobs []store.WaitingJob
	require.NoError(t, json.Unmarshal(out, &jobs), string(out))
	return jobs
}

// The mail server away (connections refused, then every session refused
// with a 421) while form notifications, booking mails and a password
// reset are made: the reset page says the mail is on its way, each mail
// waits in the outbox with its tries and last error, and when the server
// takes mail again each goes exactly once (counted by Message-ID).
func TestMailOutage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens: connections are refused
	_, port, _ := net.SplitHostPort(addr)

	bin := buildReference(t)
	dir := t.TempDir()
	environ := append(binaryEnv(t, store.SQLite), "GROUNDWORK_SMTP_HOST=127.0.0.1", "GROUNDWORK_SMTP_PORT="+port,
		"GROUNDWORK_SMTP_TLS=none", "GROUNDWORK_MAIL_FROM=site@example.test", "GROUNDWORK_FORM_TOKENS=optional")
	srv := startBinary(t, bin, dir, environ)
	cli := func(stdin string, args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, environ, strings.NewReader(stdin)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, stderr.String())
		return strings.TrimSpace(string(out))
	}
	token := cli("", "token", "create", "--name", "me", "--ability", "*")
	cli("correct horse battery\n", "user", "create", "--email", "ada@example.test", "--name", "Ada")

	code, body := postJSON(t, srv.base+"/api/v1/forms", token, `{"name":"Mail","min_fill_seconds":0}`)
	require.Equal(t, 201, code, body)
	code, body = postJSON(t, srv.base+"/api/v1/forms/mail/fields", token, `{"type":"text","label":"N","name":"n"}`)
	require.Equal(t, 201, code, body)
	code, body = postJSON(t, srv.base+"/api/v1/forms/mail/notifications", token, `{"type":"admin","recipients":"owner@example.test"}`)
	require.Equal(t, 201, code, body)
	bookableService(t, srv.base, token, "mail")

	for i := range 5 {
		res, err := http.PostForm(srv.base+"/api/v1/forms/mail/submit", url.Values{"n": {fmt.Sprint(i)}})
		require.NoError(t, err)
		require.Equal(t, 201, status(res))
	}
	tomorrow := time.Now().UTC().Truncate(24 * time.Hour).Add(48 * time.Hour)
	for i := range 3 {
		code, body := postJSON(t, srv.base+"/api/bookings", "", fmt.Sprintf(`{"service":"mail","start_time":%q,"customer_name":"C%d","customer_email":"c%d@example.test"}`,
			tomorrow.Add(time.Duration(i)*time.Hour).Format(time.RFC3339), i, i))
		require.Equal(t, 201, code, body)
	}
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar}
	res, err := browser.PostForm(srv.base+"/forgot-password", url.Values{"email": {"ada@example.test"}})
	require.NoError(t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, string(page), auth.MsgResetSent[:40], "the page says the mail is on its way")
	require.Contains(t, auth.MsgResetSent, "on its way")

	// Every mail waits, tried and refused, with why.
	var queued []store.WaitingJob
	require.Eventually(t, func() bool {
		queued = outbox(t, bin, dir, environ)
		if len(queued) < 5+3+1 {
			return false
		}
		for _, j := range queued {
			if j.Attempt < 1 || !strings.Contains(j.LastError, "connection refused") {
				return false
			}
		}
		return true
	}, 60*time.Second, 250*time.Millisecond, "the outbox shows every mail tried and refused")
	kinds := map[string]int{}
	for _, j := range queued {
		kinds[j.Kind]++
	}
	require.Equal(t, 5, kinds["forms_notification"], kinds)
	require.Equal(t, 1, kinds["auth_mail"], kinds)
	require.GreaterOrEqual(t, kinds["bookings_mail"], 3, kinds)
	text := cli("", "mail", "outbox")
	require.Contains(t, text, fmt.Sprintf("%d mails waiting", len(queued)))
	require.Contains(t, text, "form notification")
	require.Contains(t, text, "connection refused")

	// The server answers, but refuses every session for a while.
	double := &smtpDouble{got: map[string][]string{}}
	server := smtp.NewServer(double)
	server.Domain, server.AllowInsecureAuth = "mx.example.test", true
	l, err = net.Listen("tcp", addr)
	require.NoError(t, err)
	go func() { _ = server.Serve(l) }()
	t.Cleanup(func() { _ = server.Close() })
	require.Eventually(t, func() bool { return double.refused.Load() > 0 }, 60*time.Second, 50*time.Millisecond)
	time.Sleep(2 * time.Second)
	double.accept.Store(true)

	require.Eventually(t, func() bool {
		_, ids := double.received()
		return ids >= len(queued) && len(outbox(t, bin, dir, environ)) == 0
	}, 90*time.Second, 250*time.Millisecond, "every mail goes once the server takes mail")
	time.Sleep(time.Second) // nothing more comes
	messages, ids := double.received()
	require.Equal(t, len(queued), ids, "one Message-ID a mail")
	require.Equal(t, ids, messages, "no mail sent twice")
	double.mu.Lock()
	reset := 0
	for id, bodies := range double.got {
		require.Regexp(t, `^<[a-z_]+\.[0-9]+@example\.test>$`, id, "the job's own Message-ID")
		if strings.Contains(bodies[0], "/reset-password/") {
			reset++
		}
	}
	double.mu.Unlock()
	require.Equal(t, 1, reset, "the reset mail with its link")
	require.Equal(t, "No mail waiting.", cli("", "mail", "outbox"))
	t.Logf("mails queued %d %v; sessions refused %d; sent %d, %d Message-IDs, duplicated %d", len(queued), kinds, double.refused.Load(), messages, ids, messages-ids)
}
