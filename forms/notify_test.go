package forms_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestNotificationsDelivered(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, withQueue, func(o *setupOptions) { o.dialect = d })
		form := b.contactForm(t)
		for _, n := range []map[string]any{
			{"type": "admin", "recipients": "team@example.test, sales@example.test"},
			{"type": "autoresponder", "subject": "Thanks, {{name}}!", "message": "Hi {{name}},\nabout {{topic}}:\n{{all_fields}}\n-- {{form_name}} {{unknown}}"},
			{"type": "custom", "recipients": "sales@example.test", "subject": "Sales lead from {{name}}",
				"conditional_logic": map[string]any{"action": "send", "rules": []any{map[string]any{"field": "topic", "operator": "equals", "value": "sales"}}}},
			{"type": "custom", "recipients": "off@example.test", "is_enabled": false},
		} {
			r := b.api(t, "POST", "/"+form+"/notifications", n)
			require.Equal(t, 201, r.status, r.body)
		}
		r := b.submit(t, form, part{name: "name", content: "Ann\r\nBcc: victim@example.test"}, part{name: "email", content: "ann@example.test"},
			part{name: "topic", content: "support"}, part{name: "message", content: "Line one\nline two"})
		require.Equal(t, 201, r.status, r.body)
		number := fmt.Sprintf("FORM-2026-%05d", int(r.json(t)["submission_id"].(float64)))

		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		msgs, err := b.outbox.Wait(ctx, 2)
		require.NoError(t, err)
		byTo := map[string]mail.Message{}
		for _, m := range msgs {
			byTo[m.To[0]] = m
		}
		admin := byTo["team@example.test"]
		require.Equal(t, []string{"team@example.test", "sales@example.test"}, admin.To)
		require.Equal(t, "New submission: Contact", admin.Subject)
		require.Equal(t, "A new submission to Contact:\n\nName: Ann\r\nBcc: victim@example.test\nEmail: ann@example.test\nTopic: Support\nMessage: Line one\nline two", admin.Text)
		require.Equal(t, "contact", admin.Headers["X-Groundwork-Form"])
		require.Equal(t, number, admin.Headers["X-Groundwork-Submission"])

		auto := byTo["ann@example.test"]
		require.Equal(t, "Thanks, Ann Bcc: victim@example.test!", auto.Subject, "subjects stay on one line")
		require.Equal(t, "Hi Ann\r\nBcc: victim@example.test,\nabout Support:\nName: Ann\r\nBcc: victim@example.test\nEmail: ann@example.test\nTopic: Support\nMessage: Line one\nline two\n-- Contact {{unknown}}", auto.Text)
		require.Equal(t, "forms@example.test", auto.From)

		// The sales notification's condition failed, the disabled one is
		// off: two messages, and no more come.
		time.Sleep(500 * time.Millisecond)
		require.Len(t, b.outbox.Messages(), 2)

		r = b.submit(t, form, valid()...)
		require.Equal(t, 201, r.status)
		r = b.submit(t, form, part{name: "name", content: "Ann"}, part{name: "email", content: "ann@example.test"}, part{name: "topic", content: "sales"})
		require.Equal(t, 201, r.status)
		msgs, err = b.outbox.Wait(ctx, 7)
		require.NoError(t, err)
		var sales int
		for _, m := range msgs {
			if m.Subject == "Sales lead from Ann" {
				sales++
			}
		}
		require.Equal(t, 1, sales)
	})
}

// failingMailer fails a set number of times, then delivers to an outbox.
type failingMailer struct {
	fails  chan struct{}
	outbox *mail.Outbox
}

func (f *failingMailer) Send(ctx context.Context, m mail.Message) error {
	select {
	case <-f.fails:
		return fmt.Errorf("smtp: 451 try again later")
	default:
		return f.outbox.Send(ctx, m)
	}
}

func TestNotificationRetried(t *testing.T) {
	t.Parallel()
	outbox := mail.NewOutbox(&mail.OutboxOptions{From: "forms@example.test"})
	fm := &failingMailer{fails: make(chan struct{}, 1), outbox: outbox}
	fm.fails <- struct{}{}
	b := setup(t, withQueue, func(o *setupOptions) {
		o.service = func(so *forms.Options) { so.Mailer = fm }
	})
	form := b.contactForm(t)
	require.Equal(t, 201, b.api(t, "POST", "/"+form+"/notifications", map[string]any{"type": "admin"}).status)
	require.Equal(t, 201, b.submit(t, form, valid()...).status)
	// The first attempt fails; River retries it after a second.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	msgs, err := outbox.Wait(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, "New submission: Contact", msgs[0].Subject)
	var job struct {
		State   string `db:"state"`
		Attempt int    `db:"attempt"`
	}
	require.Eventually(t, func() bool {
		return b.db.Get(&job, "SELECT state, attempt FROM river_job WHERE kind = 'forms_notification'") == nil && job.State == "completed"
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, 2, job.Attempt)
}
