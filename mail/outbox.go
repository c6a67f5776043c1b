package mail

import (
	"context"
	"log/slog"
	"sync"
)

// OutboxOptions configures [NewOutbox]. Nil means no default sender and
// logging to slog.Default().
type OutboxOptions struct {
	// From is the sender of messages that name none.
	From string
	// Logger gets one info record per message "sent", with its plain-text
	// body (so links in it can be followed from the log); slog.Default()
	// when nil, so a message kept in an outbox is never silent. Give a
	// logger on slog.DiscardHandler to keep quiet.
	Logger *slog.Logger
}

// Outbox is a [Mailer] that keeps every message in memory instead of
// sending it. It validates messages as a real mailer would. Safe for
// concurrent use.
type Outbox struct {
	from    string
	logger  *slog.Logger
	mu      sync.Mutex
	msgs    []Message
	changed chan struct{} // closed and replaced on every Send
}

var _ Mailer = (*Outbox)(nil)

// NewOutbox returns an empty outbox.
func NewOutbox(opts *OutboxOptions) *Outbox {
	o := &Outbox{changed: make(chan struct{}), logger: slog.Default()}
	if opts != nil {
		o.from = opts.From
		if opts.Logger != nil {
			o.logger = opts.Logger
		}
	}
	return o
}

// Send implements [Mailer]: it keeps a copy of msg, with From filled in.
func (o *Outbox) Send(ctx context.Context, msg Message) error {
	if err := msg.Validate(o.from); err != nil {
		return err
	}
	msg = msg.clone()
	if msg.From == "" {
		msg.From = o.from
	}
	msg.ID = messageID(ctx, msg, msg.From)
	o.mu.Lock()
	o.msgs = append(o.msgs, msg)
	close(o.changed)
	o.changed = make(chan struct{})
	o.mu.Unlock()
	if o.logger.Enabled(ctx, slog.LevelInfo) {
		o.logger.InfoContext(ctx, "mail sent to the outbox", "from", msg.From, "to", msg.To, "cc", msg.Cc, "bcc", msg.Bcc, "subject", msg.Subject, "text", msg.Text)
	}
	return nil
}

// Messages returns copies of the messages kept so far, oldest first.
func (o *Outbox) Messages() []Message {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]Message, len(o.msgs))
	for i, m := range o.msgs {
		out[i] = m.clone()
	}
	return out
}

// Wait blocks until the outbox holds at least n messages and returns them,
// or returns ctx's error. Tests use it to wait for queued mail.
func (o *Outbox) Wait(ctx context.Context, n int) ([]Message, error) {
	for {
		o.mu.Lock()
		have, changed := len(o.msgs), o.changed
		o.mu.Unlock()
		if have >= n {
			return o.Messages(), nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Reset forgets every message.
func (o *Outbox) Reset() {
	o.mu.Lock()
	o.msgs = nil
	o.mu.Unlock()
}
