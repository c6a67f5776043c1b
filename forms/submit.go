package forms

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// SubmitRequest is what a visitor sent.
type SubmitRequest struct {
	// Values are the answers by field name; a field with several values
	// (a checkbox group) has several entries.
	Values map[string][]string
	// Files are the uploads by field name, from AcceptFile.
	Files map[string]*IncomingFile
	// Honeypot is the hidden website_url input; FormToken the
	// _form_token input (see Service.FormToken); LoadedAt the
	// _form_loaded_at input (Unix seconds), which counts only with
	// Options.FormTokenOptional.
	Honeypot  string
	FormToken string
	LoadedAt  string
	// About the request, kept with the submission.
	PageURL, ReferrerURL, IPAddress, UserAgent string
	// Respondent is who sends it, by the host's identity (a user's ID),
	// for a form that takes one response a person; "" for no one.
	Respondent string
	// Access is the token of the link the person opened the form from
	// (the AccessField input), for a form that knows people by email or
	// invitation.
	Access string

	// KeptIDs name uploads kept from the visitor's last try, by field
	// (the KeptUploadField inputs); a file sent for the field replaces
	// its kept one.
	KeptIDs map[string]string
	// Kept are the uploads this request's failure kept, by field (see
	// Service.KeepUploads), for the page to name and send back.
	Kept map[string]KeptUpload

	// Resume is the token of the saved partial response this one
	// finishes (the ResumeField input): its files answer the file fields
	// sent without one, and it is deleted as the submission is stored.
	Resume string
	// Language is the language the submission was sent in (the
	// LanguageField input, or the request's choice): its messages are
	// said in it, and its notifications sent in it where translated.
	Language string
	// Prefill is a signed prefill token (the PrefillField input): the
	// values it sets win over those sent.
	Prefill string
	// ResumeEmail, in a save (the ResumeEmailField input), is where to
	// mail the resume link.
	ResumeEmail string

	// pages is where the form pages are, for the link a payment page
	// returns to ("" for Options.PagesURL).
	pages string

	// action is the page's button pressed (the ActionField input):
	// ActionSave saves instead of submitting.
	action string

	// resumed is the partial Resume names, once read.
	resumed *Partial

	// keepValid keeps the valid uploads when the submission fails.
	keepValid bool
	// step is the page's step the person sent (StepField), on a form
	// whose page shows one step at a time; back is true when they went
	// back from it. onward, set as the answers are judged, is where a
	// step answered leads when it is not the last.
	step   int64
	back   bool
	onward *stepTaken

	// refused are the messages of files refused as they arrived, by
	// field: they stand for the field's answer, beside every other
	// field's messages, so a person sees all their mistakes at once.
	refused map[string][]string

	// Whether the form-load token's use was counted, and found a replay
	// (see tokenVerdict).
	tokenCounted  bool
	tokenReplayed bool

	// captchaPassed is set once the CAPTCHA verdict was good, so that a
	// submission tried again does not spend its token twice.
	captchaPassed bool
}

// refuse records a message that stands for field's answer (a file
// refused as it arrived, a kept upload gone).
func (req *SubmitRequest) refuse(field, msg string) {
	if req.refused == nil {
		req.refused = map[string][]string{}
	}
	req.refused[field] = append(req.refused[field], msg)
}

// SubmitResult is the outcome of a submission that passed validation.
type SubmitResult struct {
	Submission *Submission
	// Spam is true when the honeypot was filled or the form was sent too
	// fast: the submission is stored, flagged, and nobody is told.
	Spam        bool
	Message     string
	RedirectURL *string
	// BookingURL is the booking page a routing form sends the respondent
	// to, prefilled (see Service.RouteWith); "" for none.
	BookingURL string
	// PaymentURL is the payment page of a paid form's submission, kept
	// awaiting payment: send the person there; "" for none.
	PaymentURL string
}

// Submit validates a submission against the form's fields and stores it.
// Fields hidden by conditional logic are neither validated nor stored.
// Bad answers are a *ValidationError, keyed by field name. A filled
// honeypot, or a form sent sooner after loading than its MinFillSeconds, is stored as
// spam and answered like any other. For a real submission, notifications
// are queued and the Tx hooks run inside its transaction; the other hooks
// run once it has committed. Files in req are kept only if the submission
// is stored.
func (s *Service) Submit(ctx context.Context, form *Form, fields []Field, req *SubmitRequest) (*SubmitResult, error) {
	err := s.takePartial(ctx, form, req)
	var res *SubmitResult
	if err == nil {
		res, err = s.submit(ctx, definition{form: form, fields: fields}, req, false)
	}
	if err != nil {
		s.discardFiles(ctx, req.Files)
		return nil, err
	}
	s.dropPartialFiles(ctx, req.resumed, res.Submission)
	return res, nil
}

