package mail_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/mail"
)

// smtpServer is a minimal SMTP server that speaks just enough of RFC 5321
// (and AUTH PLAIN) for a real client to deliver to it.
type smtpServer struct {
	ln       net.Listener
	tls      *tls.Config // offers STARTTLS when set
	user     string
	password string
	// failRcpt makes RCPT TO answer 550 for this address.
	failRcpt string

	mu       sync.Mutex
	received []received
}

type received struct {
	from string
	rcpt []string
	data string
	auth string
}

func newSMTPServer(t *testing.T) *smtpServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &smtpServer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *smtpServer) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

func (s *smtpServer) serve(c net.Conn) {
	defer func() { c.Close() }()
	r := bufio.NewReader(c)
	reply := func(line string) { fmt.Fprintf(c, "%s\r\n", line) }
	reply("220 test.local ESMTP")
	var cur received
	encrypted := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(strings.SplitN(line, " ", 2)[0])
		switch verb {
		case "EHLO", "HELO":
			reply("250-test.local")
			if s.tls != nil && !encrypted {
				reply("250-STARTTLS")
			}
			if s.user != "" {
				reply("250-AUTH PLAIN")
			}
			reply("250 8BITMIME")
		case "STARTTLS":
			reply("220 ready")
			tc := tls.Server(c, s.tls)
			if err := tc.Handshake(); err != nil {
				return
			}
			c, r, encrypted = tc, bufio.NewReader(tc), true
		case "AUTH":
			parts := strings.Fields(line)
			raw, _ := base64.StdEncoding.DecodeString(parts[len(parts)-1])
			fields := strings.Split(string(raw), "\x00")
			if len(fields) == 3 && fields[1] == s.user && fields[2] == s.password {
				cur.auth = fields[1]
				reply("235 ok")
			} else {
				reply("535 bad credentials")
			}
		case "MAIL":
			if s.user != "" && cur.auth == "" {
				reply("530 authentication required")
				continue
			}
			cur.from = strings.TrimSuffix(strings.TrimPrefix(strings.Fields(line)[1], "FROM:<"), ">")
			reply("250 ok")
		case "RCPT":
			to := strings.TrimSuffix(strings.TrimPrefix(strings.Fields(line)[1], "TO:<"), ">")
			if to == s.failRcpt {
				reply("550 no such user")
				continue
			}
			cur.rcpt = append(cur.rcpt, to)
			reply("250 ok")
		case "DATA":
			reply("354 go ahead")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			cur.data = b.String()
			s.mu.Lock()
			s.received = append(s.received, cur)
			s.mu.Unlock()
			cur = received{auth: cur.auth}
			reply("250 queued")
		case "RSET", "NOOP":
			reply("250 ok")
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("502 not implemented")
		}
	}
}

// testTLS borrows httptest's certificate (valid for 127.0.0.1): the
// server's config, and a client config that trusts it.
func testTLS(t *testing.T) (server, client *tls.Config) {
	ts := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(ts.Close)
	client = ts.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	return &tls.Config{Certificates: ts.TLS.Certificates}, client
}

func (s *smtpServer) messages() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.received...)
}

