package forms

import "context"

// The mail throttles the tests check, by the names they had when
// exported.
const (
	AccessMailWindow      = accessMailWindow
	ResumeMailsPerAddress = resumeMailsPerAddress
)

// Knobs the tests read, by their exported names of before.
const (
	UploadKeepTime = uploadKeepTime
)

// Messages and limits the tests read, by their exported names of before.
const (
	MistakesPerSubmission = mistakesPerSubmission
	MsgCaptchaFailed      = msgCaptchaFailed
	MsgKeptUploadGone     = msgKeptUploadGone
)

// Remaining is the places each option with a quota has left, for the
// tests of quotas across instances.
func (s *Service) Remaining(ctx context.Context, form *Form, fields []Field) (map[string]map[string]int64, error) {
	return s.remaining(ctx, form, fields)
}

// ExpireUnpaid runs the sweep of submissions whose payment page closed
// without word, as the periodic job does.
func (s *Service) ExpireUnpaid(ctx context.Context) (int, error) { return s.expireUnpaid(ctx) }