// submit is Submit leaving req's files alone when it fails. When it
// succeeds, the files it did not store (those of hidden fields) are
// deleted and the stored ones removed from req.Files. With checked, the
// store refuses the submission (ErrStale) if the form's version is no
// longer def.form.Version.
func (s *Service) submit(ctx context.Context, def definition, req *SubmitRequest, checked bool) (*SubmitResult, error) {
	form, fields := def.form, def.fields
	if !form.IsActive {
		return nil, ErrInactive
	}
	now := s.now()
	if !Open(form, now) {
		return nil, ErrClosed
	}
	var who string
	if form.OnePerPerson {
		var err error
		if who, err = s.person(form, req.Respondent, req.Access, now); err != nil {
			return nil, err
		}
	}
	gatherParts(fields, req.Values)
	a := answers(req.Values)
	if a == nil {
		a = answers{}
	}
	names := fieldNames(fields)
	asked, err := s.askedOf(ctx, def, req, a, names)
	if err != nil {
		return nil, err
	}
	// What the request said of itself is kept as it came, made storable.
	sub := &Submission{FormID: form.ID, PageURL: driverless.ClipText(req.PageURL, 2048),
		ReferrerURL: driverless.ClipText(req.ReferrerURL, 2048), IPAddress: driverless.ClipText(req.IPAddress, 64),
		UserAgent: driverless.ClipText(req.UserAgent, 512), CreatedAt: now, UpdatedAt: now}
	v := &api.Validator{}
	sp := speakerFor(form, fields, req.Language)
	s.lockPrefill(form, fields, req, a, v, sp)
	for i := range fields {
		f := &fields[i]
		if isLayout(f.Type) || f.Type == TypeTotal {
			continue // a total is worked out below
		}
		file := req.Files[f.Name]
		if !f.visible(a, names) || !asked(f) {
			continue // hidden, or on a step skipped: its file, if any, is discarded with the rest
		}
		if msgs := req.refused[f.Name]; len(msgs) > 0 {
			for _, m := range msgs {
				v.Add(f.Name, sp.phrase(m))
			}
			continue
		}
		value, ok := s.checkAnswer(v, sp, f, a[f.Name], file)
		if !ok {
			continue
		}
		value.CreatedAt = now
		sub.Values = append(sub.Values, value)
		if file != nil {
			fieldID := f.ID
			sub.Uploads = append(sub.Uploads, Upload{FieldID: &fieldID, FieldName: f.Name, OriginalName: file.OriginalName,
				StoredName: file.StoredName, Key: file.Key, MimeType: file.MimeType, Size: file.Size, CreatedAt: now})
		}
	}
	owes := s.addTotal(v, sp, fields, sub, a, now)
	if req.action == actionTotal {
		return nil, &stepTaken{Next: req.step} // the page again, its total worked out
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if req.onward != nil {
		return nil, req.onward // a step of the page, answered: on to the next
	}
	if form.Captcha {
		if err := s.checkCaptcha(ctx, req, a, sp); err != nil {
			return nil, err
		}
	}
	// Spam is stored and answered as any other submission, so a bot
	// learns nothing; the log says why (never the answers).
	why := ""
	if req.Honeypot != "" {
		why = "its honeypot field is filled"
	} else if reason := s.tokenVerdict(ctx, form, req, now); reason != "" {
		why = "its form-load token is " + reason
	}
	if why != "" {
		sub.IsSpam = true
		s.logger.InfoContext(ctx, "forms: submission stored as spam: "+why, "form", form.ID, "slug", form.Slug)
	}
	if checked {
		sub.FormVersion = form.Version
	}
	if req.resumed != nil {
		sub.ResumeHash = req.resumed.TokenHash
	}
	sub.Language = req.Language
	if form.MaxResponses != nil && !sub.IsSpam { // spam takes no place
		sub.Limit = *form.MaxResponses
	}
	if !sub.IsSpam {
		sub.Quotas = quotas(fields, sub.Values)
		sub.Respondent = who
		routeTo(form, sub, a, names, now)
	}
	if v, ok := groundwork.VisitOf(ctx); ok { // read before the transaction: the analytics reads on its own
		sub.Visit = &v
	}
	notifications := def.notifications
	if !sub.IsSpam && s.enqueuer != nil && notifications == nil {
		var err error
		if notifications, err = s.store.Notifications(ctx, form.ID); err != nil {
			return nil, fmt.Errorf("forms: submit: %w", err)
		}
	}
	event := SubmissionEvent{Form: form, Submission: sub}
	if !sub.IsSpam {
		sub.Payment = owes
	}
	// The submission and what it sets off (the notifications' jobs, the
	// hosts' hooks) commit together; with nothing set off, the store's
	// own transaction (or one statement) will do. A paid one sets them
	// off once paid.
	if txHooks := s.hooks.submissionTx.All(); !sub.IsSpam && (len(notifications) > 0 || len(txHooks) > 0 || sub.Routed != nil || sub.Payment != nil) {
		err = s.store.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			if err := s.store.CreateSubmission(ctx, sub); err != nil {
				return err
			}
			if err := s.keepRoute(ctx, tx, form, sub); err != nil {
				return err
			}
			if sub.Payment != nil {
				return s.store.SetPayment(ctx, form.ID, sub.ID, "", sub.Payment)
			}
			return s.acceptTx(ctx, tx, notifications, txHooks, event, a, names)
		})
	} else {
		err = s.store.CreateSubmission(ctx, sub)
	}
	if qe, full := errors.AsType[*QuotaError](err); full {
		// Said at the field, as any answer that cannot be taken.
		v := &api.Validator{}
		v.Add(qe.Quota.Field, sp.say("No places are left for %s; choose another.", quotaLabel(form, qe.Quota, req.Language)))
		return nil, v.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("forms: submit: %w", err)
	}
	// Files of hidden fields were not stored with the submission.
	stored := map[string]bool{}
	for _, u := range sub.Uploads {
		stored[u.Key] = true
	}
	for name, f := range req.Files {
		if f != nil && stored[f.Key] {
			delete(req.Files, name)
		}
	}
	s.discardFiles(ctx, req.Files)
	if sub.Payment != nil {
		if err := s.openCheckout(ctx, form, sub, s.paymentReturn(form, sub, req.pages)); err != nil {
			return nil, err
		}
	} else if !sub.IsSpam {
		s.fireAccepted(ctx, event)
	}
	msg := form.SuccessMessage
	if t := form.Translations[req.Language].SuccessMessage; t != "" {
		msg = t
	}
	if msg = recall(msg, submittedAnswers(sub)); strings.TrimSpace(msg) == "" {
		msg = sp.say("Form submitted successfully.")
	}
	outcome := "accepted"
	if sub.IsSpam {
		outcome = "spam"
	}
	groundwork.Count(s.meter, groundwork.MetricSubmissions, outcome)
	res := &SubmitResult{Submission: sub, Spam: sub.IsSpam, Message: msg, RedirectURL: form.RedirectURL, BookingURL: s.bookingURL(ctx, event)}
	if sub.Payment != nil {
		res.PaymentURL = sub.Payment.CheckoutURL
	}
	return res, nil
}

