package forms

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/paging"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// submitter is the way a submission takes, from the API or from the page:
// the form's definition, the throttle per form and client IP, the body,
// then the service.
type submitter struct {
	svc      *Service
	throttle *throttle.Throttle // nil: no limit
	maxBytes int64
	maxParts int
	trusted  []netip.Prefix
	baseURL  *url.URL
	// keep keeps the valid uploads of a submission that fails on another
	// field (the page's way: it sends their ids back).
	keep bool
	// respondent names who sends a request; the request's Caller when
	// nil.
	respondent func(r *http.Request) (string, bool)
	// pages is where the forms' pages are, for the links a save makes.
	pages func(r *http.Request) string
}

// mistakesPerSubmission is how many submissions refused for a mistake
// (a 422) are given back to the submit limit, a window, for each
// submission the limit allows: a person's corrections are not counted, a
// stream of bad submissions still is.
const mistakesPerSubmission = 4

// submitSettings are what both handlers' options say of submissions.
type submitSettings struct {
	limiter  groundwork.RateLimiter
	limit    int
	window   time.Duration
	trusted  []netip.Prefix
	maxBytes int64
	maxParts int
	baseURL  *url.URL
	logger   *slog.Logger
	// respondent is the options' Respondent.
	respondent func(r *http.Request) (string, bool)
}

// respondentOf is who sends r, "" for no one.
func (s *submitter) respondentOf(r *http.Request) string {
	return respondent(s.respondent, r)
}

// respondent is who sends r by find, else by the request's Caller.
func respondent(find func(r *http.Request) (string, bool), r *http.Request) string {
	if find != nil {
		if id, ok := find(r); ok {
			return id
		}
		return ""
	}
	if c, ok := groundwork.CallerFrom(r.Context()); ok {
		return c.ID
	}
	return ""
}

// newSubmitter fills in the defaults: SubmitLimitDefault a
// SubmitWindowDefault in memory (a negative limit turns it off),
// MaxRequestBytesDefault, MaxPartsDefault.
func newSubmitter(svc *Service, o submitSettings) *submitter {
	s := &submitter{svc: svc, maxBytes: o.maxBytes, maxParts: o.maxParts, trusted: o.trusted, baseURL: o.baseURL, respondent: o.respondent}
	if s.maxBytes <= 0 {
		s.maxBytes = MaxRequestBytesDefault
	}
	if s.maxParts <= 0 {
		s.maxParts = MaxPartsDefault
	}
	if o.limit == 0 {
		o.limit = SubmitLimitDefault
	}
	if o.window <= 0 {
		o.window = SubmitWindowDefault
	}
	if o.limit > 0 {
		if o.limiter == nil {
			o.limiter = driverless.NewMemoryRateLimiter(nil)
		}
		s.throttle = &throttle.Throttle{Name: "forms-submit", Limiter: o.limiter, Limit: o.limit, Window: o.window,
			Forgiven: o.limit * mistakesPerSubmission, Message: "Too many submissions.", TrustedProxies: o.trusted, Now: svc.now, Logger: o.logger}
	}
	return s
}

// attempt is a submission as far as it went: the form, once found; what
// was read of the request; the result, once stored.
type attempt struct {
	form  *Form
	req   *SubmitRequest
	res   *SubmitResult
	saved *SavedPartial
}

// Whether a request saves its answers instead of sending them.
const (
	sendOnly   = iota // the API's submit
	saveOnly          // the API's save
	saveByForm        // the page: by the button pressed (ActionField)
)

