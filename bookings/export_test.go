package bookings

import "context"

// The job and texts the tests check, by the names they had when exported.
type MailArgs = mailArgs

const (
	MailConfirmed           = mailConfirmed
	MailReminder            = mailReminder
	MsgAlreadyAtThatTime    = msgAlreadyAtThatTime
	MsgCancelDisabled       = msgCancelDisabled
	MsgHoldInvalid          = msgHoldInvalid
	MsgInsideChangeWindow   = msgInsideChangeWindow
	MsgNoService            = msgNoService
	MsgProviderNotHere      = msgProviderNotHere
	MsgRescheduleNotOffered = msgRescheduleNotOffered
	MsgTaken                = msgTaken
	MsgTimeNotUnderstood    = msgTimeNotUnderstood
	MsgTooFar               = msgTooFar
	MsgTooLateToCancel      = msgTooLateToCancel
	MsgTooLateToReschedule  = msgTooLateToReschedule
	MsgTooMany              = msgTooMany
	MsgTooManyAnswers       = msgTooManyAnswers
	MsgTooSoon              = msgTooSoon
)

// The slot helper the tests check, by its exported name of before.
var MonthSpan = monthSpan

// SendMail is the mail job's work, which the tests run by hand.
func SendMail(s *Service, ctx context.Context, args mailArgs) error { return s.sendMail(ctx, args) }

// SendsMail reports whether s mails customers.
func SendsMail(s *Service) bool { return s.sendsMail() }

// ExpireUnpaid is the reminders job's sweep of bookings left unpaid.
func ExpireUnpaid(s *Service, ctx context.Context) (int, error) { return s.expireUnpaid(ctx) }

// Refund is the refund job's work.
func Refund(s *Service, ctx context.Context, id int64) error { return s.refund(ctx, id) }

// The feed's refusal the tests check, by its exported name of before.
var ErrNoCalendar = errNoCalendar