func TestSMTPMailer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("SendsTextAndHTMLOverStartTLSWithAuth", func(t *testing.T) {
		t.Parallel()
		srv := newSMTPServer(t)
		srv.user, srv.password = "mailer", "s3cret"
		serverTLS, clientTLS := testTLS(t)
		srv.tls = serverTLS
		m, err := mail.NewSMTPMailer(&mail.SMTPOptions{Host: "127.0.0.1", Port: srv.port(), TLSConfig: clientTLS,
			Username: "mailer", Password: "s3cret", From: "Groundwork <noreply@example.test>", Timeout: 5 * time.Second})
		require.NoError(t, err)
		err = m.Send(ctx, mail.Message{
			To: []string{"Ann <ann@example.test>"}, Cc: []string{"cc@example.test"}, Bcc: []string{"bcc@example.test"},
			ReplyTo: "help@example.test", Subject: "Thanks for your submission – ünïcode",
			Text: "Hello Ann", HTML: "<p>Hello <b>Ann</b></p>", Headers: map[string]string{"X-Groundwork-Form": "contact"},
		})
		require.NoError(t, err)
		got := srv.messages()
		require.Len(t, got, 1)
		require.Equal(t, "mailer", got[0].auth)
		require.Equal(t, "noreply@example.test", got[0].from)
		require.ElementsMatch(t, []string{"ann@example.test", "cc@example.test", "bcc@example.test"}, got[0].rcpt)

		parsed, err := netmail.ReadMessage(strings.NewReader(got[0].data))
		require.NoError(t, err)
		require.Equal(t, `"Ann" <ann@example.test>`, parsed.Header.Get("To"))
		require.Empty(t, parsed.Header.Get("Bcc"), "Bcc never travels in the headers")
		require.Equal(t, "contact", parsed.Header.Get("X-Groundwork-Form"))
		require.Equal(t, "<help@example.test>", parsed.Header.Get("Reply-To"))
		subject, err := new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject"))
		require.NoError(t, err)
		require.Equal(t, "Thanks for your submission – ünïcode", subject)
		require.Contains(t, parsed.Header.Get("Content-Type"), "multipart/alternative")
		body, err := io.ReadAll(parsed.Body)
		require.NoError(t, err)
		require.Contains(t, string(body), "Hello Ann")
		require.Contains(t, string(body), "<p>Hello <b>Ann</b></p>")
	})

	t.Run("SendsAnAttachment", func(t *testing.T) {
		t.Parallel()
		srv := newSMTPServer(t)
		m, err := mail.NewSMTPMailer(&mail.SMTPOptions{Host: "127.0.0.1", Port: srv.port(), TLS: mail.TLSNone, From: "noreply@example.test", Timeout: 5 * time.Second})
		require.NoError(t, err)
		ics := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n"
		require.NoError(t, m.Send(ctx, mail.Message{To: []string{"ann@example.test"}, Subject: "Booked", Text: "See you",
			Attachments: []mail.Attachment{{Name: "BK-1.ics", ContentType: "text/calendar; method=PUBLISH", Data: []byte(ics)}}}))
		got := srv.messages()
		require.Len(t, got, 1)
		parsed, err := netmail.ReadMessage(strings.NewReader(got[0].data))
		require.NoError(t, err)
		mediaType, params, err := mime.ParseMediaType(parsed.Header.Get("Content-Type"))
		require.NoError(t, err)
		require.Equal(t, "multipart/mixed", mediaType)
		parts := multipart.NewReader(parsed.Body, params["boundary"])
		var names, bodies []string
		for {
			p, err := parts.NextPart()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			b, err := io.ReadAll(p)
			require.NoError(t, err)
			if p.Header.Get("Content-Transfer-Encoding") == "base64" {
				b, err = base64.StdEncoding.DecodeString(strings.ReplaceAll(string(b), "\r\n", ""))
				require.NoError(t, err)
			}
			names = append(names, p.FileName())
			bodies = append(bodies, string(b))
		}
		require.Equal(t, []string{"", "BK-1.ics"}, names)
		require.Contains(t, bodies[0], "See you")
		require.Equal(t, ics, bodies[1])
	})

	t.Run("NeverSendsPasswordInTheClear", func(t *testing.T) {
		t.Parallel()
		srv := newSMTPServer(t)
		srv.user, srv.password = "mailer", "s3cret"
		m, err := mail.NewSMTPMailer(&mail.SMTPOptions{Host: "127.0.0.1", Port: srv.port(), TLS: mail.TLSNone,
			Username: "mailer", Password: "s3cret", From: "noreply@example.test", Timeout: 5 * time.Second})
		require.NoError(t, err)
		require.Error(t, m.Send(ctx, mail.Message{To: []string{"ann@example.test"}, Subject: "s", Text: "t"}))
		require.Empty(t, srv.messages())
	})

	t.Run("WrongPassword", func(t *testing.T) {
		t.Parallel()
		srv := newSMTPServer(t)
		srv.user, srv.password = "mailer", "s3cret"
		serverTLS, clientTLS := testTLS(t)
		srv.tls = serverTLS
		m, err := mail.NewSMTPMailer(&mail.SMTPOptions{Host: "127.0.0.1", Port: srv.port(), TLSConfig: clientTLS,
			Username: "mailer", Password: "wrong", From: "noreply@example.test", Timeout: 5 * time.Second})
		require.NoError(t, err)
		err = m.Send(ctx, mail.Message{To: []string{"ann@example.test"}, Subject: "s", Text: "t"})
		require.Error(t, err)
		require.NotErrorIs(t, err, mail.ErrInvalidMessage)
		require.Empty(t, srv.messages())
	})

	t.Run("RejectedRecipient", func(t *testing.T) {
		t.Parallel()
		srv := newSMTPServer(t)
		srv.failRcpt = "gone@example.test"
		m, err := mail.NewSMTPMailer(&mail.SMTPOptions{Host: "127.0.0.1", Port: srv.port(), TLS: mail.TLSNone, From: "noreply@example.test", Timeout: 5 * time.Second})
		require.NoError(t, err)
		err = m.Send(ctx, mail.Message{To: []string{"gone@example.test"}, Subject: "s", Text: "t"})
		require.Error(t, err)
	})

	t.Run("StartTLSRequiredButMissing", func(t *testing.T) {
		t.Parallel()
		srv := newSMTPServer(t)
		m, err := mail.NewSMTPMailer(&mail.SMTPOptions{Host: "127.0.0.1", Port: srv.port(), From: "noreply@example.test", Timeout: 5 * time.Second})
		require.NoError(t, err)
		err = m.Send(ctx, mail.Message{To: []string{"ann@example.test"}, Subject: "s", Text: "t"})
		require.Error(t, err, "the default refuses to send in the clear")
		require.Empty(t, srv.messages())
	})

	t.Run("ServerDown", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		m, err := mail.NewSMTPMailer(&mail.SMTPOptions{Host: "127.0.0.1", Port: port, TLS: mail.TLSNone, From: "noreply@example.test", Timeout: 2 * time.Second})
		require.NoError(t, err)
		require.Error(t, m.Send(ctx, mail.Message{To: []string{"ann@example.test"}, Subject: "s", Text: "t"}))
	})

	t.Run("BadOptions", func(t *testing.T) {
		t.Parallel()
		for _, o := range []*mail.SMTPOptions{nil, {}, {Host: "h", TLS: "maybe"}, {Host: "h", Port: 70000}, {Host: "h", From: "not an address"}} {
			_, err := mail.NewSMTPMailer(o)
			require.Error(t, err, "%+v", o)
		}
	})
}

