package mail

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// TLSMode says how an [SMTPMailer] secures its connection.
type TLSMode string

// The TLS modes.
const (
	// TLSStartTLS upgrades with STARTTLS and refuses a server without it
	// (port 587). The default.
	TLSStartTLS TLSMode = "starttls"
	// TLSImplicit speaks TLS from the first byte (port 465).
	TLSImplicit TLSMode = "tls"
	// TLSOpportunistic upgrades when the server offers STARTTLS and sends
	// in the clear otherwise.
	TLSOpportunistic TLSMode = "opportunistic"
	// TLSNone never encrypts: for a relay on the same host or in tests.
	TLSNone TLSMode = "none"
)

// SMTP defaults.
const (
	SMTPPortDefault    = 587
	SMTPTimeoutDefault = 30 * time.Second
)

// SMTPOptions configures [NewSMTPMailer].
type SMTPOptions struct {
	// Host is the server's name; required.
	Host string
	// Port: SMTPPortDefault, or 465 with TLSImplicit.
	Port int
	// Username and Password authenticate when Username is set, with the
	// best mechanism the server offers.
	Username string
	Password string
	// TLS: TLSStartTLS when empty.
	TLS TLSMode
	// From is the sender of messages that name none.
	From string
	// Timeout bounds connecting and each exchange; SMTPTimeoutDefault.
	Timeout time.Duration
	// HELO is the name given in EHLO; go-mail's default (the host name)
	// when empty.
	HELO string
	// TLSConfig replaces the TLS settings, e.g. to trust a private CA.
	// Its ServerName defaults to Host.
	TLSConfig *tls.Config
	// DialContext replaces the dialer, e.g. to go through a proxy.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
}

// SMTPMailer sends each message over a new SMTP connection, built on
// github.com/wneessen/go-mail. It never sends a password over an
// unencrypted connection.
type SMTPMailer struct {
	from string
	opts []gomail.Option
	host string
}

var _ Mailer = (*SMTPMailer)(nil)

// NewSMTPMailer checks opts and returns a mailer. It does not connect.
func NewSMTPMailer(o *SMTPOptions) (*SMTPMailer, error) {
	if o == nil || o.Host == "" {
		return nil, errors.New("mail: new smtp mailer: a host is required")
	}
	mode := o.TLS
	if mode == "" {
		mode = TLSStartTLS
	}
	port := o.Port
	if port == 0 {
		port = SMTPPortDefault
		if mode == TLSImplicit {
			port = 465
		}
	}
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("mail: new smtp mailer: port %d is out of range", port)
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = SMTPTimeoutDefault
	}
	opts := []gomail.Option{gomail.WithPort(port), gomail.WithTimeout(timeout)}
	switch mode {
	case TLSStartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case TLSImplicit:
		opts = append(opts, gomail.WithSSL())
	case TLSOpportunistic:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		return nil, fmt.Errorf("mail: new smtp mailer: unknown TLS mode %q", mode)
	}
	if o.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(o.Username), gomail.WithPassword(o.Password))
	}
	if o.TLSConfig != nil {
		cfg := o.TLSConfig.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName = o.Host
		}
		opts = append(opts, gomail.WithTLSConfig(cfg))
	}
	if o.HELO != "" {
		opts = append(opts, gomail.WithHELO(o.HELO))
	}
	if o.DialContext != nil {
		opts = append(opts, gomail.WithDialContextFunc(o.DialContext))
	}
	if o.From != "" {
		if err := (Message{To: []string{o.From}, Text: "x"}).Validate(o.From); err != nil {
			return nil, fmt.Errorf("mail: new smtp mailer: default sender: %w", err)
		}
	}
	// Build one client now so bad options fail here, not at first send.
	if _, err := gomail.NewClient(o.Host, opts...); err != nil {
		return nil, fmt.Errorf("mail: new smtp mailer: %w", err)
	}
	return &SMTPMailer{from: o.From, opts: opts, host: o.Host}, nil
}

// Send implements [Mailer].
func (m *SMTPMailer) Send(ctx context.Context, msg Message) error {
	if err := msg.Validate(m.from); err != nil {
		return err
	}
	gm, err := m.build(msg)
	if err != nil {
		return err
	}
	if id := messageID(ctx, msg, cmp.Or(msg.From, m.from)); id != "" {
		gm.SetMessageIDWithValue(id)
	}
	client, err := gomail.NewClient(m.host, m.opts...)
	if err != nil {
		return fmt.Errorf("mail: send: %w", err)
	}
	if err := client.DialAndSendWithContext(ctx, gm); err != nil {
		return fmt.Errorf("mail: send: %w", err)
	}
	return nil
}

func (m *SMTPMailer) build(msg Message) (*gomail.Msg, error) {
	gm := gomail.NewMsg()
	from := msg.From
	if from == "" {
		from = m.from
	}
	invalid := func(err error) error { return fmt.Errorf("%w: %v", ErrInvalidMessage, err) }
	if err := gm.From(from); err != nil {
		return nil, invalid(err)
	}
	if len(msg.To) > 0 {
		if err := gm.To(msg.To...); err != nil {
			return nil, invalid(err)
		}
	}
	if len(msg.Cc) > 0 {
		if err := gm.Cc(msg.Cc...); err != nil {
			return nil, invalid(err)
		}
	}
	if len(msg.Bcc) > 0 {
		if err := gm.Bcc(msg.Bcc...); err != nil {
			return nil, invalid(err)
		}
	}
	if msg.ReplyTo != "" {
		if err := gm.ReplyTo(msg.ReplyTo); err != nil {
			return nil, invalid(err)
		}
	}
	gm.Subject(msg.Subject)
	gm.SetMessageID()
	gm.SetDate()
	for k, v := range msg.Headers {
		gm.SetGenHeader(gomail.Header(k), v)
	}
	switch {
	case msg.Text != "" && msg.HTML != "":
		gm.SetBodyString(gomail.TypeTextPlain, msg.Text)
		gm.AddAlternativeString(gomail.TypeTextHTML, msg.HTML)
	case msg.HTML != "":
		gm.SetBodyString(gomail.TypeTextHTML, msg.HTML)
	default:
		gm.SetBodyString(gomail.TypeTextPlain, msg.Text)
	}
	for _, a := range msg.Attachments {
		ct := gomail.ContentType(a.ContentType)
		if ct == "" {
			ct = gomail.TypeAppOctetStream
		}
		if err := gm.AttachReader(a.Name, bytes.NewReader(a.Data), gomail.WithFileContentType(ct)); err != nil {
			return nil, invalid(err)
		}
	}
	return gm, nil
}
