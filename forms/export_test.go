package forms

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
