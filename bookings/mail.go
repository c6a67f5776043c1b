package bookings

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/mail"
)

// Kinds of mail a booking sends (mailArgs.Mail).
const (
	// mailRequested tells the customer their request is in (manual
	// confirmation), with the manage link.
	mailRequested = "requested"
	// mailConfirmed tells the customer the booking is confirmed, with the
	// manage link and an .ics attachment. Every customer mail carries the
	// manage link when the service has a secret key.
	mailConfirmed = "confirmed"
	// mailCancelled and mailRescheduled tell the customer of a change
	// (the reschedule with a new .ics).
	mailCancelled   = "cancelled"
	mailRescheduled = "rescheduled"
	// mailReminder reminds the customer some hours before the start.
	mailReminder = "reminder"
	// mailProviderAssigned and mailProviderUnassigned tell a provider a
	// booking is now, or no longer, theirs.
	mailProviderAssigned   = "provider_assigned"
	mailProviderUnassigned = "provider_unassigned"
)

// mailArgs is the River job that sends one booking mail, rendered when it
// runs from the booking as it is then (a booking erased or deleted
// meanwhile sends nothing).
type mailArgs struct {
	// Mail is the kind of mail: mailConfirmed, mailReminder, ….
	Mail      string `json:"mail"`
	BookingID int64  `json:"booking_id"`
	// SealedToken is the manage token, sealed with Options.SecretKey and
	// bound to the booking: the queue never holds it in the clear.
	SealedToken string `json:"sealed_token,omitempty"`
	// ProviderID is the provider a provider mail goes to.
	ProviderID    int64      `json:"provider_id,omitempty"`
	PreviousStart *time.Time `json:"previous_start,omitempty"`
	Reason        string     `json:"reason,omitempty"`
	Actor         Actor      `json:"actor,omitempty"`
}

// Kind implements river.JobArgs.
func (mailArgs) Kind() string { return "bookings_mail" }

// InsertOpts gives the job mail.MaxAttempts tries.
func (mailArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: mail.MaxAttempts} }

// bindToken is what a sealed manage token is bound to: its booking.
func bindToken(bookingID int64) []byte {
	return []byte("bookings manage token " + strconv.FormatInt(bookingID, 10))
}

// mailsFor is the mail an event sends.
func (s *Service) mailsFor(e Event) []mailArgs {
	b := e.Booking
	args := mailArgs{BookingID: b.ID, Actor: e.Actor, Reason: e.Reason}
	if e.ManageToken != "" && s.sealer != nil {
		args.SealedToken = s.sealer.Seal(e.ManageToken, bindToken(b.ID))
	}
	with := func(kind string) mailArgs { a := args; a.Mail = kind; return a }
	provider := func(kind string, id *int64) []mailArgs {
		if id == nil {
			return nil
		}
		a := mailArgs{Mail: kind, BookingID: b.ID, ProviderID: *id}
		return []mailArgs{a}
	}
	switch e.Type {
	case EventCreated:
		if b.Status == StatusAwaitingPayment {
			return nil // its mail goes once it is paid
		}
		out := provider(mailProviderAssigned, b.ProviderID)
		for _, h := range b.Hosts {
			out = append(out, provider(mailProviderAssigned, &h)...)
		}
		if b.SeriesIndex > 0 {
			return out // a series' customer has one mail, the first occurrence's, listing them all
		}
		switch b.Status {
		case StatusRequested:
			out = append(out, with(mailRequested))
		case StatusConfirmed:
			out = append(out, with(mailConfirmed))
		}
		return out
	case EventConfirmed:
		if b.Payment != nil && e.Actor == ActorSystem { // paid: the provider hears of it now
			out := provider(mailProviderAssigned, b.ProviderID)
			for _, h := range b.Hosts {
				out = append(out, provider(mailProviderAssigned, &h)...)
			}
			return append(out, with(mailConfirmed))
		}
		return []mailArgs{with(mailConfirmed)}
	case EventCancelled:
		return []mailArgs{with(mailCancelled)}
	case EventRescheduled:
		a := with(mailRescheduled)
		a.PreviousStart = &e.PreviousStart
		return []mailArgs{a}
	case EventReassigned:
		return append(provider(mailProviderAssigned, b.ProviderID), provider(mailProviderUnassigned, e.PreviousProviderID)...)
	}
	return nil
}

