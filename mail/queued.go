package mail

import (
	"context"
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// A mail sent from a job queue is tried again until it goes: the delays
// and the number of tries every groundwork mail job uses.
const (
	// RetryFirst is the wait after the first failed try; each further
	// failure doubles it, up to RetryLongest.
	RetryFirst = 2 * time.Second
	// RetryLongest is the longest wait between two tries, so a mail goes
	// within minutes of the server's return however long it was away.
	RetryLongest = 10 * time.Minute
	// MaxAttempts is how many times a mail job is tried before it is
	// given up (discarded, and kept in the queue's table): about 15
	// hours of tries at RetryLongest.
	MaxAttempts = 100
)

// RetryDelay is how long a mail job that failed its attempt-th try (1 for
// the first) waits before the next: RetryFirst doubled per failure, at
// most RetryLongest.
func RetryDelay(attempt int) time.Duration {
	d := RetryFirst
	for i := 1; i < attempt && d < RetryLongest; i++ {
		d *= 2
	}
	return min(d, RetryLongest)
}

type messageIDKey struct{}

// WithMessageID returns ctx carrying id, the Message-ID a mailer gives a
// message sent under it that names none (Message.ID). A job sets one from
// its own identity (see [JobMessageID]) so that every try of it sends the
// same Message-ID: a mail that went out although the try failed after
// (the connection lost before the server's answer) comes again with the
// same ID, which receivers and the test count as one.
func WithMessageID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, messageIDKey{}, id)
}

// MessageIDFrom is the Message-ID ctx carries ([WithMessageID]); "" for
// none.
func MessageIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(messageIDKey{}).(string)
	return id
}

// JobMessageID is the Message-ID of the mail of the queued job of this
// kind and ID: the same for every try of the job.
func JobMessageID(kind string, jobID int64) string {
	return fmt.Sprintf("%s.%d", kind, jobID)
}

// messageID is the Message-ID msg is sent with, without angle brackets:
// its own ID, else the one ctx carries, completed with the sender's
// domain when it has no "@"; "" for a new one.
func messageID(ctx context.Context, msg Message, from string) string {
	id := msg.ID
	if id == "" {
		id = MessageIDFrom(ctx)
	}
	if id == "" || strings.Contains(id, "@") {
		return id
	}
	domain := "groundwork.invalid"
	if a, err := mail.ParseAddress(from); err == nil {
		if _, d, ok := strings.Cut(a.Address, "@"); ok && d != "" {
			domain = d
		}
	}
	return id + "@" + domain
}
