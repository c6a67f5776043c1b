package forms

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// Caps on answers that no validation rule narrows, in characters.
const (
	MaxTextLength     = 10_000
	MaxTextareaLength = 65_535
)

// IncomingFile is an uploaded file already written to the BlobStore,
// waiting for the rest of its submission.
type IncomingFile struct {
	FieldName    string
	OriginalName string
	StoredName   string
	Key          string
	MimeType     string
	Size         int64
}

// KeptUpload is a valid upload of a submission that failed on another
// field, kept for the visitor's next try, which names it by ID (random,
// unguessable) instead of sending the file again. Swept after
// UploadKeepTime.
type KeptUpload struct {
	ID     string
	FormID int64
	IncomingFile
	CreatedAt time.Time
}

// UploadKeepTime is how long a kept upload waits for the next try.
const UploadKeepTime = time.Hour

// KeptUploadField names the hidden input ("_upload[cv]") that carries a
// kept upload's id for the field cv.
const KeptUploadField = "_upload"

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

	// KeptIDs name uploads kept from the visitor's last try, by field
	// (the KeptUploadField inputs); a file sent for the field replaces
	// its kept one.
	KeptIDs map[string]string
	// Kept are the uploads this request's failure kept, by field (see
	// Service.KeepUploads), for the page to name and send back.
	Kept map[string]KeptUpload

	// keepValid keeps the valid uploads when the submission fails.
	keepValid bool

	// refused are the messages of files refused as they arrived, by
	// field: they stand for the field's answer, beside every other
	// field's messages, so a person sees all their mistakes at once.
	refused map[string][]string

	// Whether the form-load token's use was counted, and found a replay
	// (see tokenVerdict).
	tokenCounted  bool
	tokenReplayed bool
}

// SubmitResult is the outcome of a submission that passed validation.
type SubmitResult struct {
	Submission *Submission
	// Spam is true when the honeypot was filled or the form was sent too
	// fast: the submission is stored, flagged, and nobody is told.
	Spam        bool
	Message     string
	RedirectURL *string
}

// label is how a field is named in messages: its label, else its name.
func label(f *Field) string {
	if strings.TrimSpace(f.Label) != "" {
		return f.Label
	}
	return api.Attr(f.Name)
}

// cleanFileName keeps the base name of a client's file name, without
// control characters, at most 255 bytes; it is shown, never used as a
// path.
func cleanFileName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(name)
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	for len(name) > 255 {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "" || name == "." || name == "/" {
		return "file"
	}
	return name
}

// extension is the lower-case extension of a client file name, "" if it
// has none usable.
func extension(name string) string {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	if !extPattern.MatchString(ext) {
		return ""
	}
	return ext
}

// allowedTypes are the extensions a file field takes.
func (s *Service) allowedTypes(f *Field) []string {
	list, ok := f.FieldConfig["allowed_types"].([]any)
	if !ok || len(list) == 0 {
		return s.extensions
	}
	out := make([]string, 0, len(list))
	for _, t := range list {
		if str, ok := t.(string); ok {
			out = append(out, strings.ToLower(strings.TrimPrefix(str, ".")))
		}
	}
	return out
}

// maxFileSize is the largest file a field takes, in bytes: the field's
// max_size (KB) when smaller than the service's cap.
func (s *Service) maxFileSize(f *Field) int64 {
	limit := s.maxFile
	if kb, ok := f.FieldConfig["max_size"].(float64); ok && kb > 0 && int64(kb*1024) < limit {
		limit = int64(kb * 1024)
	}
	return limit
}