// run takes the submission to the form ref. A missing or inactive form
// is ErrInactive; the throttle answers a 429 or 503 *api.Error (its
// headers already set on w).
func (s *submitter) run(w http.ResponseWriter, r *http.Request, ref string, mode int) (attempt, error) {
	ctx := r.Context()
	def, err := s.svc.submitDefinition(ctx, ref)
	if err == nil && !def.form.IsActive {
		err = ErrInactive
	}
	if errors.Is(err, ErrNotFound) {
		err = ErrInactive // the same 404 for missing and inactive forms
	}
	if err != nil {
		return attempt{}, err
	}
	a := attempt{form: def.form}
	key, err := s.hit(w, r, def.form)
	if err != nil {
		return a, err
	}
	if a.req, err = s.read(w, r, def.form, def.fields); err != nil {
		return a, err
	}
	gatherParts(def.fields, a.req.Values)
	if mode != saveByForm {
		a.req.step, a.req.back = 0, false // one step at a time is the page's way; the API sends all at once
		if a.req.action == actionTotal {
			a.req.action = ""
		}
	}
	a.req.PageURL = paging.AbsoluteURL(r, s.baseURL).String()
	a.req.ReferrerURL = r.Referer()
	a.req.IPAddress = proxies.ClientIPString(r, s.trusted)
	a.req.UserAgent = r.UserAgent()
	a.req.Respondent = s.respondentOf(r)
	a.req.keepValid = s.keep
	a.req.pages = s.pages(r)
	// The language it was sent in: the page's, else the address's, else
	// the request's Accept-Language (one of the form's).
	a.req.Language = chooseLanguage(def.form, cmp.Or(a.req.Language, r.URL.Query().Get(LanguageQuery)), r.Header.Get("Accept-Language"))
	if mode == saveOnly || mode == saveByForm && a.req.action == ActionSave {
		if def.cached {
			// A save is not checked against the form's version as it is
			// stored: it reads the form as it is now.
			if def, err = s.svc.loadDefinition(ctx, ref); err != nil {
				s.svc.discardFiles(ctx, a.req.Files)
				return a, err
			}
			a.form = def.form
		}
		a.saved, err = s.svc.SavePartial(ctx, def.form, def.fields, a.req, a.req.ResumeEmail, s.pages(r))
		return a, s.explain(a.form, err)
	}
	res, used, err := s.svc.submitChecked(ctx, ref, def, a.req)
	if used != nil {
		a.form = used
	}
	_, onward := errors.AsType[*stepTaken](err)
	if _, mistaken := errors.AsType[*ValidationError](err); mistaken || onward {
		// The person will correct it, or goes on to the next step: only
		// what is accepted, or stored as spam, counts against the limit.
		s.throttle.Forgive(ctx, key)
	}
	if errors.Is(err, ErrNotFound) {
		err = ErrInactive // deleted since it was cached
	}
	a.res = res
	return a, s.explain(a.form, err)
}

// explain gives the refusals of a closed form, or of a person who may not
// respond, their status and the form's words.
func (s *submitter) explain(form *Form, err error) error {
	switch {
	case errors.Is(err, ErrClosed) || errors.Is(err, ErrFull) || errors.Is(err, ErrResponded):
		// The form's own words: what to do instead.
		err = &api.Error{Status: http.StatusConflict, Message: closedWords(form, err), Err: err}
	case errors.Is(err, ErrSignInRequired):
		err = &api.Error{Status: http.StatusUnauthorized, Message: closedWords(form, err), Err: err}
	case errors.Is(err, ErrAccessRequired) || errors.Is(err, ErrAccessExpired):
		err = &api.Error{Status: http.StatusForbidden, Message: closedWords(form, err), Err: err}
	}
	return err
}

// hit counts a request to form against the limit per form and client IP,
// and returns the key it counted under; over the limit it is a 429 (a 503
// when the count cannot be kept), its headers set on w.
func (s *submitter) hit(w http.ResponseWriter, r *http.Request, form *Form) (string, error) {
	key := strconv.FormatInt(form.ID, 10) + ":" + proxies.ClientIPString(r, s.trusted)
	if s.throttle == nil {
		return key, nil
	}
	allowed, err := s.throttle.Hit(w, r, key)
	if err != nil {
		return key, &api.Error{Status: http.StatusServiceUnavailable, Message: reply.MsgUnavailable, Err: err}
	}
	if !allowed {
		return key, &api.Error{Status: http.StatusTooManyRequests, Message: s.throttle.Refusal(w)}
	}
	return key, nil
}