// queueMails queues the mail of e in tx, the transaction of the change
// that made e, so the mail goes if and only if the change is committed.
func (s *Service) queueMails(ctx context.Context, tx *sql.Tx, e Event) error {
	for _, args := range s.mailsFor(e) {
		if err := s.o.Enqueuer.EnqueueTx(ctx, tx, args, nil); err != nil {
			return fmt.Errorf("bookings: queue %s mail: %w", args.Mail, err)
		}
	}
	return nil
}

// sendMail renders and sends one queued mail (the job's work). A booking
// gone or erased, or a provider without an email, sends nothing; a
// message the mailer refuses as invalid cancels the job.
func (s *Service) sendMail(ctx context.Context, args mailArgs) error {
	if s.o.Mailer == nil {
		return errors.New("bookings: send mail: no mailer")
	}
	msg, ok, err := s.renderMail(ctx, args)
	if err != nil || !ok {
		return err
	}
	if err := s.o.Mailer.Send(ctx, msg); err != nil {
		if errors.Is(err, mail.ErrInvalidMessage) {
			return river.JobCancel(fmt.Errorf("bookings: send %s mail of booking %d: %w", args.Mail, args.BookingID, err))
		}
		return fmt.Errorf("bookings: send %s mail of booking %d: %w", args.Mail, args.BookingID, err)
	}
	return nil
}

// renderMail is the message args describes; ok is false when there is
// nothing to send.
func (s *Service) renderMail(ctx context.Context, args mailArgs) (mail.Message, bool, error) {
	b, err := s.store.Booking(ctx, args.BookingID)
	if errors.Is(err, ErrNotFound) {
		return mail.Message{}, false, nil
	}
	if err != nil {
		return mail.Message{}, false, fmt.Errorf("bookings: render mail: %w", err)
	}
	svc, err := s.store.ServiceByID(ctx, b.ServiceID)
	if err != nil {
		return mail.Message{}, false, fmt.Errorf("bookings: render mail: %w", err)
	}
	var provider Provider
	if id := args.ProviderID; id != 0 || b.ProviderID != nil {
		if id == 0 {
			id = *b.ProviderID
		}
		if provider, err = s.store.Provider(ctx, id); err != nil && !errors.Is(err, ErrNotFound) {
			return mail.Message{}, false, fmt.Errorf("bookings: render mail: %w", err)
		}
	}
	switch args.Mail {
	case mailProviderAssigned, mailProviderUnassigned:
		if provider.Email == "" {
			return mail.Message{}, false, nil
		}
		return s.providerMail(args, b, svc, provider), true, nil
	}
	if b.CustomerEmail == "" {
		return mail.Message{}, false, nil // erased
	}
	loc := location(b.CustomerTimeZone)
	if b.CustomerTimeZone == "" {
		loc = location(svc.TimeZone)
	}
	var text strings.Builder
	fmt.Fprintf(&text, "Hello %s,\n\n", b.CustomerName)
	var subject string
	attach := false
	switch args.Mail {
	case mailRequested:
		subject = "We have your booking request"
		text.WriteString("We have your request. We will write again once it is confirmed.\n\n")
	case mailConfirmed:
		subject = "Your booking is confirmed"
		text.WriteString("Your booking is confirmed.\n\n")
		attach = true
	case mailCancelled:
		subject = "Your booking is cancelled"
		text.WriteString("Your booking is cancelled.\n")
		if args.Reason != "" && args.Actor != ActorCustomer {
			fmt.Fprintf(&text, "Reason: %s\n", args.Reason)
		}
		text.WriteString("\n")
	case mailRescheduled:
		subject = "Your booking has moved"
		text.WriteString("Your booking has moved to a new time.\n")
		if args.PreviousStart != nil {
			fmt.Fprintf(&text, "It was: %s\n", args.PreviousStart.In(loc).Format("Monday 2 January 2006, 15:04"))
		}
		text.WriteString("\n")
		attach = true
	case mailReminder:
		subject = "Reminder: your booking on " + b.Start.In(loc).Format("Monday 2 January")
		text.WriteString("A reminder of your booking.\n\n")
	default:
		return mail.Message{}, false, river.JobCancel(fmt.Errorf("bookings: unknown mail kind %q", args.Mail))
	}
	details(&text, b, svc, provider.Name, loc)
	if b.SeriesID != "" && (args.Mail == mailConfirmed || args.Mail == mailRequested) && b.SeriesIndex == 0 {
		all, err := s.store.SeriesBookings(ctx, b.SeriesID)
		if err != nil {
			return mail.Message{}, false, fmt.Errorf("bookings: render mail: %w", err)
		}
		fmt.Fprintf(&text, "\nThis is the first of %d bookings in a series:\n", len(all))
		for _, o := range all {
			fmt.Fprintf(&text, "- %s\n", o.Start.In(loc).Format("Monday 2 January 2006, 15:04"))
		}
		text.WriteString("The link below can cancel this one or it and all later ones.\n")
	}
	if link := s.manageLink(args, b); link != "" {
		fmt.Fprintf(&text, "\nTo see, cancel or move your booking, use this link (keep it to yourself):\n%s\n", link)
	} else if args.Mail != mailCancelled {
		text.WriteString("\nTo cancel or move your booking, use the link in your first email.\n")
	}
	msg := mail.Message{From: s.o.MailFrom, To: []string{b.CustomerEmail}, Subject: subject + ": " + svc.Name,
		Headers: map[string]string{"X-Groundwork-Booking": b.Number}}
	if attach {
		ics, err := s.ICS(ctx, b)
		if err != nil {
			return mail.Message{}, false, err
		}
		text.WriteString("\nThe attached calendar file adds it to your calendar.\n")
		msg.Attachments = []mail.Attachment{{Name: fileName(b.Number), ContentType: "text/calendar; charset=utf-8; method=PUBLISH", Data: ics}}
	}
	msg.Text = text.String()
	return msg, true, nil
}