// fieldNames maps each field's UUID to its name, as conditions name
// fields.
func fieldNames(fields []Field) map[string]string {
	names := make(map[string]string, len(fields))
	for _, f := range fields {
		names[f.UUID] = f.Name
	}
	return names
}

// acceptTx does, inside the transaction that stores (or releases from
// spam) an accepted submission, what it sets off there: its notifications
// queued (a holds its answers by field name) and the Tx hooks run.
func (s *Service) acceptTx(ctx context.Context, tx *sql.Tx, notifications []Notification, txHooks []SubmissionTxHook,
	event SubmissionEvent, a answers, names map[string]string) error {
	if err := s.queueNotifications(ctx, tx, notifications, event, a, names); err != nil {
		return err
	}
	for _, h := range txHooks {
		if err := h(ctx, tx, event); err != nil {
			return err
		}
	}
	return nil
}

// fireAccepted runs the submission hooks once an accepted submission has
// committed.
func (s *Service) fireAccepted(ctx context.Context, event SubmissionEvent) {
	for _, h := range s.hooks.submission.All() {
		s.safely(ctx, "submission", func() { h(ctx, event) })
	}
}

// tooFast reports whether the form came back within minFill of the
// _form_loaded_at it carried (a time in the future counts too). A missing
// or unreadable time is no evidence either way.
func tooFast(loadedAt string, now time.Time, minFill time.Duration) bool {
	secs, err := strconv.ParseInt(strings.TrimSpace(loadedAt), 10, 64)
	if err != nil || loadedAt == "" {
		return false
	}
	return now.Sub(time.Unix(secs, 0)) < minFill
}

