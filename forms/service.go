package forms

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/oauth2"
	"golang.org/x/text/unicode/norm"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/forms/formsstore"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/oauthflow"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/tenant"
)

// Defaults of a Service.
const (
	// maxFileSizeDefault caps one uploaded file unless the field allows
	// less (10 MiB).
	maxFileSizeDefault = 10 << 20
	// HoneypotField is the hidden input bots fill in.
	HoneypotField = "website_url"
	// LoadedAtField carries the Unix time the form was shown: a client may leave it out or forge it, so it counts
	// only with Options.FormTokenOptional, for a submission without a
	// form-load token (FormTokenField).
	LoadedAtField = "_form_loaded_at"
	// MinFillSecondsDefault is a form's MinFillSeconds unless it says
	// otherwise: a person takes at least two seconds to fill a form in.
	MinFillSecondsDefault = 2
	// maxResponsesMax is the most a form's MaxResponses may be.
	maxResponsesMax = 1_000_000_000
	// minFillSecondsMax is the most a form's MinFillSeconds may be.
	minFillSecondsMax = 60
	// MinFillTime is the default least time to fill a form in, as a
	// duration (MinFillSecondsDefault seconds).
	MinFillTime = MinFillSecondsDefault * time.Second
	// notificationAttempts is how often a notification (or a mailed link)
	// is tried: mail.MaxAttempts, with mail.RetryDelay between tries, so
	// a mail server away for hours loses nothing.
	notificationAttempts = mail.MaxAttempts
)

// AllowedExtensionsDefault are the file extensions a file field takes when
// it names none.
var AllowedExtensionsDefault = []string{"jpg", "jpeg", "png", "gif", "webp", "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "txt", "csv", "zip"}

// Options configures [NewService]. Nil means the defaults.
type Options struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Meter counts stored submissions by outcome (groundwork.MetricSubmissions); nil counts nothing.
	Meter groundwork.Meter
	// NewUUID makes field UUIDs and upload names; uuid.NewString when nil.
	NewUUID func() string
	// Enqueuer queues notification jobs (a *store.Queue). Without one,
	// no notification is sent.
	Enqueuer store.Enqueuer
	// Mailer sends the notifications queued jobs render; see
	// RegisterWorkers.
	Mailer mail.Mailer
	// MailFrom is the sender of notifications; the mailer's own default
	// when empty.
	MailFrom string
	// AdminRecipients are where an admin notification goes when it names
	// no recipients, e.g. "team@example.com".
	AdminRecipients string
	// Blobs keeps uploaded files. Without one, file fields refuse files.
	Blobs BlobStore
	// MaxFileSize caps every file; 10 MB when zero.
	MaxFileSize int64
	// AllowedExtensions replace AllowedExtensionsDefault.
	AllowedExtensions []string
	// FormTokenKey signs form-load tokens (see FormToken), at least
	// 32 bytes long. Without one each Service makes a random
	// key, and a token is good only on the instance that issued it: give
	// every instance the same key.
	FormTokenKey []byte
	// FormTokenMaxAge is how long a form-load token is good;
	// FormTokenMaxAgeDefault when zero.
	FormTokenMaxAge time.Duration
	// FormTokenOptional is for hosts whose clients cannot send a
	// form-load token: a submission without one is judged by the
	// _form_loaded_at it carries (one that sends a
	// token still has it checked). By default a submission without a good
	// token is spam.
	FormTokenOptional bool
	// FormTokenUses counts each token's use, so that it is good once, and
	// the links mailed to each address (access and resume links); in
	// memory when nil. Give a store.SQLRateLimiter so it holds across
	// instances.
	FormTokenUses groundwork.RateLimiter
	// Logger receives failures nobody waits for (hooks, file clean-up) and
	// the submissions judged spam, at info; slog.Default() when nil, so
	// nothing is decided in silence.
	Logger *slog.Logger
	// Captcha checks the submissions of forms with Captcha set
	// (NewTurnstile, NewHCaptcha, or a host's own); without one, no form
	// may set it.
	Captcha Verifier
	// PagesURL is the absolute address where NewPageHandler's pages are
	// served ("https://example.com/forms"): links mailed to prove an
	// address and invitations point there. When empty, the page handler
	// uses its own address (HTTPOptions.BaseURL, else the address the
	// request came in on, never its Host header) and the API that address
	// with PagePrefixDefault.
	PagesURL string
	// Payments takes the payments of forms whose total asks for one
	// (formsstripe.Payments); without it, no total may.
	Payments Payments
	// GoogleClientID and GoogleClientSecret are the OAuth client a
	// Google Sheets notification's account consents to (its redirect
	// address is the pages' {prefix}/_google/callback); without them, no
	// notification may append to a sheet. GoogleEndpoint and
	// SheetsBaseURL replace Google's (a test server).
	GoogleClientID, GoogleClientSecret string
	GoogleEndpoint                     oauth2.Endpoint
	SheetsBaseURL                      string
	// IntegrationsClient sends to Slack and Google; by default a client
	// that refuses private and loopback addresses.
	IntegrationsClient *http.Client
	// AllowInsecureURLs lets a Slack notification post to an http://
	// address (a test server); https only otherwise.
	AllowInsecureURLs bool
}

