// Package mail sends email for the groundwork domains: a [Message], the
// [Mailer] interface they accept, an [SMTPMailer] for production and an
// [Outbox] that keeps messages in memory (tests use it, and the reference
// server logs what it "sends" through it by default).
package mail

import (
	"context"
	"errors"
	"fmt"
	netmail "net/mail"
	"strings"
)

// Message is one email. From may be left empty for the mailer's default.
// Addresses are "addr@example.com" or "Name <addr@example.com>".
type Message struct {
	From    string
	To      []string
	Cc      []string
	Bcc     []string
	ReplyTo string
	Subject string
	// Text is the plain-text body; HTML, when set, is sent beside it as
	// an alternative. At least one of them is required.
	Text string
	HTML string
	// Headers are extra header fields, such as "X-Groundwork-Form".
	Headers map[string]string
	// ID is the Message-ID, without angle brackets ("forms_notification.42",
	// completed with "@" and the sender's domain when it has no "@"); the
	// one the context carries (WithMessageID) when empty, else a new one.
	ID string
	// Attachments are files sent with the message.
	Attachments []Attachment
}

// Attachment is a file sent with a message: its Name (no path), its
// ContentType ("text/calendar; method=PUBLISH"; application/octet-stream
// when empty) and its bytes.
type Attachment struct {
	Name        string
	ContentType string
	Data        []byte
}

// Mailer sends messages. Implementations are safe for concurrent use.
type Mailer interface {
	// Send delivers msg or returns why not. A returned error may be
	// temporary; queued senders retry it.
	Send(ctx context.Context, msg Message) error
}

// ErrInvalidMessage is returned, wrapped, for a message that cannot be
// sent as it stands; retrying will not help.
var ErrInvalidMessage = errors.New("mail: invalid message")

// Validate checks that msg can be sent: a sender (its own or
// defaultFrom), at least one recipient, parseable addresses, a body, and no
// line breaks in header values.
func (msg Message) Validate(defaultFrom string) error {
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidMessage, fmt.Sprintf(format, args...))
	}
	from := msg.From
	if from == "" {
		from = defaultFrom
	}
	if from == "" {
		return invalid("no sender")
	}
	if _, err := netmail.ParseAddress(from); err != nil {
		return invalid("sender %q: %v", from, err)
	}
	if len(msg.To)+len(msg.Cc)+len(msg.Bcc) == 0 {
		return invalid("no recipient")
	}
	for _, list := range [][]string{msg.To, msg.Cc, msg.Bcc} {
		for _, a := range list {
			if _, err := netmail.ParseAddress(a); err != nil {
				return invalid("recipient %q: %v", a, err)
			}
		}
	}
	if msg.ReplyTo != "" {
		if _, err := netmail.ParseAddress(msg.ReplyTo); err != nil {
			return invalid("reply-to %q: %v", msg.ReplyTo, err)
		}
	}
	if msg.Text == "" && msg.HTML == "" {
		return invalid("no body")
	}
	if strings.ContainsAny(msg.ID, "\r\n<> ") {
		return invalid("message ID %q", msg.ID)
	}
	if strings.ContainsAny(msg.Subject, "\r\n") {
		return invalid("line break in subject")
	}
	for k, v := range msg.Headers {
		if k == "" || strings.ContainsAny(k, "\r\n: ") || strings.ContainsAny(v, "\r\n") {
			return invalid("header %q", k)
		}
	}
	for _, a := range msg.Attachments {
		if a.Name == "" || strings.ContainsAny(a.Name, "\r\n\"/\\") || strings.ContainsAny(a.ContentType, "\r\n") {
			return invalid("attachment %q", a.Name)
		}
	}
	return nil
}

// clone copies msg deeply, so a kept message cannot change under the
// caller or the other way round.
func (msg Message) clone() Message {
	msg.To = append([]string(nil), msg.To...)
	msg.Cc = append([]string(nil), msg.Cc...)
	msg.Bcc = append([]string(nil), msg.Bcc...)
	if msg.Headers != nil {
		h := make(map[string]string, len(msg.Headers))
		for k, v := range msg.Headers {
			h[k] = v
		}
		msg.Headers = h
	}
	if msg.Attachments != nil {
		list := make([]Attachment, len(msg.Attachments))
		for i, a := range msg.Attachments {
			a.Data = append([]byte(nil), a.Data...)
			list[i] = a
		}
		msg.Attachments = list
	}
	return msg
}