// Open reports whether form takes submissions at now by its dates
// (OpensAt, ClosesAt); whether it is full is known only as a submission
// is stored.
func Open(form *Form, now time.Time) bool {
	return (form.OpensAt == nil || !now.Before(*form.OpensAt)) && (form.ClosesAt == nil || now.Before(*form.ClosesAt))
}

// closedWords is what a person reads instead of form when it is closed or
// full: its ClosedMessage, else a sentence for why.
func closedWords(form *Form, why error) string {
	switch {
	case errors.Is(why, ErrSignInRequired):
		return "Sign in to respond to this form: it takes one response a person."
	case errors.Is(why, ErrResponded):
		return "You have responded to this form already; it takes one response a person."
	case errors.Is(why, ErrAccessRequired) && identifyBy(form) == IdentifyByInvitation:
		return "This form takes responses by invitation: open it from the link in your invitation."
	case errors.Is(why, ErrAccessExpired) && identifyBy(form) == IdentifyByInvitation:
		return "This invitation has expired. Ask whoever sent it for a new one."
	case errors.Is(why, ErrAccessRequired):
		return "This form takes one response a person: enter your email address and open the form from the link we send you."
	case errors.Is(why, ErrAccessExpired):
		return "This link has expired. Enter your email address to get a new one."
	}
	if m := strings.TrimSpace(form.ClosedMessage); m != "" {
		return m
	}
	if errors.Is(why, ErrFull) {
		return "This form has all the responses it takes, so it is closed."
	}
	return "This form is not taking responses now."
}

// Full reports whether form has taken its MaxResponses already (never
// for a form without a limit); a submission is still counted again as it
// is stored.
func (s *Service) Full(ctx context.Context, form *Form) (bool, error) {
	if form.MaxResponses == nil {
		return false, nil
	}
	notSpam := false
	_, n, err := s.store.ListSubmissions(ctx, SubmissionQuery{FormID: form.ID, IsSpam: &notSpam, Limit: 1})
	if err != nil {
		return false, fmt.Errorf("forms: full: %w", err)
	}
	return int64(n) >= *form.MaxResponses, nil
}

// closedBy is why form takes no submission at now from the person
// signed in or opening it with access (ErrClosed, ErrFull,
// ErrSignInRequired, ErrAccessRequired, ErrAccessExpired, ErrResponded),
// or nil.
func (s *Service) closedBy(ctx context.Context, form *Form, now time.Time, signedIn, access string) (error, error) {
	if !Open(form, now) {
		return ErrClosed, nil
	}
	if form.OnePerPerson {
		respondent, why := s.person(form, signedIn, access, now)
		if why != nil {
			return why, nil
		}
		done, err := s.store.Responded(ctx, form.ID, respondent)
		if err != nil {
			return nil, fmt.Errorf("forms: responded: %w", err)
		}
		if done {
			return ErrResponded, nil
		}
	}
	full, err := s.Full(ctx, form)
	if err != nil || !full {
		return nil, err
	}
	return ErrFull, nil
}

// quotas are the options with a quota that values choose.
func quotas(fields []Field, values []Value) []Quota {
	var out []Quota
	for i := range fields {
		f := &fields[i]
		if f.Type != TypeSelect && f.Type != TypeRadio {
			continue
		}
		for _, v := range values {
			if v.FieldName != f.Name || v.Value == nil {
				continue
			}
			for _, o := range f.Options() {
				if o.Quota > 0 && o.Value == *v.Value {
					out = append(out, Quota{Field: f.Name, Value: o.Value, Label: o.Label, Limit: o.Quota})
				}
			}
		}
	}
	return out
}

// remaining is, for each field of fields with options that have a quota,
// the places each such option has left.
func (s *Service) remaining(ctx context.Context, form *Form, fields []Field) (map[string]map[string]int64, error) {
	out := map[string]map[string]int64{}
	for i := range fields {
		f := &fields[i]
		var limited []Option
		for _, o := range f.Options() {
			if o.Quota > 0 && (f.Type == TypeSelect || f.Type == TypeRadio) {
				limited = append(limited, o)
			}
		}
		if len(limited) == 0 {
			continue
		}
		taken, err := s.store.ChoiceCounts(ctx, form.ID, f.Name)
		if err != nil {
			return nil, fmt.Errorf("forms: remaining: %w", err)
		}
		out[f.Name] = map[string]int64{}
		for _, o := range limited {
			out[f.Name][o.Value] = max(o.Quota-taken[o.Value], 0)
		}
	}
	return out, nil
}