// Service is the forms domain: forms, fields, steps, submissions,
// uploads and notifications. Safe for concurrent use.
type Service struct {
	store      Store
	now        func() time.Time
	newUUID    func() string
	enqueuer   store.Enqueuer
	mailer     mail.Mailer
	mailFrom   string
	adminTo    string
	blobs      BlobStore
	maxFile    int64
	extensions []string
	logger     *slog.Logger
	hooks      registered
	defs       definitions
	meter      groundwork.Meter

	tokenKey      []byte
	tokenMaxAge   time.Duration
	tokenOptional bool
	tokenUses     groundwork.RateLimiter
	pagesURL      string
	captcha       Verifier
	views         ViewCounter
	router        RouteFunc
	payments      Payments
	google        *oauth2.Config
	sheetsBase    string
	integrations  *http.Client
	insecureURLs  bool
}

// NewService returns the forms service on st.
func NewService(st Store, opts *Options) (*Service, error) {
	if st == nil {
		return nil, errors.New("forms: new service: store is nil")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	s := &Service{payments: o.Payments, meter: o.Meter, store: st, now: o.Now, newUUID: o.NewUUID, enqueuer: o.Enqueuer, mailer: o.Mailer, mailFrom: o.MailFrom,
		adminTo: o.AdminRecipients, blobs: o.Blobs, maxFile: o.MaxFileSize, extensions: o.AllowedExtensions, logger: o.Logger}
	if s.now == nil {
		s.now = time.Now
	}
	if s.newUUID == nil {
		s.newUUID = uuid.NewString
	}
	if s.maxFile == 0 {
		s.maxFile = maxFileSizeDefault
	}
	if s.maxFile < 0 {
		return nil, errors.New("forms: new service: negative MaxFileSize")
	}
	if s.extensions == nil {
		s.extensions = AllowedExtensionsDefault
	}
	s.extensions = slices.Clone(s.extensions) // never the caller's slice
	for i, e := range s.extensions {
		s.extensions[i] = strings.ToLower(strings.TrimPrefix(e, "."))
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	s.tokenKey, s.tokenMaxAge, s.tokenOptional, s.tokenUses = bytes.Clone(o.FormTokenKey), o.FormTokenMaxAge, o.FormTokenOptional, o.FormTokenUses
	switch {
	case s.tokenKey == nil:
		s.tokenKey = make([]byte, formTokenKeyMinBytes)
		_, _ = rand.Read(s.tokenKey)
	case len(s.tokenKey) < formTokenKeyMinBytes:
		return nil, fmt.Errorf("forms: new service: FormTokenKey must be at least %d bytes", formTokenKeyMinBytes)
	}
	if s.tokenMaxAge == 0 {
		s.tokenMaxAge = FormTokenMaxAgeDefault
	}
	if s.tokenMaxAge <= minFillSecondsMax*time.Second {
		return nil, fmt.Errorf("forms: new service: FormTokenMaxAge must be more than %v", minFillSecondsMax*time.Second)
	}
	if s.tokenUses == nil {
		s.tokenUses = driverless.NewMemoryRateLimiter(&driverless.RateLimiterOptions{Now: s.now})
	}
	s.captcha = o.Captcha
	if o.PagesURL != "" {
		u, err := url.Parse(o.PagesURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("forms: new service: PagesURL must be an absolute http(s) address without query, not %q", o.PagesURL)
		}
		s.pagesURL = strings.TrimSuffix(o.PagesURL, "/")
	}
	s.sheetsBase, s.integrations, s.insecureURLs = cmp.Or(o.SheetsBaseURL, sheetsBaseURLDefault), o.IntegrationsClient, o.AllowInsecureURLs
	if o.GoogleClientID != "" {
		endpoint := o.GoogleEndpoint
		if endpoint.TokenURL == "" {
			endpoint = oauthflow.GoogleEndpoint
		}
		s.google = &oauth2.Config{ClientID: o.GoogleClientID, ClientSecret: o.GoogleClientSecret, Endpoint: endpoint, Scopes: []string{sheetsScope}}
	}
	if o.MailFrom != "" {
		if err := (mail.Message{To: []string{o.MailFrom}, Text: "x"}).Validate(o.MailFrom); err != nil {
			return nil, fmt.Errorf("forms: new service: MailFrom: %w", err)
		}
	}
	return s, nil
}

// notFound is ErrNotFound with the message the API answers.
func notFound(what string) error {
	return &api.Error{Status: 404, Message: what + " not found.", Err: ErrNotFound}
}

// wrapNotFound turns a store's ErrNotFound into notFound(what).
func wrapNotFound(err error, what string) error {
	if errors.Is(err, ErrNotFound) {
		return notFound(what)
	}
	return err
}

// ---- forms ----

var (
	slugPattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
	allDigits   = regexp.MustCompile(`^[0-9]+$`)
)

// slugify turns text into a lower-case, hyphenated ASCII slug as Laravel's
// Str::slug does: accents dropped, "@" read as "at", everything else that
// is not a letter or digit a separator. It may return "".
func slugify(s string, sep rune) string {
	s = strings.ReplaceAll(s, "@", " at ")
	var b strings.Builder
	pending := false
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if pending && b.Len() > 0 {
				b.WriteRune(sep)
			}
			pending = false
			b.WriteRune(unicode.ToLower(r))
		default:
			pending = true
		}
	}
	return b.String()
}

