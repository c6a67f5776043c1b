package forms

import (
	"context"
	"database/sql"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/groundwork-go/groundwork/internal/hooks"
)

// SubmissionEvent is an accepted submission and its form.
type SubmissionEvent struct {
	Form       *Form
	Submission *Submission
}

// EventSubmitted is the name of an accepted submission's event, for a
// webhook catalogue; Submitted is its data.
const EventSubmitted = "form.submitted"

// Submitted is an accepted submission as another system is told of it
// (a form.submitted webhook): its form's slug, its id and number, its
// answers as shown, by field name, and when it came.
type Submitted struct {
	Form         string            `json:"form"`
	SubmissionID int64             `json:"submission_id"`
	Number       string            `json:"number"`
	Values       map[string]string `json:"values"`
	SubmittedAt  time.Time         `json:"submitted_at"`
	// Routed is where a routing form sent the respondent to book.
	Routed *Routed `json:"routed,omitempty"`
	// Payment is a paid form's payment, paid (its submission is told of
	// once paid).
	Payment *Payment `json:"payment,omitempty"`
}

// Data is e as another system is told of it.
func (e SubmissionEvent) Data() Submitted {
	values := make(map[string]string, len(e.Submission.Values))
	for _, v := range e.Submission.Values {
		values[v.FieldName] = v.DisplayValue
	}
	out := Submitted{Form: e.Form.Slug, SubmissionID: e.Submission.ID, Number: e.Submission.Number(), Values: values,
		SubmittedAt: e.Submission.CreatedAt, Routed: e.Submission.Routed}
	if p := e.Submission.Payment; p != nil {
		told := *p
		told.CheckoutURL, told.Session = "", "" // the page is closed; the payment is what counts
		out.Payment = &told
	}
	return out
}

// SubmissionHook runs after an accepted submission has committed.
type SubmissionHook func(ctx context.Context, e SubmissionEvent)

// SubmissionTxHook runs inside the transaction that stores an accepted
// submission; an error rolls the submission back and fails the request.
// tx is never nil.
type SubmissionTxHook func(ctx context.Context, tx *sql.Tx, e SubmissionEvent) error

// FormHook runs after a form was created, updated or deleted.
type FormHook func(ctx context.Context, f *Form)

// registered are the callbacks a host registers.
type registered struct {
	submission                hooks.List[SubmissionHook]
	submissionTx              hooks.List[SubmissionTxHook]
	routedNotBooked           hooks.List[SubmissionTxHook]
	created, updated, deleted hooks.List[FormHook]
}

// OnSubmissionAccepted registers a hook for every accepted submission,
// after it commits. Spam never reaches it. Hooks run in order, in the
// request, so they should be quick; a panic is logged and swallowed.
func (s *Service) OnSubmissionAccepted(h SubmissionHook) { s.hooks.submission.Add(h) }

// OnSubmissionAcceptedTx registers a hook that runs inside the
// submission's transaction, for work that must commit with it, such as
// recording webhook deliveries. Spam never reaches it.
func (s *Service) OnSubmissionAcceptedTx(h SubmissionTxHook) { s.hooks.submissionTx.Add(h) }

// OnFormCreated registers a hook for every new form.
func (s *Service) OnFormCreated(h FormHook) { s.hooks.created.Add(h) }

// OnFormUpdated registers a hook for every updated form.
func (s *Service) OnFormUpdated(h FormHook) { s.hooks.updated.Add(h) }

// OnFormDeleted registers a hook for every deleted form.
func (s *Service) OnFormDeleted(h FormHook) { s.hooks.deleted.Add(h) }

// safely runs fn, logging a panic instead of passing it on.
func (s *Service) safely(ctx context.Context, what string, fn func()) {
	defer func() {
		if v := recover(); v != nil {
			s.logger.ErrorContext(ctx, "forms: hook panicked", "hook", what, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	fn()
}

func (s *Service) fireForm(ctx context.Context, list []FormHook, f *Form) {
	for _, h := range list {
		s.safely(ctx, "form", func() { h(ctx, f) })
	}
}
