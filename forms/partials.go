package forms

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/api"
)

// Save and resume: a form with SaveAndResume lets a person save their
// answers so far (a Partial, kept apart from submissions) and come back
// from a resume link on any instance; the token is random and only its
// hash is stored.
const (
	// ResumeField carries a resume token: the page's hidden input, a
	// save's or a submission's field.
	ResumeField = "_resume"
	// ResumeEmailField, in a save, names an address to mail the resume
	// link to.
	ResumeEmailField = "_resume_email"
	// ResumeQuery is the page address's parameter with the resume token
	// (/forms/{form}?resume=...).
	ResumeQuery = "resume"
	// ResumeHoursDefault is how long a resume link is good unless the
	// form says (a week); ResumeHoursMax the most a form may say (90 days).
	ResumeHoursDefault = 7 * 24
	ResumeHoursMax     = 90 * 24

	// ActionField is the page's button pressed: ActionSave saves the
	// answers instead of sending them.
	ActionField = "_action"
	ActionSave  = "save"

	resumeTokenBytes = 24
	resumeTokenMax   = 64
)

// SavedPartial is the answer to a save: the resume token (shown once;
// only its hash is kept), the page's address with it when known, when it
// stops working, and the last step reached.
type SavedPartial struct {
	Token     string    `json:"resume_token"`
	URL       string    `json:"resume_url,omitempty"`
	ExpiresAt time.Time `json:"expires_at"`
	LastStep  int       `json:"last_step"`
}

// PartialSummary is where people stop: the live partial responses of a
// form, latest saved first, how many there are, and how many stopped at
// each step.
type PartialSummary struct {
	Partials []Partial   `json:"data"`
	Total    int         `json:"total"`
	ByStep   []StepCount `json:"by_step"`
}

// StepCount is how many partial responses stopped at a step (1-based).
type StepCount struct {
	Step  int `json:"step"`
	Count int `json:"count"`
}

// errNoSave is a save of a form that does not take them.
var errNoSave = &api.Error{Status: 409, Message: "This form cannot be saved to finish later."}

// hashToken is what a resume token is kept as.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// resumeFor is how long form's resume links are good.
func resumeFor(form *Form) time.Duration {
	if form.ResumeHours <= 0 {
		return ResumeHoursDefault * time.Hour
	}
	return time.Duration(form.ResumeHours) * time.Hour
}

// Partial returns form's saved partial response with this resume token;
// one expired (or never saved, or sent since) is a 404 ErrNotFound.
func (s *Service) Partial(ctx context.Context, form *Form, token string) (*Partial, error) {
	if token == "" || len(token) > resumeTokenMax {
		return nil, notFound("Saved response")
	}
	p, err := s.store.PartialByToken(ctx, form.ID, hashToken(token))
	if errors.Is(err, ErrNotFound) || err == nil && !s.now().Before(p.ExpiresAt) {
		return nil, notFound("Saved response")
	}
	if err != nil {
		return nil, fmt.Errorf("forms: partial: %w", err)
	}
	return p, nil
}

// SavePartial saves the answers of req so far for the person to finish
// later: as a new partial response, or over the one req.Resume names (its
// files kept unless sent again). Answers are kept as sent, for the form's
// fields only; nothing is validated but who may respond (a form closed, or
// taking one response a person, refuses as a submission would), and
// nothing is notified, exported or hooked. With address, the resume link
// is mailed there. pages is where the form's page is served
// (Options.PagesURL when set wins). req's files are the partial's, or
// deleted.
func (s *Service) SavePartial(ctx context.Context, form *Form, fields []Field, req *SubmitRequest, address, pages string) (*SavedPartial, error) {
	saved, err := s.savePartial(ctx, form, fields, req, address, pages)
	s.discardFiles(ctx, req.Files) // those the partial took are gone from req
	return saved, err
}