// Form finds a form by its slug or, when ref is a number, its ID: one of
// the tenant's when ctx acts for one (see package tenant); another's is
// ErrNotFound.
func (s *Service) Form(ctx context.Context, ref string) (*Form, error) {
	f, err := s.publicForm(ctx, ref)
	if err == nil && !tenant.Sees(ctx, f.Tenant) {
		return nil, wrapNotFound(ErrNotFound, "Form")
	}
	return f, err
}

// publicForm is Form for whoever asks, whatever tenant: what a form's
// public page and submit route show.
func (s *Service) publicForm(ctx context.Context, ref string) (*Form, error) {
	if allDigits.MatchString(ref) {
		if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
			if f, err := s.store.Form(ctx, id, ""); !errors.Is(err, ErrNotFound) {
				return f, wrapNotFound(err, "Form")
			}
		}
	}
	f, err := s.store.Form(ctx, 0, ref)
	return f, wrapNotFound(err, "Form")
}

// FormWithFields finds a form as Form does, with its fields in order.
func (s *Service) FormWithFields(ctx context.Context, ref string) (*Form, []Field, error) {
	if allDigits.MatchString(ref) {
		if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
			if f, fields, err := s.store.FormWithFields(ctx, id, ""); !errors.Is(err, ErrNotFound) {
				return f, fields, wrapNotFound(err, "Form")
			}
		}
	}
	f, fields, err := s.store.FormWithFields(ctx, 0, ref)
	return f, fields, wrapNotFound(err, "Form")
}

// Count fills in the form's submission counts.
func (s *Service) Count(ctx context.Context, f *Form) error {
	total, unread, err := s.store.SubmissionCounts(ctx, f.ID)
	if err != nil {
		return fmt.Errorf("forms: count submissions: %w", err)
	}
	f.TotalSubmissions, f.UnreadSubmissions = total, unread
	return nil
}

// ListForms lists one page of forms, newest first, and how many there are
// in all (the tenant's, when ctx acts for one); active filters by state
// when set.
func (s *Service) ListForms(ctx context.Context, active *bool, page groundwork.PageRequest) ([]Form, int, error) {
	q := formsstore.FormQuery{Active: active, Offset: page.Offset(), Limit: page.PerPage}
	if t, ok := tenant.Of(ctx); ok {
		q.Tenant = &t
	}
	return s.store.ListForms(ctx, q)
}

