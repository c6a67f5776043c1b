package mail_test

import (
	"context"
	"fmt"

	"github.com/groundwork-go/groundwork/mail"
)

// An Outbox stands in for a real mailer: in tests, and in the reference
// server until SMTP is configured.
func ExampleOutbox() {
	outbox := mail.NewOutbox(&mail.OutboxOptions{From: "Groundwork <noreply@example.com>"})
	var m mail.Mailer = outbox

	err := m.Send(context.Background(), mail.Message{
		To:      []string{"ann@example.com"},
		Subject: "Thanks for getting in touch",
		Text:    "We will answer within a day.",
	})
	if err != nil {
		panic(err)
	}
	for _, msg := range outbox.Messages() {
		fmt.Println(msg.From, "->", msg.To, ":", msg.Subject)
	}
	// Output:
	// Groundwork <noreply@example.com> -> [ann@example.com] : Thanks for getting in touch
}

// An SMTP mailer sends through a relay; it connects only when sending.
func ExampleNewSMTPMailer() {
	m, err := mail.NewSMTPMailer(&mail.SMTPOptions{
		Host:     "smtp.example.com",
		Username: "apikey",
		Password: "secret",
		From:     "noreply@example.com",
	})
	fmt.Println(m != nil, err)
	// Output: true <nil>
}
