package forms

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/mail"
)

// Access links: a form that knows a person by email or by invitation
// (FormSettings.IdentifyBy) is opened from a link whose token names the
// form, the way, the person (the address, or the invitation's own id) and
// until when it is good, signed with the service's key. The token is
// stateless: one response a person (kept apart from the submission, as for
// a signed-in person) is what makes it good once.
const (
	// AccessField carries the access token: the page's hidden input,
	// the submit body's field.
	AccessField = "_access"
	// AccessQuery is the page address's parameter that carries it
	// (/forms/{form}?access=...), and the render route's.
	AccessQuery = "access"
	// AccessLinkMaxAge is how long a link mailed to prove an address is
	// good.
	AccessLinkMaxAge = 48 * time.Hour
	// invitationMaxAgeDefault is how long an invitation is good when the
	// admin names no end.
	invitationMaxAgeDefault = 90 * 24 * time.Hour
	// invitationsMax is the most invitations minted by one call.
	invitationsMax = 1000
	// AccessMailsPerAddress is the most links mailed to one address for
	// one form in an hour; more asks are answered alike and send
	// nothing.
	AccessMailsPerAddress = 3
	// accessMailWindow is the window of AccessMailsPerAddress and
	// resumeMailsPerAddress.
	accessMailWindow = time.Hour
	// resumeMailsPerAddress is the most resume links mailed to one
	// address, whatever the form, in accessMailWindow: a saved response's
	// mail box cannot be used to send mail to anyone at will.
	resumeMailsPerAddress = 5

	accessContext = "groundwork forms: access link v1\x00"
	accessMaxLen  = 640
	accessEmail   = "e"
	accessInvite  = "i"
)

// Invitation is a single-use link to a form that takes responses by
// invitation: Token goes in the page's address (?access=) or a
// submission's _access field; URL is the page's address with it, when the
// service knows where its pages are.
type Invitation struct {
	Token     string    `json:"token"`
	URL       string    `json:"url,omitempty"`
	ExpiresAt time.Time `json:"expires_at"`
}

// accessToken signs a link for who (an address, an invitation's id) to
// the form, good until expires.
func (s *Service) accessToken(formID int64, kind, who string, expires time.Time) string {
	payload := strconv.FormatInt(formID, 10) + "." + kind + "." + strconv.FormatInt(expires.Unix(), 10) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(who))
	return payload + "." + base64.RawURLEncoding.EncodeToString(s.mac(accessContext, payload)[:tokenMACBytes])
}

// readAccess is the person token proves for form at now, in the form the
// respondents are kept ("email:<address>", "invitation:<id>"), or
// ErrAccessRequired (none, forged, for another form or way) or
// ErrAccessExpired.
func (s *Service) readAccess(form *Form, token string, now time.Time) (string, error) {
	parts := strings.Split(token, ".")
	if token == "" || len(token) > accessMaxLen || len(parts) != 5 {
		return "", ErrAccessRequired
	}
	mac, err := base64.RawURLEncoding.DecodeString(parts[4])
	payload := strings.Join(parts[:4], ".")
	if err != nil || !hmac.Equal(mac, s.mac(accessContext, payload)[:tokenMACBytes]) {
		return "", ErrAccessRequired
	}
	want := accessEmail
	if identifyBy(form) == IdentifyByInvitation {
		want = accessInvite
	}
	who, errWho := base64.RawURLEncoding.DecodeString(parts[3])
	secs, errTime := strconv.ParseInt(parts[2], 10, 64)
	if parts[0] != strconv.FormatInt(form.ID, 10) || parts[1] != want || errWho != nil || errTime != nil || len(who) == 0 {
		return "", ErrAccessRequired
	}
	if !now.Before(time.Unix(secs, 0)) {
		return "", ErrAccessExpired
	}
	if want == accessEmail {
		return "email:" + string(who), nil
	}
	return "invitation:" + string(who), nil
}

// person is who sends a submission to form, a form that takes one
// response a person: by its way of knowing people, the signed-in person
// (ErrSignInRequired without one) or the one access proves
// (ErrAccessRequired, ErrAccessExpired).
func (s *Service) person(form *Form, signedIn, access string, now time.Time) (string, error) {
	switch identifyBy(form) {
	case IdentifyByEmail, IdentifyByInvitation:
		return s.readAccess(form, access, now)
	}
	if signedIn == "" {
		return "", ErrSignInRequired
	}
	return signedIn, nil
}

// pageLink is the page of form at pages (the address the page handler is
// mounted at) with a token in its address, under param.
func pageLink(pages string, form *Form, param, token string) string {
	return strings.TrimSuffix(pages, "/") + "/" + url.PathEscape(form.Slug) + "?" + param + "=" + url.QueryEscape(token)
}