// validateForm checks f and fills its defaults.
func (s *Service) validateForm(f *Form) *api.Validator {
	v := &api.Validator{}
	f.Name = strings.TrimSpace(f.Name)
	f.Slug = strings.TrimSpace(f.Slug)
	switch {
	case f.Name == "":
		v.Add("name", api.MsgRequired("name"))
	case utf8.RuneCountInString(f.Name) > 255:
		v.Add("name", api.MsgMaxChars("name", 255))
	}
	if f.Slug != "" {
		if utf8.RuneCountInString(f.Slug) > 255 {
			v.Add("slug", api.MsgMaxChars("slug", 255))
		} else if !slugPattern.MatchString(f.Slug) || allDigits.MatchString(f.Slug) {
			v.Add("slug", "The slug field must be lower-case words of letters and digits joined by single hyphens, not only digits.")
		}
	}
	maxChars(v, "description", f.Description, 1000)
	if strings.TrimSpace(f.SubmitButtonText) == "" {
		f.SubmitButtonText = "Submit"
	}
	maxChars(v, "submit_button_text", f.SubmitButtonText, 100)
	maxChars(v, "success_message", f.SuccessMessage, 2000)
	if f.RedirectURL != nil && strings.TrimSpace(*f.RedirectURL) == "" {
		f.RedirectURL = nil
	}
	if f.RedirectURL != nil {
		if utf8.RuneCountInString(*f.RedirectURL) > 255 {
			v.Add("redirect_url", api.MsgMaxChars("redirect_url", 255))
		} else if !validURL(*f.RedirectURL) {
			v.Add("redirect_url", api.MsgURL("redirect_url"))
		}
	}
	if f.MaxResponses != nil && (*f.MaxResponses < 1 || *f.MaxResponses > maxResponsesMax) {
		v.Add("max_responses", api.MsgBetween("max_responses", 1, maxResponsesMax))
	}
	if f.OpensAt != nil && f.ClosesAt != nil && !f.ClosesAt.After(*f.OpensAt) {
		v.Add("closes_at", "The closes at field must be after the opens at field.")
	}
	maxChars(v, "closed_message", f.ClosedMessage, 2000)
	if f.IdentifyBy == "" {
		f.IdentifyBy = IdentifyBySignIn
	}
	if !slices.Contains([]Identify{IdentifyBySignIn, IdentifyByEmail, IdentifyByInvitation}, f.IdentifyBy) {
		v.Add("identify_by", api.MsgSelected("identify_by"))
	}
	validateLanguages(v, f)
	validateRouting(v, f.Routing)
	if f.Captcha && s.captcha == nil {
		v.Add("captcha", "The captcha field cannot be on: this server has no CAPTCHA provider configured.")
	}
	if f.ResumeHours < 0 || f.ResumeHours > ResumeHoursMax {
		v.Add("resume_hours", api.MsgBetween("resume_hours", 0, ResumeHoursMax))
	}
	if f.MinFillSeconds == nil {
		f.MinFillSeconds = new(int64(MinFillSecondsDefault))
	} else if n := *f.MinFillSeconds; n < 0 || n > minFillSecondsMax {
		v.Add("min_fill_seconds", api.MsgBetween("min_fill_seconds", 0, minFillSecondsMax))
	}
	return v
}

// minFill is how long, at least, form takes to fill in.
func minFill(form *Form) time.Duration {
	if form.MinFillSeconds == nil {
		return MinFillTime
	}
	return time.Duration(*form.MinFillSeconds) * time.Second
}

func maxChars(v *api.Validator, field, value string, n int) {
	if utf8.RuneCountInString(value) > n {
		v.Add(field, api.MsgMaxChars(field, n))
	}
}

// validURL accepts absolute http and https URLs with a host.
func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(s, " \t\r\n")
}

// uniqueSlug is base, or base-1, base-2... whichever is free; own (the
// slug of the form being saved) counts as free.
func (s *Service) uniqueSlug(ctx context.Context, base, own string) (string, error) {
	if base == "" || allDigits.MatchString(base) {
		base = strings.Trim("form-"+base, "-")
	}
	taken, err := s.store.SlugsLike(ctx, base)
	if err != nil {
		return "", err
	}
	used := map[string]bool{}
	for _, t := range taken {
		used[t] = t != own
	}
	if !used[base] {
		return base, nil
	}
	for n := 1; ; n++ {
		if c := base + "-" + strconv.Itoa(n); !used[c] {
			return c, nil
		}
	}
}

// saveForm runs save, and when it reports a taken slug that the caller
// did not choose, picks the next free one and tries again (another
// request may have taken it in between).
func (s *Service) saveForm(ctx context.Context, f *Form, generated bool, save func() error) error {
	for attempt := 0; ; attempt++ {
		err := save()
		if !errors.Is(err, ErrSlugTaken) {
			return err
		}
		if !generated || attempt == 5 {
			return api.Invalid("slug", api.MsgTakenBy("slug", f.Slug, "form"))
		}
		if f.Slug, err = s.uniqueSlug(ctx, slugify(f.Name, '-'), ""); err != nil {
			return err
		}
	}
}