func TestMessageValidate(t *testing.T) {
	t.Parallel()
	ok := mail.Message{From: "a@example.test", To: []string{"b@example.test"}, Subject: "s", Text: "t"}
	require.NoError(t, ok.Validate(""))
	cases := map[string]func(m *mail.Message){
		"NoSender":       func(m *mail.Message) { m.From = "" },
		"BadSender":      func(m *mail.Message) { m.From = "nope" },
		"NoRecipient":    func(m *mail.Message) { m.To = nil },
		"BadRecipient":   func(m *mail.Message) { m.To = []string{"b@example.test", "x"} },
		"BadBcc":         func(m *mail.Message) { m.Bcc = []string{"@"} },
		"BadReplyTo":     func(m *mail.Message) { m.ReplyTo = "?" },
		"NoBody":         func(m *mail.Message) { m.Text = "" },
		"SubjectNewline": func(m *mail.Message) { m.Subject = "hi\r\nBcc: victim@example.test" },
		"HeaderNewline":  func(m *mail.Message) { m.Headers = map[string]string{"X-A": "1\nBcc: x@example.test"} },
		"HeaderName":     func(m *mail.Message) { m.Headers = map[string]string{"X-A: b": "1"} },
		"AttachmentName": func(m *mail.Message) { m.Attachments = []mail.Attachment{{Name: "../x.ics"}} },
		"NoAttachName":   func(m *mail.Message) { m.Attachments = []mail.Attachment{{Data: []byte("x")}} },
		"AttachmentType": func(m *mail.Message) {
			m.Attachments = []mail.Attachment{{Name: "a", ContentType: "text/plain\r\nBcc: x"}}
		},
	}
	for name, mutate := range cases {
		m := ok
		mutate(&m)
		err := m.Validate("")
		require.ErrorIs(t, err, mail.ErrInvalidMessage, name)
	}
	noFrom := ok
	noFrom.From = ""
	require.NoError(t, noFrom.Validate("default@example.test"))
}