// AcceptFile stores one uploaded file for the field named field, checking
// that the field takes files, and the file's extension and size, while
// it streams. A file the field refuses is a *ValidationError, and nothing
// is kept. The caller hands the result to Submit, which deletes it if the
// submission fails.
func (s *Service) AcceptFile(ctx context.Context, form *Form, fields []Field, field, fileName string, r io.Reader) (*IncomingFile, error) {
	i := slices.IndexFunc(fields, func(f Field) bool { return f.Name == field })
	if i < 0 {
		return nil, nil // not a field of this form: ignored, as unknown values are
	}
	f := &fields[i]
	if f.Type != TypeFile {
		return nil, api.Invalid(field, fmt.Sprintf("The %s field does not take files.", label(f)))
	}
	if s.blobs == nil {
		return nil, api.Invalid(field, fmt.Sprintf("The %s field cannot take files here: uploads are not configured.", label(f)))
	}
	name := cleanFileName(fileName)
	ext := extension(name)
	allowed := s.allowedTypes(f)
	if ext == "" || !slices.Contains(allowed, ext) {
		return nil, api.Invalid(field, fmt.Sprintf("The %s field must be a file of type: %s.", label(f), strings.Join(allowed, ", ")))
	}
	limit := s.maxFileSize(f)
	// Sniff the type from the first bytes, then stream the rest.
	head := make([]byte, 512)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("forms: read upload: %w", err)
	}
	head = head[:n]
	mime := http.DetectContentType(head)
	stored := s.newUUID() + "." + ext
	key := fmt.Sprintf("uploads/%d/%s", form.ID, stored)
	counter := &countingReader{r: io.MultiReader(bytes.NewReader(head), r), limit: limit}
	size, err := s.blobs.Put(ctx, key, counter)
	if errors.Is(err, errTooLarge) || counter.over {
		_ = s.blobs.Delete(context.WithoutCancel(ctx), key)
		return nil, api.Invalid(field, fmt.Sprintf("The %s field must not be greater than %d kilobytes.", label(f), limit/1024))
	}
	if err != nil {
		return nil, fmt.Errorf("forms: store upload: %w", err)
	}
	if size == 0 {
		_ = s.blobs.Delete(context.WithoutCancel(ctx), key)
		return nil, api.Invalid(field, fmt.Sprintf("The %s field must be a file that is not empty.", label(f)))
	}
	return &IncomingFile{FieldName: field, OriginalName: name, StoredName: stored, Key: key, MimeType: mime, Size: size}, nil
}

var errTooLarge = errors.New("forms: file too large")

// countingReader fails once more than limit bytes have been read.
type countingReader struct {
	r     io.Reader
	n     int64
	limit int64
	over  bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.limit {
		c.over = true
		return n, errTooLarge
	}
	return n, err
}

