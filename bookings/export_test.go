package bookings

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

// The slot helpers the tests check, by their exported names of before.
var (
	Merge     = mergeSlots
	MonthSpan = monthSpan
	Offers    = dayOffers
)
