package mailjob_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/mailjob"
	"github.com/groundwork-go/groundwork/internal/seal"
	"github.com/groundwork-go/groundwork/mail"
)

type args struct{ Sealed string }

func (args) Kind() string                 { return "test_mail" }
func (a args) SealedMessage() string      { return a.Sealed }
func (args) InsertOpts() river.InsertOpts { return mailjob.InsertOpts() }

type failing struct{ err error }

func (f failing) Send(context.Context, mail.Message) error { return f.err }

// The worker sends a sealed message with the job's Message-ID; a message
// sealed with another key or for another purpose, or one the mailer
// calls invalid, is cancelled (trying again cannot help); no mailer or a
// mailer's other error is tried again.
func TestWorker(t *testing.T) {
	key, other := []byte("0123456789abcdef0123456789abcdef"), []byte("fedcba9876543210fedcba9876543210")
	s, err := seal.New(key)
	require.NoError(t, err)
	o, err := seal.New(other)
	require.NoError(t, err)
	purpose := []byte("test mail")
	msg := mail.Message{From: "site@example.com", To: []string{"ann@example.com"}, Subject: "Your link", Text: "https://example.com/secret"}
	sealed, err := mailjob.Seal(s, purpose, msg)
	require.NoError(t, err)
	require.NotContains(t, sealed, "secret", "the link is not in the job's row")
	job := func(sealed string) *river.Job[args] {
		return &river.Job[args]{JobRow: &rivertype.JobRow{ID: 7, Kind: "test_mail", Attempt: 1}, Args: args{Sealed: sealed}}
	}
	cancelled := func(err error) bool {
		var c *river.JobCancelError
		return errors.As(err, &c)
	}

	outbox := mail.NewOutbox(nil)
	w := &mailjob.Worker[args]{Sealer: s, Purpose: purpose, Mailer: outbox, What: "test: send"}
	require.NoError(t, w.Work(context.Background(), job(sealed)))
	require.Len(t, outbox.Messages(), 1)
	require.Equal(t, "Your link", outbox.Messages()[0].Subject)
	require.Equal(t, mail.JobMessageID("test_mail", 7)+"@example.com", outbox.Messages()[0].ID, "the job's, on the sender's domain")

	otherKey, err := mailjob.Seal(o, purpose, msg)
	require.NoError(t, err)
	err = w.Work(context.Background(), job(otherKey))
	require.True(t, cancelled(err), "another key: %v", err)
	otherPurpose, err := mailjob.Seal(s, []byte("another purpose"), msg)
	require.NoError(t, err)
	require.True(t, cancelled(w.Work(context.Background(), job(otherPurpose))), "another purpose")

	w.Mailer = failing{err: mail.ErrInvalidMessage}
	err = w.Work(context.Background(), job(sealed))
	require.True(t, cancelled(err), "%v", err)
	require.ErrorContains(t, err, `test: send "Your link"`)
	w.Mailer = failing{err: errors.New("connection refused")}
	err = w.Work(context.Background(), job(sealed))
	require.Error(t, err)
	require.False(t, cancelled(err), "tried again")
	w.Mailer = nil
	err = w.Work(context.Background(), job(sealed))
	require.ErrorContains(t, err, "no mailer")
	require.False(t, cancelled(err))
	require.True(t, w.NextRetry(job(sealed)).After(time.Now()))
}