// discardFiles deletes files a failed submission will not keep.
func (s *Service) discardFiles(ctx context.Context, files map[string]*IncomingFile) {
	keys := make([]string, 0, len(files))
	for _, f := range files {
		if f != nil {
			keys = append(keys, f.Key)
		}
	}
	s.removeBlobs(ctx, keys)
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
	res, err := s.submit(ctx, definition{form: form, fields: fields}, req, false)
	if err != nil {
		s.discardFiles(ctx, req.Files)
	}
	return res, err
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
	a := answers(req.Values)
	if a == nil {
		a = answers{}
	}
	names := fieldNames(fields)
	// What the request said of itself is kept as it came, made storable.
	sub := &Submission{FormID: form.ID, PageURL: driverless.ClipText(req.PageURL, 2048),
		ReferrerURL: driverless.ClipText(req.ReferrerURL, 2048), IPAddress: driverless.ClipText(req.IPAddress, 64),
		UserAgent: driverless.ClipText(req.UserAgent, 512), CreatedAt: now, UpdatedAt: now}
	v := &api.Validator{}
	for i := range fields {
		f := &fields[i]
		if IsLayout(f.Type) {
			continue
		}
		file := req.Files[f.Name]
		if !f.visible(a, names) {
			continue // hidden: its file, if any, is discarded with the rest
		}
		if msgs := req.refused[f.Name]; len(msgs) > 0 {
			for _, m := range msgs {
				v.Add(f.Name, m)
			}
			continue
		}
		value, ok := s.checkAnswer(v, f, a[f.Name], file)
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
	if err := v.Err(); err != nil {
		return nil, err
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
	notifications := def.notifications
	if !sub.IsSpam && s.enqueuer != nil && notifications == nil {
		var err error
		if notifications, err = s.store.Notifications(ctx, form.ID); err != nil {
			return nil, fmt.Errorf("forms: submit: %w", err)
		}
	}
	event := SubmissionEvent{Form: form, Submission: sub}
	// then stays nil when there is nothing to do inside the transaction,
	// which lets a store skip the transaction.
	var then func(context.Context, *sql.Tx) error
	if txHooks := s.hooks.submissionTx.All(); !sub.IsSpam && (len(notifications) > 0 || len(txHooks) > 0) {
		then = func(ctx context.Context, tx *sql.Tx) error {
			return s.acceptTx(ctx, tx, notifications, txHooks, event, a, names)
		}
	}
	err := s.store.CreateSubmission(ctx, sub, then)
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
	if !sub.IsSpam {
		s.fireAccepted(ctx, event)
	}
	msg := form.SuccessMessage
	if strings.TrimSpace(msg) == "" {
		msg = "Form submitted successfully."
	}
	outcome := "accepted"
	if sub.IsSpam {
		outcome = "spam"
	}
	groundwork.Count(s.meter, groundwork.MetricSubmissions, outcome)
	return &SubmitResult{Submission: sub, Spam: sub.IsSpam, Message: msg, RedirectURL: form.RedirectURL}, nil
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
	if err := s.queueNotifications(ctx, tx, notifications, event.Submission, a, names); err != nil {
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

// checkAnswer validates one visible field's answer, adding messages to v,
// and returns the value to store; ok is false when there is nothing to
// store (no answer, or a wrong one).
func (s *Service) checkAnswer(v *api.Validator, f *Field, raw []string, file *IncomingFile) (Value, bool) {
	key, name := f.Name, label(f)
	fieldID := f.ID
	value := Value{FieldID: &fieldID, FieldName: f.Name, FieldLabel: f.Label, FieldType: f.Type}
	var present []string
	for _, r := range raw {
		if r = strings.TrimSpace(r); r != "" {
			present = append(present, r)
		}
		if !driverless.ValidText(r) {
			v.Add(key, fmt.Sprintf("The %s field must be UTF-8 text without NUL characters.", name))
			return value, false
		}
	}
	if f.Type == TypeFile {
		return s.checkFile(v, f, file, value)
	}
	if len(present) == 0 {
		if f.IsRequired {
			v.Add(key, fmt.Sprintf("The %s field is required.", name))
		}
		return value, false
	}
	if file != nil {
		v.Add(key, fmt.Sprintf("The %s field does not take files.", name))
		return value, false
	}
	if isMulti(f.Type) {
		return s.checkList(v, f, present, value)
	}
	if len(present) > 1 {
		v.Add(key, fmt.Sprintf("The %s field must be a string.", name))
		return value, false
	}
	text, display := checkText(v, f, present[0])
	if v.Has(key) {
		return value, false
	}
	value.Value, value.DisplayValue = &text, display
	return value, true
}

// checkFile validates a file field's upload (nil when none came).
func (s *Service) checkFile(v *api.Validator, f *Field, file *IncomingFile, value Value) (Value, bool) {
	key, name := f.Name, label(f)
	if file == nil {
		if f.IsRequired {
			v.Add(key, fmt.Sprintf("The %s field is required.", name))
		}
		return value, false
	}
	// AcceptFile checked the file against the field as it was then;
	// the field may have changed since (a stale definition), so the
	// type and size limits are checked again.
	if allowed := s.allowedTypes(f); !slices.Contains(allowed, extension(file.StoredName)) {
		v.Add(key, fmt.Sprintf("The %s field must be a file of type: %s.", name, strings.Join(allowed, ", ")))
	}
	if limit := s.maxFileSize(f); file.Size > limit {
		v.Add(key, fmt.Sprintf("The %s field must not be greater than %d kilobytes.", name, limit/1024))
	}
	kb := float64(file.Size) / 1024
	rules := f.ValidationRules
	if rules.Min != nil && kb < *rules.Min {
		v.Add(key, fmt.Sprintf("The %s field must be at least %s kilobytes.", name, num(*rules.Min)))
	}
	if rules.Max != nil && kb > *rules.Max {
		v.Add(key, fmt.Sprintf("The %s field must not be greater than %s kilobytes.", name, num(*rules.Max)))
	}
	original := file.OriginalName
	value.Value, value.DisplayValue = &original, original
	return value, !v.Has(key)
}

// checkText validates a single answer of a text-like, number, date,
// time, checkbox or choice field, and returns what to store and what to
// show for it.
func checkText(v *api.Validator, f *Field, text string) (stored, display string) {
	key, name := f.Name, label(f)
	display = text
	rules := f.ValidationRules
	lengthRules := true
	switch f.Type {
	case TypeEmail:
		if !validEmail(text) {
			v.Add(key, fmt.Sprintf("The %s field must be a valid email address.", name))
		}
	case TypeURL:
		if !validURL(text) {
			v.Add(key, fmt.Sprintf("The %s field must be a valid URL.", name))
		}
	case TypeNumber:
		lengthRules = false
		n, ok := number(text)
		if !ok {
			v.Add(key, fmt.Sprintf("The %s field must be a number.", name))
			break
		}
		if rules.Min != nil && n < *rules.Min {
			v.Add(key, fmt.Sprintf("The %s field must be at least %s.", name, num(*rules.Min)))
		}
		if rules.Max != nil && n > *rules.Max {
			v.Add(key, fmt.Sprintf("The %s field must not be greater than %s.", name, num(*rules.Max)))
		}
	case TypeDate:
		lengthRules = false
		if !validDate(text) {
			v.Add(key, fmt.Sprintf("The %s field must be a valid date.", name))
			break
		}
		if rules.MinDate != "" && text < rules.MinDate {
			v.Add(key, fmt.Sprintf("The %s field must be a date after or equal to %s.", name, rules.MinDate))
		}
		if rules.MaxDate != "" && text > rules.MaxDate {
			v.Add(key, fmt.Sprintf("The %s field must be a date before or equal to %s.", name, rules.MaxDate))
		}
	case TypeTime:
		lengthRules = false
		if !timePattern.MatchString(text) {
			v.Add(key, fmt.Sprintf("The %s field must match the format H:i.", name))
			break
		}
		if rules.MinTime != "" && text < rules.MinTime {
			v.Add(key, fmt.Sprintf("The %s field must be a time after or equal to %s.", name, rules.MinTime))
		}
		if rules.MaxTime != "" && text > rules.MaxTime {
			v.Add(key, fmt.Sprintf("The %s field must be a time before or equal to %s.", name, rules.MaxTime))
		}
	case TypeCheckbox:
		lengthRules = false
		switch strings.ToLower(text) {
		case "1", "true", "on", "yes":
			text, display = "1", "Yes"
		case "0", "false", "off", "no":
			text, display = "0", "No"
		default:
			v.Add(key, fmt.Sprintf("The %s field must be true or false.", name))
		}
	case TypeSelect, TypeRadio:
		lengthRules = false
		opt, ok := optionOf(f, text)
		if !ok {
			v.Add(key, fmt.Sprintf("The selected %s is invalid.", name))
		}
		display = opt.Label
	}
	if lengthRules {
		chars := float64(utf8.RuneCountInString(text))
		cap := MaxTextLength
		if f.Type == TypeTextarea {
			cap = MaxTextareaLength
		}
		switch {
		case chars > float64(cap):
			v.Add(key, fmt.Sprintf("The %s field must not be greater than %d characters.", name, cap))
		case rules.Max != nil && chars > *rules.Max:
			v.Add(key, fmt.Sprintf("The %s field must not be greater than %s characters.", name, num(*rules.Max)))
		}
		if rules.Min != nil && chars < *rules.Min {
			v.Add(key, fmt.Sprintf("The %s field must be at least %s characters.", name, num(*rules.Min)))
		}
	}
	if rules.Pattern != "" {
		if re, err := compilePattern(rules.Pattern); err == nil && !re.MatchString(text) {
			v.Add(key, fmt.Sprintf("The %s field format is invalid.", name))
		}
	}
	return text, display
}

// checkList validates a checkbox group or multi-select.
func (s *Service) checkList(v *api.Validator, f *Field, items []string, value Value) (Value, bool) {
	key, name := f.Name, label(f)
	labels := make([]string, 0, len(items))
	for i, it := range items {
		opt, ok := optionOf(f, it)
		if !ok {
			v.Add(key+"."+strconv.Itoa(i), fmt.Sprintf("The selected %s is invalid.", name))
			continue
		}
		labels = append(labels, opt.Label)
	}
	rules := f.ValidationRules
	if rules.Min != nil && float64(len(items)) < *rules.Min {
		v.Add(key, fmt.Sprintf("The %s field must have at least %s items.", name, num(*rules.Min)))
	}
	if rules.Max != nil && float64(len(items)) > *rules.Max {
		v.Add(key, fmt.Sprintf("The %s field must not have more than %s items.", name, num(*rules.Max)))
	}
	if v.Has(key) || slices.ContainsFunc(v.FieldNames(), func(n string) bool { return strings.HasPrefix(n, key+".") }) {
		return value, false
	}
	value.ValueArray, value.DisplayValue = items, strings.Join(labels, ", ")
	return value, true
}

func optionOf(f *Field, value string) (Option, bool) {
	for _, o := range f.Options() {
		if o.Value == value {
			return o, true
		}
	}
	return Option{}, false
}

// validEmail accepts a bare address with a dotted domain.
func validEmail(s string) bool { return api.ValidEmail(s) }

// num writes a rule's number without a needless fraction.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// MsgKeptUploadGone is a field's message when the upload kept from the
// visitor's last try can no longer be used (taken, swept or forged).
const MsgKeptUploadGone = "The file you chose before is no longer kept. Please choose it again."

// takeKept puts the uploads kept from the visitor's last try back in req,
// by field, each taken once; a file sent again for the field wins (the
// kept one goes). A kept upload that is gone is the field's message.
func (s *Service) takeKept(ctx context.Context, form *Form, req *SubmitRequest) error {
	for field, id := range req.KeptIDs {
		k, err := s.store.TakeUpload(ctx, form.ID, id)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("forms: take kept upload: %w", err)
		}
		usable := err == nil && k.FieldName == field && s.now().Sub(k.CreatedAt) < UploadKeepTime
		if err == nil && (!usable || req.Files[field] != nil) {
			s.removeBlobs(ctx, []string{k.Key})
		}
		switch {
		case req.Files[field] != nil:
		case usable:
			file := k.IncomingFile
			req.Files[field] = &file
		default:
			req.refuse(field, MsgKeptUploadGone)
		}
	}
	return nil
}

// keepUploads keeps, for the visitor's next try, each file of req whose
// field has no message in ve, and takes it out of req.Files so that the
// failure does not delete it; req.Kept names them for the page.
func (s *Service) keepUploads(ctx context.Context, form *Form, req *SubmitRequest, ve *ValidationError) {
	errs := ve.Fields()
	for field, f := range req.Files {
		if f == nil || len(errs[field]) > 0 {
			continue
		}
		id := make([]byte, 16)
		_, _ = rand.Read(id)
		k := KeptUpload{ID: hex.EncodeToString(id), FormID: form.ID, IncomingFile: *f, CreatedAt: s.now()}
		if err := s.store.KeepUpload(ctx, k); err != nil {
			s.logger.WarnContext(ctx, "forms: keep upload", "form", form.ID, "error", err)
			continue
		}
		if req.Kept == nil {
			req.Kept = map[string]KeptUpload{}
		}
		req.Kept[field] = k
		delete(req.Files, field)
	}
}

// SweepKeptUploads deletes the uploads kept longer than UploadKeepTime,
// with their files, and returns how many went (the periodic job's work).
func (s *Service) SweepKeptUploads(ctx context.Context) (int, error) {
	keys, err := s.store.DropKeptUploads(ctx, s.now().Add(-UploadKeepTime))
	if err != nil {
		return 0, err
	}
	s.removeBlobs(ctx, keys)
	return len(keys), nil
}