// fieldKey turns an input name into a field name: "email", "data[email]",
// "data[topics][]", "topics[]" and "files[cv]" all name their field; a
// part of one ("data[rate][speed]") is named "rate.speed".
func fieldKey(name string) string {
	name = strings.TrimSuffix(name, "[]")
	for _, wrap := range []string{"data[", "files["} {
		if inner, ok := strings.CutPrefix(name, wrap); ok && strings.HasSuffix(inner, "]") {
			return strings.ReplaceAll(strings.TrimSuffix(inner, "]"), "][", ".")
		}
	}
	return name
}

// add files a value under its field, or as the honeypot, load time, form
// token or a kept upload's id.
func (req *SubmitRequest) add(name, value string) {
	if field, ok := strings.CutPrefix(name, KeptUploadField+"["); ok && strings.HasSuffix(field, "]") {
		if req.KeptIDs == nil {
			req.KeptIDs = map[string]string{}
		}
		req.KeptIDs[strings.TrimSuffix(field, "]")] = value
		return
	}
	switch key := fieldKey(name); key {
	case HoneypotField:
		req.Honeypot = value
	case LoadedAtField:
		req.LoadedAt = value
	case FormTokenField:
		req.FormToken = value
	case AccessField:
		req.Access = value
	case ResumeField:
		req.Resume = value
	case ResumeEmailField:
		req.ResumeEmail = value
	case PrefillField:
		req.Prefill = value
	case ActionField:
		req.action, req.back = value, value == actionBack
	case stepField:
		req.step, _ = strconv.ParseInt(value, 10, 64)
	case LanguageField:
		req.Language = value
	default:
		req.Values[key] = append(req.Values[key], value)
	}
}

// read reads a multipart, url-encoded or JSON submission.
// Files are written to the BlobStore as they arrive; when reading fails
// they are deleted here, and later failures delete them in Submit.
func (s *submitter) read(w http.ResponseWriter, r *http.Request, form *Form, fields []Field) (*SubmitRequest, error) {
	req := &SubmitRequest{Values: map[string][]string{}, Files: map[string]*IncomingFile{}}
	r.Body = http.MaxBytesReader(w, r.Body, s.maxBytes)
	if r.ContentLength > s.maxBytes {
		return req, tooLarge(s.maxBytes)
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var err error
	switch ct {
	case "multipart/form-data":
		err = s.readMultipart(r, form, fields, req)
	case "application/x-www-form-urlencoded":
		err = readURLEncoded(r, req)
	case "application/json":
		err = readJSON(w, r, req)
	case "":
		if r.ContentLength > 0 {
			err = unsupported()
		}
	default:
		err = unsupported()
	}
	if err != nil {
		s.svc.discardFiles(r.Context(), req.Files)
		req.Files = nil
	}
	return req, err
}

func tooLarge(n int64) error {
	return &api.Error{Status: http.StatusRequestEntityTooLarge, Message: "The submission must not be larger than " + api.FormatBytes(n) + "."}
}

func unsupported() error {
	return &api.Error{Status: http.StatusUnsupportedMediaType, Message: "A submission must be multipart/form-data, application/x-www-form-urlencoded or application/json."}
}

func malformed(err error) error {
	return &api.Error{Status: http.StatusUnprocessableEntity, Message: "The request body is not valid multipart/form-data.", Err: err}
}

// readError classifies a failure to read the body: too large, or cut off
// and malformed.
func (s *submitter) readError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge(s.maxBytes)
	}
	return malformed(err)
}

// recordingReader remembers the first read error of a part, so a failure
// while storing a file can be told apart: the client's (a cut-off or
// oversized body) or the store's.
type recordingReader struct {
	r   io.Reader
	err error
}

func (rr *recordingReader) Read(p []byte) (int, error) {
	n, err := rr.r.Read(p)
	if err != nil && err != io.EOF && rr.err == nil {
		rr.err = err
	}
	return n, err
}