func (s *Service) providerMail(args mailArgs, b Booking, svc Offering, p Provider) mail.Message {
	loc := location(p.TimeZone)
	var text strings.Builder
	fmt.Fprintf(&text, "Hello %s,\n\n", p.Name)
	subject := "New booking"
	if args.Mail == mailProviderUnassigned {
		subject = "Booking moved to someone else"
		text.WriteString("This booking is no longer yours:\n\n")
	} else {
		text.WriteString("This booking is yours:\n\n")
	}
	details(&text, b, svc, "", loc)
	if b.CustomerName != "" {
		fmt.Fprintf(&text, "Customer: %s <%s>\n", b.CustomerName, b.CustomerEmail)
	}
	return mail.Message{From: s.o.MailFrom, To: []string{p.Email}, Subject: subject + ": " + svc.Name + ", " + b.Start.In(loc).Format("2 January 15:04"),
		Text: text.String(), Headers: map[string]string{"X-Groundwork-Booking": b.Number}}
}

// details writes a booking's service, provider, time (in loc) and number.
func details(w *strings.Builder, b Booking, svc Offering, provider string, loc *time.Location) {
	fmt.Fprintf(w, "Service: %s\n", svc.Name)
	if provider != "" {
		fmt.Fprintf(w, "With: %s\n", provider)
	}
	start, end := b.Start.In(loc), b.End.In(loc)
	endLayout := "15:04"
	if slots.DateOf(start) != slots.DateOf(end) {
		endLayout = "Monday 2 January 2006, 15:04"
	}
	fmt.Fprintf(w, "When: %s to %s (%s)\n", start.Format("Monday 2 January 2006, 15:04"), end.Format(endLayout), loc)
	if where := b.Location.Text(); where != "" {
		fmt.Fprintf(w, "Where: %s\n", where)
	}
	fmt.Fprintf(w, "Reference: %s\n", b.Number)
}

// storedToken binds a manage token sealed for the booking's row, where
// its id is not known yet.
var storedToken = []byte("bookings stored manage token")

// sealStored seals a new manage token for its booking's row; "" without
// a secret key.
func (s *Service) sealStored(token string) string {
	if s.sealer == nil {
		return ""
	}
	return s.sealer.Seal(token, storedToken)
}

// manageLink is the manage URL with the job's token (the creation's), else
// the booking's stored one, or "".
func (s *Service) manageLink(args mailArgs, b Booking) string {
	if s.o.ManageURL == "" || s.sealer == nil {
		return ""
	}
	var token string
	var err error
	switch {
	case args.SealedToken != "":
		token, err = s.sealer.Open(args.SealedToken, bindToken(args.BookingID))
	case b.SealedManageToken != "":
		token, err = s.sealer.Open(b.SealedManageToken, storedToken)
	default:
		return ""
	}
	if err != nil {
		s.o.Logger.Error("bookings: a queued manage token does not open", "booking", args.BookingID, "error", err)
		return ""
	}
	return strings.ReplaceAll(s.o.ManageURL, "{token}", token)
}

// sendsMail reports whether the service mails customers about their
// bookings: it has an Enqueuer to queue the mail and a Mailer to send it.
// The pages promise a confirmation only then.
func (s *Service) sendsMail() bool { return s.o.Enqueuer != nil && s.o.Mailer != nil }