// Invite mints n single-use invitations (at most 1000) to
// form, a form that takes one response a person by invitation, good
// until expires (90 days from now when zero). pages is
// where the form's page is served (Options.PagesURL when set wins); the
// invitations carry no URL when both are empty.
func (s *Service) Invite(form *Form, n int, expires time.Time, pages string) ([]Invitation, error) {
	now := s.now()
	v := &api.Validator{}
	if !form.OnePerPerson || identifyBy(form) != IdentifyByInvitation {
		v.Add("form", "The form must take one response a person by invitation (one_per_person, identify_by invitation).")
	}
	if n < 1 || n > invitationsMax {
		v.Add("count", api.MsgBetween("count", 1, invitationsMax))
	}
	if expires.IsZero() {
		expires = now.Add(invitationMaxAgeDefault)
	} else if !expires.After(now) {
		v.Add("expires_at", "The expires at field must be a time in the future.")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if s.pagesURL != "" {
		pages = s.pagesURL
	}
	expires = expires.Truncate(time.Second).UTC()
	out := make([]Invitation, n)
	for i := range out {
		var id [12]byte
		_, _ = rand.Read(id[:])
		token := s.accessToken(form.ID, accessInvite, base64.RawURLEncoding.EncodeToString(id[:]), expires)
		out[i] = Invitation{Token: token, ExpiresAt: expires}
		if pages != "" {
			out[i].URL = pageLink(pages, form, AccessQuery, token)
		}
	}
	return out, nil
}

// RequestAccess queues a mail to address with a link to form, a form that
// takes one response a person by email, good for AccessLinkMaxAge: opening
// it proves the address. pages is where the form's page is served
// (Options.PagesURL when set wins). A bad address is a *ValidationError;
// a form not open now ErrClosed. Past AccessMailsPerAddress asks in
// accessMailWindow it sends nothing more and says nothing of it, as it
// says nothing of whether the address has responded.
func (s *Service) RequestAccess(ctx context.Context, form *Form, address, pages string) error {
	if !form.OnePerPerson || identifyBy(form) != IdentifyByEmail {
		return &api.Error{Status: 409, Message: "This form does not send links by email."}
	}
	address, err := checkAddress(address)
	if err != nil {
		return err
	}
	if !Open(form, s.now()) {
		return ErrClosed
	}
	if s.enqueuer == nil {
		return errors.New("forms: request access: the service has no Enqueuer to send mail")
	}
	if s.pagesURL != "" {
		pages = s.pagesURL
	}
	// One address, whatever its case, is one person.
	address = strings.ToLower(address)
	res, err := s.tokenUses.Hit(ctx, "forms-access:"+strconv.FormatInt(form.ID, 10)+":"+address, AccessMailsPerAddress, accessMailWindow)
	if err != nil {
		return fmt.Errorf("forms: request access: %w", err)
	}
	if !res.Allowed {
		s.logger.InfoContext(ctx, "forms: access link not sent again: too many asks", "form", form.ID)
		return nil
	}
	// The job makes the link as it sends: no token waits in the queue.
	err = s.enqueuer.Enqueue(ctx, linkMailArgs{FormID: form.ID, Email: address, Pages: pages}, nil)
	if err != nil {
		return fmt.Errorf("forms: request access: %w", err)
	}
	return nil
}

// checkAddress is address trimmed, or a *ValidationError at "email"
// when it is missing or not an address.
func checkAddress(address string) (string, error) {
	address = strings.TrimSpace(address)
	v := &api.Validator{}
	switch {
	case address == "":
		v.Add("email", api.MsgRequired("email"))
	case len(address) > 254 || !validEmail(address):
		v.Add("email", api.MsgEmail("email"))
	}
	return address, v.Err()
}

// linkMailArgs is the job that mails one link to a form: an access link
// (Pages set; the job makes the link as it sends, so no token waits in the
// queue) or a resume link (Link set, with when it expires).
type linkMailArgs struct {
	FormID    int64     `json:"form_id"`
	Email     string    `json:"email"`
	Pages     string    `json:"pages,omitempty"`
	Link      string    `json:"link,omitempty"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// Kind implements river.JobArgs.
func (linkMailArgs) Kind() string { return "forms_link_mail" }

// InsertOpts gives the job notificationAttempts tries.
func (linkMailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: notificationAttempts}
}

type linkMailWorker struct {
	river.WorkerDefaults[linkMailArgs]
	svc *Service
}

// Work mails the link; a form deleted since sends nothing.
func (w *linkMailWorker) Work(ctx context.Context, job *river.Job[linkMailArgs]) error {
	s, a := w.svc, job.Args
	ctx = mail.WithMessageID(ctx, mail.JobMessageID(job.Kind, job.ID))
	return s.mailLink(ctx, a.FormID, a.Email, func(form *Form) (string, string) {
		if a.Link != "" {
			return "Your saved answers to " + form.Name, "Your answers to " + form.Name + " are saved. Open this link to carry on where you stopped:\n\n" +
				a.Link + "\n\nIt works until " + a.ExpiresAt.UTC().Format("2 January 2006 15:04 MST") +
				". Anyone with the link can see your answers, so keep it to yourself.\n"
		}
		expires := s.now().Add(AccessLinkMaxAge).Truncate(time.Second)
		link := pageLink(a.Pages, form, AccessQuery, s.accessToken(form.ID, accessEmail, a.Email, expires))
		return "Your link to " + form.Name, "Open this link to fill in " + form.Name + ":\n\n" + link + "\n\nIt works until " +
			expires.UTC().Format("2 January 2006 15:04 MST") + ", for one response. If you did not ask for it, you can ignore this email.\n"
	})
}

// NextRetry waits mail.RetryDelay after a failed try.
func (w *linkMailWorker) NextRetry(job *river.Job[linkMailArgs]) time.Time {
	return time.Now().Add(mail.RetryDelay(job.Attempt))
}

// mailLink mails to the subject and text write makes for the form with
// this id, as a job does: a form deleted since sends nothing, a message
// that cannot be sent is not tried again.
func (s *Service) mailLink(ctx context.Context, formID int64, to string, write func(*Form) (subject, text string)) error {
	form, err := s.store.Form(ctx, formID, "")
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("forms: mail a link: %w", err)
	}
	subject, text := write(form)
	msg := mail.Message{From: s.mailFrom, To: []string{to}, Subject: subject, Text: text, Headers: map[string]string{"X-Groundwork-Form": form.Slug}}
	if err := s.mailer.Send(ctx, msg); err != nil {
		if errors.Is(err, mail.ErrInvalidMessage) {
			return river.JobCancel(fmt.Errorf("forms: mail a link: %w", err))
		}
		return fmt.Errorf("forms: mail a link: %w", err)
	}
	return nil
}