func (s *submitter) readMultipart(r *http.Request, form *Form, fields []Field, req *SubmitRequest) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return malformed(err)
	}
	refuse := req.refuse
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s.readError(err)
		}
		if parts >= s.maxParts {
			part.Close()
			return &api.Error{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("The submission must not have more than %d parts.", s.maxParts)}
		}
		name := part.FormName()
		if name == "" {
			part.Close()
			continue
		}
		if part.FileName() == "" {
			value, err := io.ReadAll(io.LimitReader(part, MaxValueBytes+1))
			part.Close()
			if err != nil {
				return s.readError(err)
			}
			if len(value) > MaxValueBytes {
				return &api.Error{Status: http.StatusRequestEntityTooLarge, Message: "A value of the submission must not be larger than 1 MiB."}
			}
			req.add(name, string(value))
			continue
		}
		key := fieldKey(name)
		if req.Files[key] != nil {
			part.Close()
			refuse(key, "The "+api.Attr(key)+" field takes one file only.")
			continue
		}
		rr := &recordingReader{r: part}
		file, err := s.svc.AcceptFile(r.Context(), form, fields, key, part.FileName(), rr)
		if rr.err == nil {
			// Drain what the service did not read, to reach the next part.
			_, rr.err = io.Copy(io.Discard, rr)
		}
		part.Close()
		if rr.err != nil {
			if file != nil {
				req.Files[key] = file // deleted by readSubmission
			}
			return s.readError(rr.err)
		}
		var ve *ValidationError
		switch {
		case errors.As(err, &ve):
			for _, f := range ve.FieldNames() {
				for _, msg := range ve.Fields()[f] {
					refuse(f, msg)
				}
			}
		case err != nil:
			return err
		case file != nil:
			req.Files[key] = file
		}
	}
	return nil // refused files are judged with the other answers, in Submit
}

func readURLEncoded(r *http.Request, req *SubmitRequest) error {
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge(mbe.Limit)
		}
		return &api.Error{Status: http.StatusUnprocessableEntity, Message: "The request body is not valid application/x-www-form-urlencoded.", Err: err}
	}
	for name, values := range r.PostForm {
		for _, v := range values {
			req.add(name, v)
		}
	}
	return nil
}

// readJSON reads {"data": {...}} or a flat object. Values may be strings,
// numbers, booleans or lists of those.
func readJSON(w http.ResponseWriter, r *http.Request, req *SubmitRequest) error {
	in, err := api.DecodeInput(w, r, api.MaxBodyDefault)
	if err != nil {
		return err
	}
	values := in
	if data, ok := in["data"].(map[string]any); ok {
		values = data
		for _, k := range []string{HoneypotField, LoadedAtField, FormTokenField, AccessField, ResumeField, ResumeEmailField, PrefillField, LanguageField} {
			if v, ok := in[k]; ok {
				values[k] = v
			}
		}
	}
	v := &api.Validator{}
	for name, val := range values {
		if parts, isObject := val.(map[string]any); isObject {
			// A matrix's rows, a ranking's places: one value a part.
			for part, x := range parts {
				addScalar(v, req, name+"."+part, x)
			}
			continue
		}
		items, isList := val.([]any)
		if !isList {
			items = []any{val}
		}
		for _, it := range items {
			addScalar(v, req, name, it)
		}
	}
	return v.Err()
}

// addScalar adds a JSON string, number or boolean as name's value; null
// is no value, anything else a mistake.
func addScalar(v *api.Validator, req *SubmitRequest, name string, it any) {
	switch x := it.(type) {
	case nil:
	case string:
		req.add(name, x)
	case float64:
		req.add(name, strconv.FormatFloat(x, 'f', -1, 64))
	case bool:
		req.add(name, map[bool]string{true: "1", false: "0"}[x])
	default:
		v.Add(name, api.MsgString(name))
	}
}