func TestOutbox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := mail.NewOutbox(&mail.OutboxOptions{From: "noreply@example.test"})
	done := make(chan []mail.Message)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		msgs, err := o.Wait(ctx, 2)
		if err != nil {
			msgs = nil
		}
		done <- msgs
	}()
	to := []string{"a@example.test"}
	require.NoError(t, o.Send(ctx, mail.Message{To: to, Subject: "one", Text: "1"}))
	to[0] = "changed@example.test" // the outbox kept its own copy
	require.NoError(t, o.Send(ctx, mail.Message{To: []string{"b@example.test"}, Subject: "two", HTML: "<p>2</p>"}))
	msgs := <-done
	require.Len(t, msgs, 2)
	require.Equal(t, "noreply@example.test", msgs[0].From)
	require.Equal(t, []string{"a@example.test"}, msgs[0].To)
	require.Equal(t, "two", msgs[1].Subject)

	err := o.Send(ctx, mail.Message{Subject: "none"})
	require.ErrorIs(t, err, mail.ErrInvalidMessage)
	require.Len(t, o.Messages(), 2)

	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	_, err = o.Wait(short, 3)
	require.True(t, errors.Is(err, context.DeadlineExceeded))
	o.Reset()
	require.Empty(t, o.Messages())
}

// An outbox made with no options logs each message through slog's
// default logger: a host that forgets a logger still sees its mail.
func TestOutboxLogsByDefault(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	o := mail.NewOutbox(nil)
	require.NoError(t, o.Send(context.Background(), mail.Message{From: "site@example.com", To: []string{"ada@example.com"},
		Subject: "Reset", Text: "https://example.com/reset/abc"}))
	require.Contains(t, buf.String(), "https://example.com/reset/abc")
}

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	for attempt, want := range map[int]time.Duration{1: 2 * time.Second, 2: 4 * time.Second, 3: 8 * time.Second,
		9: 512 * time.Second, 10: mail.RetryLongest, 100: mail.RetryLongest} {
		require.Equal(t, want, mail.RetryDelay(attempt), "attempt %d", attempt)
	}
	total := time.Duration(0)
	for a := 1; a < mail.MaxAttempts; a++ {
		total += mail.RetryDelay(a)
	}
	require.Greater(t, total, 15*time.Hour, "a mail server away for half a day loses nothing")
}

// A job's Message-ID (carried by the context) is given to the message,
// completed with the sender's domain; the message's own wins; a bad one
// is refused.
func TestMessageID(t *testing.T) {
	t.Parallel()
	o := mail.NewOutbox(&mail.OutboxOptions{From: "Site <site@example.test>", Logger: slog.New(slog.DiscardHandler)})
	msg := mail.Message{To: []string{"ann@example.com"}, Subject: "Hi", Text: "Hello"}
	ctx := mail.WithMessageID(context.Background(), mail.JobMessageID("forms_notification", 7))
	require.NoError(t, o.Send(ctx, msg))
	require.NoError(t, o.Send(context.Background(), msg))
	own := msg
	own.ID = "mine@example.org"
	require.NoError(t, o.Send(ctx, own))
	bad := msg
	bad.ID = "a>b"
	require.ErrorIs(t, o.Send(ctx, bad), mail.ErrInvalidMessage)
	got := o.Messages()
	require.Equal(t, "forms_notification.7@example.test", got[0].ID)
	require.Empty(t, got[1].ID, "a new one made by the mailer")
	require.Equal(t, "mine@example.org", got[2].ID)
}