func (s *Service) savePartial(ctx context.Context, form *Form, fields []Field, req *SubmitRequest, address, pages string) (*SavedPartial, error) {
	now := s.now()
	switch {
	case !form.IsActive:
		return nil, ErrInactive
	case !form.SaveAndResume:
		return nil, errNoSave
	case !Open(form, now):
		return nil, ErrClosed
	}
	if form.OnePerPerson {
		if _, err := s.person(form, req.Respondent, req.Access, now); err != nil {
			return nil, err
		}
	}
	address = strings.TrimSpace(address)
	if address != "" && (len(address) > 254 || !validEmail(address)) {
		v := &api.Validator{}
		v.Add(ResumeEmailField, api.MsgEmail("email"))
		return nil, v.Err()
	}
	if address != "" {
		// Counted before the save, so a refusal leaves nothing saved
		// that the person was not given the link of.
		if err := s.resumeMailAllowed(ctx, form, address, ResumeEmailField); err != nil {
			return nil, err
		}
	}
	steps, err := s.store.Steps(ctx, form.ID)
	if err != nil {
		return nil, fmt.Errorf("forms: save partial: %w", err)
	}
	token := req.Resume
	p, err := s.Partial(ctx, form, token)
	if errors.Is(err, ErrNotFound) {
		// Swept, sent or never saved: a new one.
		var raw [resumeTokenBytes]byte
		_, _ = rand.Read(raw[:])
		token = base64.RawURLEncoding.EncodeToString(raw[:])
		p, err = &Partial{FormID: form.ID, TokenHash: hashToken(token), CreatedAt: now}, nil
	}
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*Field, len(fields))
	for i := range fields {
		byName[fields[i].Name] = &fields[i]
	}
	values := map[string][]string{}
	for name, list := range req.Values {
		if f, ok := byName[name]; ok && !isLayout(f.Type) && f.Type != TypeFile {
			values[name] = slices.Clone(list)
		}
	}
	if req.Access != "" {
		values[AccessField] = []string{req.Access} // so the link resumes as the person
	}
	var replaced []string
	uploads := p.Uploads[:0:0]
	for _, u := range p.Uploads {
		if req.Files[u.FieldName] != nil {
			replaced = append(replaced, u.Key)
			continue
		}
		uploads = append(uploads, u)
	}
	taken := map[string]*IncomingFile{}
	for name, f := range req.Files {
		if f == nil || byName[name] == nil || byName[name].Type != TypeFile || f.borrowed {
			continue
		}
		file := *f
		file.FieldName = name
		uploads = append(uploads, file)
		taken[name] = f
	}
	slices.SortFunc(uploads, func(a, b IncomingFile) int { return strings.Compare(a.FieldName, b.FieldName) })
	p.Values, p.Uploads, p.UpdatedAt, p.ExpiresAt = values, uploads, now, now.Add(resumeFor(form))
	p.LastStep = lastStep(fields, steps, values, uploads)
	if err := s.store.SavePartial(ctx, p); err != nil {
		return nil, fmt.Errorf("forms: save partial: %w", err)
	}
	for name := range taken {
		delete(req.Files, name) // the partial's now
	}
	s.removeBlobs(ctx, replaced)
	if s.pagesURL != "" {
		pages = s.pagesURL
	}
	out := &SavedPartial{Token: token, ExpiresAt: p.ExpiresAt, LastStep: p.LastStep}
	if pages != "" {
		out.URL = pageLink(pages, form, ResumeQuery, token)
	}
	if address != "" && out.URL != "" {
		if err := s.enqueueResumeLink(ctx, form, p, address, out.URL); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MailResumeLink mails link, the resume link of partial (a response of
// form saved to finish later), to address. A bad address, or one sent
// resumeMailsPerAddress links in the last accessMailWindow (counted by
// Options.FormTokenUses, so across instances with a shared limiter), is a
// *ValidationError on "email".
func (s *Service) MailResumeLink(ctx context.Context, form *Form, partial *Partial, address, link string) error {
	address, err := checkAddress(address)
	if err != nil {
		return err
	}
	if err := s.resumeMailAllowed(ctx, form, address, "email"); err != nil {
		return err
	}
	return s.enqueueResumeLink(ctx, form, partial, address, link)
}

// resumeMailAllowed counts a resume link mailed to address, refusing it
// past resumeMailsPerAddress in accessMailWindow on field.
func (s *Service) resumeMailAllowed(ctx context.Context, form *Form, address, field string) error {
	res, err := s.tokenUses.Hit(ctx, "forms-resume-mail:"+strings.ToLower(address), resumeMailsPerAddress, accessMailWindow)
	if err != nil {
		return fmt.Errorf("forms: mail resume link: %w", err)
	}
	if !res.Allowed {
		s.logger.InfoContext(ctx, "forms: resume link not mailed: too many to one address", "form", form.ID)
		return api.Invalid(field, "Too many links have been mailed to this address in the last hour. Copy the link instead, or try again later.")
	}
	return nil
}

// enqueueResumeLink queues the mail of a resume link.
func (s *Service) enqueueResumeLink(ctx context.Context, form *Form, partial *Partial, address, link string) error {
	if s.enqueuer == nil {
		return errors.New("forms: mail resume link: the service has no Enqueuer to send mail")
	}
	// The link waits in the queue until it is sent: the answers it opens
	// are in the same database.
	if err := s.enqueuer.Enqueue(ctx, linkMailArgs{FormID: form.ID, Email: address, Link: link, ExpiresAt: partial.ExpiresAt}, nil); err != nil {
		return fmt.Errorf("forms: mail resume link: %w", err)
	}
	return nil
}

// lastStep is the last step (1-based, in step order) with an answer or a
// file; 1 for a form without steps or answers.
func lastStep(fields []Field, steps []Step, values map[string][]string, uploads []IncomingFile) int {
	place := make(map[int64]int, len(steps))
	for i, st := range steps {
		place[st.ID] = i + 1
	}
	answered := map[string]bool{}
	for name, list := range values {
		answered[name] = slices.ContainsFunc(list, func(v string) bool { return strings.TrimSpace(v) != "" })
	}
	for _, u := range uploads {
		answered[u.FieldName] = true
	}
	last := 1
	for _, f := range fields {
		if f.StepID != nil && answered[f.Name] {
			last = max(last, place[*f.StepID])
		}
	}
	return last
}

// takePartial puts the files of the partial req.Resume names in req, for
// the file fields sent without one, and remembers the partial so that the
// submission deletes it. A partial gone (sent, or swept) takes nothing.
func (s *Service) takePartial(ctx context.Context, form *Form, req *SubmitRequest) error {
	if req.Resume == "" {
		return nil
	}
	p, err := s.Partial(ctx, form, req.Resume)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	req.resumed = p
	for _, u := range p.Uploads {
		if req.Files[u.FieldName] == nil {
			file := u
			file.borrowed = true
			req.Files[u.FieldName] = &file
		}
	}
	return nil
}

// dropPartialFiles deletes the files of a finished partial that its
// submission did not take (replaced, or of a field now hidden).
func (s *Service) dropPartialFiles(ctx context.Context, p *Partial, sub *Submission) {
	if p == nil {
		return
	}
	stored := map[string]bool{}
	for _, u := range sub.Uploads {
		stored[u.Key] = true
	}
	var keys []string
	for _, u := range p.Uploads {
		if !stored[u.Key] {
			keys = append(keys, u.Key)
		}
	}
	s.removeBlobs(ctx, keys)
}

// Partials summarises form's live partial responses: where people stop.
func (s *Service) Partials(ctx context.Context, form *Form) (*PartialSummary, error) {
	list, err := s.store.Partials(ctx, form.ID)
	if err != nil {
		return nil, fmt.Errorf("forms: partials: %w", err)
	}
	now := s.now()
	out := &PartialSummary{Partials: []Partial{}, ByStep: []StepCount{}}
	counts := map[int]int{}
	for _, p := range list {
		if now.Before(p.ExpiresAt) {
			out.Partials = append(out.Partials, p)
			counts[p.LastStep]++
		}
	}
	out.Total = len(out.Partials)
	for _, step := range slices.Sorted(maps.Keys(counts)) {
		out.ByStep = append(out.ByStep, StepCount{Step: step, Count: counts[step]})
	}
	return out, nil
}