// CreateForm validates and stores a new form, the tenant's when ctx acts
// for one (else f.Tenant's). Without a slug, one is made
// from the name ("Contact us" → "contact-us", then "contact-us-1"...).
// A bad input is a *ValidationError; a taken slug is one too.
func (s *Service) CreateForm(ctx context.Context, f *Form) error {
	if v := s.validateForm(f); !v.Empty() {
		return v.Err()
	}
	generated := f.Slug == ""
	if generated {
		var err error
		if f.Slug, err = s.uniqueSlug(ctx, slugify(f.Name, '-'), ""); err != nil {
			return fmt.Errorf("forms: create form: %w", err)
		}
	}
	now := s.now()
	f.CreatedAt, f.UpdatedAt = now, now
	if t, ok := tenant.Of(ctx); ok {
		f.Tenant = t
	}
	if err := s.saveForm(ctx, f, generated, func() error { return s.store.CreateForm(ctx, f) }); err != nil {
		return fmt.Errorf("forms: create form: %w", err)
	}
	saved, err := s.store.Form(ctx, f.ID, "")
	if err != nil {
		return fmt.Errorf("forms: create form: %w", err)
	}
	*f = *saved
	s.fireForm(ctx, s.hooks.created.All(), f)
	return nil
}

// UpdateForm validates and saves every setting of f. An emptied slug is
// made anew from the name.
func (s *Service) UpdateForm(ctx context.Context, f *Form) error {
	if v := s.validateForm(f); !v.Empty() {
		return v.Err()
	}
	current, err := s.store.Form(ctx, f.ID, "")
	if err == nil && !tenant.Sees(ctx, current.Tenant) {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("forms: update form: %w", wrapNotFound(err, "Form"))
	}
	generated := f.Slug == ""
	if generated {
		if f.Slug, err = s.uniqueSlug(ctx, slugify(f.Name, '-'), current.Slug); err != nil {
			return fmt.Errorf("forms: update form: %w", err)
		}
	}
	f.UpdatedAt = s.now()
	err = s.saveForm(ctx, f, generated, func() error { return s.store.UpdateForm(ctx, f) })
	if err != nil {
		return fmt.Errorf("forms: update form: %w", wrapNotFound(err, "Form"))
	}
	saved, err := s.store.Form(ctx, f.ID, "")
	if err != nil {
		return fmt.Errorf("forms: update form: %w", wrapNotFound(err, "Form"))
	}
	*f = *saved
	if err := s.Count(ctx, f); err != nil {
		return err
	}
	s.fireForm(ctx, s.hooks.updated.All(), f)
	return nil
}

// DeleteForm deletes a form with its fields, steps, submissions,
// notifications and uploaded files.
func (s *Service) DeleteForm(ctx context.Context, f *Form) error {
	if current, err := s.store.Form(ctx, f.ID, ""); err == nil && !tenant.Sees(ctx, current.Tenant) {
		return fmt.Errorf("forms: delete form: %w", wrapNotFound(ErrNotFound, "Form"))
	}
	keys, err := s.store.DeleteForm(ctx, f.ID)
	if err != nil {
		return fmt.Errorf("forms: delete form: %w", wrapNotFound(err, "Form"))
	}
	s.removeBlobs(ctx, keys)
	s.fireForm(ctx, s.hooks.deleted.All(), f)
	return nil
}

// removeBlobs deletes files whose rows are gone; a failure leaves an
// orphan file, logged, and never fails the request.
func (s *Service) removeBlobs(ctx context.Context, keys []string) {
	if s.blobs == nil {
		return
	}
	for _, k := range keys {
		if err := s.blobs.Delete(context.WithoutCancel(ctx), k); err != nil {
			s.logger.ErrorContext(ctx, "forms: could not delete an uploaded file", "key", k, "error", err)
		}
	}
}

// FormDetail is a form with its fields and steps, as a single read shows.
type FormDetail struct {
	*Form
	Fields []Field          `json:"fields"`
	Steps  []StepWithFields `json:"steps"`
}

// StepWithFields is a step and the fields on it.
type StepWithFields struct {
	Step
	Fields []Field `json:"fields"`
}

// Detail loads a form's fields, steps and submission counts.
func (s *Service) Detail(ctx context.Context, f *Form) (*FormDetail, error) {
	if err := s.Count(ctx, f); err != nil {
		return nil, err
	}
	fields, err := s.store.Fields(ctx, f.ID)
	if err != nil {
		return nil, fmt.Errorf("forms: detail: %w", err)
	}
	steps, err := s.StepsWithFields(ctx, f.ID, fields)
	if err != nil {
		return nil, err
	}
	return &FormDetail{Form: f, Fields: fields, Steps: steps}, nil
}
