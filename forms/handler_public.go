package forms

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/groundwork-go/groundwork/internal/api"
)

// renderDefinition is what GET /{form}/render answers: the form, its
// fields and steps, and how to draw them.
type renderDefinition struct {
	ID                  int64            `json:"id"`
	Name                string           `json:"name"`
	Slug                string           `json:"slug"`
	Description         string           `json:"description"`
	SubmitButtonText    string           `json:"submit_button_text"`
	SuccessMessage      string           `json:"success_message"`
	RedirectURL         *string          `json:"redirect_url"`
	IsMultiStep         bool             `json:"is_multi_step"`
	ShowProgressBar     bool             `json:"show_progress_bar"`
	AllowStepNavigation bool             `json:"allow_step_navigation"`
	Fields              []Field          `json:"fields"`
	Steps               []StepWithFields `json:"steps"`
	Config              renderConfig     `json:"config"`
}

type renderConfig struct {
	Honeypot struct {
		Enabled   bool   `json:"enabled"`
		FieldName string `json:"field_name"`
	} `json:"honeypot"`
	Display struct {
		LabelPosition         string `json:"label_position"`
		ShowRequiredIndicator bool   `json:"show_required_indicator"`
		RequiredIndicator     string `json:"required_indicator"`
		ErrorDisplay          string `json:"error_display"`
	} `json:"display"`
	// LoadedAt is the server's Unix time now: send it back as
	// _form_loaded_at.
	LoadedAt int64 `json:"loaded_at"`
}

// activeForm resolves {form} for the public routes: only active forms.
func (h *Handler) activeForm(r *http.Request) (*Form, error) {
	f, err := h.svc.Form(r.Context(), r.PathValue("form"))
	if err != nil {
		return nil, err
	}
	if !f.IsActive {
		return nil, ErrInactive
	}
	return f, nil
}

func (h *Handler) renderDefinition(w http.ResponseWriter, r *http.Request) {
	form, err := h.activeForm(r)
	if errors.Is(err, ErrNotFound) {
		err = ErrInactive // the same 404 for missing and inactive forms
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := h.svc.Detail(r.Context(), form)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	def := renderDefinition{ID: form.ID, Name: form.Name, Slug: form.Slug, Description: form.Description,
		SubmitButtonText: form.SubmitButtonText, SuccessMessage: form.SuccessMessage, RedirectURL: form.RedirectURL,
		IsMultiStep: form.IsMultiStep, ShowProgressBar: form.ShowProgressBar, AllowStepNavigation: form.AllowStepNavigation,
		Fields: d.Fields, Steps: d.Steps}
	def.Config.Honeypot.Enabled, def.Config.Honeypot.FieldName = true, HoneypotField
	def.Config.Display.LabelPosition, def.Config.Display.ShowRequiredIndicator = "above", true
	def.Config.Display.RequiredIndicator, def.Config.Display.ErrorDisplay = "*", "below"
	def.Config.LoadedAt = h.svc.now().Unix()
	api.WriteData(w, http.StatusOK, def)
}

// wantsHTML reports whether the client is a browser posting the HTML page:
// it asks for HTML and not for JSON.
func wantsHTML(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "text/html") && !strings.Contains(accept, "application/json")
}

// submitResponse is the 201 body.
type submitResponse struct {
	Success      bool    `json:"success"`
	Message      string  `json:"message"`
	SubmissionID int64   `json:"submission_id"`
	RedirectURL  *string `json:"redirect_url"`
}

func (h *Handler) submitForm(w http.ResponseWriter, r *http.Request) {
	html := wantsHTML(r)
	ref := r.PathValue("form")
	def, err := h.svc.submitDefinition(r.Context(), ref)
	form, fields := def.form, def.fields
	if err == nil && !form.IsActive {
		err = ErrInactive
	}
	if errors.Is(err, ErrNotFound) {
		err = ErrInactive // the same 404 for missing and inactive forms
	}
	if err != nil {
		if html {
			notFoundPage(w, err, h.base.Logger)
			return
		}
		h.fail(w, r, err)
		return
	}
	if h.submit != nil {
		key := strconv.FormatInt(form.ID, 10) + ":" + api.ClientIPString(r, h.opts.TrustedProxies)
		allowed, err := h.submit.Hit(w, r, key)
		if err != nil {
			api.WriteMessage(w, http.StatusServiceUnavailable, api.MsgUnavailable)
			return
		}
		if !allowed {
			h.answerProblem(w, r, form, http.StatusTooManyRequests, h.submit.Message429(), html)
			return
		}
	}
	req, err := h.readSubmission(w, r, form, fields)
	if err != nil {
		h.answerError(w, r, form, req, err, html)
		return
	}
	req.PageURL = api.AbsoluteURL(r, h.opts.BaseURL).String()
	req.ReferrerURL = r.Referer()
	req.IPAddress = api.ClientIPString(r, h.opts.TrustedProxies)
	req.UserAgent = r.UserAgent()
	res, used, err := h.svc.submitChecked(r.Context(), ref, def, req)
	if used != nil {
		form = used
	}
	if errors.Is(err, ErrNotFound) {
		err = ErrInactive // deleted since it was cached
	}
	if err != nil {
		h.answerError(w, r, form, req, err, html)
		return
	}
	if html {
		if res.RedirectURL != nil {
			http.Redirect(w, r, *res.RedirectURL, http.StatusSeeOther)
			return
		}
		writePage(w, http.StatusOK, &page{Form: form, Success: true, Message: res.Message, PageURL: r.Referer()}, h.base.Logger)
		return
	}
	api.WriteJSON(w, http.StatusCreated, submitResponse{Success: true, Message: res.Message, SubmissionID: res.Submission.ID, RedirectURL: res.RedirectURL})
}

// answerError answers a failed submission: the form again with messages
// for a browser, the JSON envelope otherwise.
func (h *Handler) answerError(w http.ResponseWriter, r *http.Request, form *Form, req *SubmitRequest, err error, html bool) {
	var ve *ValidationError
	if html && errors.As(err, &ve) {
		var values map[string][]string
		if req != nil {
			values = req.Values
		}
		pg, perr := h.svc.page(r.Context(), form, values, ve)
		if perr == nil {
			pg.SubmitURL = r.URL.Path
			writePage(w, http.StatusUnprocessableEntity, pg, h.base.Logger)
			return
		}
	}
	var ae *api.Error
	if html && errors.As(err, &ae) && ae.Status < 500 {
		h.answerProblem(w, r, form, ae.Status, ae.Message, true)
		return
	}
	h.fail(w, r, err)
}

// answerProblem answers a status with a message, as the form page with
// the message on top for a browser.
func (h *Handler) answerProblem(w http.ResponseWriter, r *http.Request, form *Form, status int, msg string, html bool) {
	if !html {
		api.WriteMessage(w, status, msg)
		return
	}
	pg, err := h.svc.page(r.Context(), form, nil, nil)
	if err != nil {
		notFoundPage(w, err, h.base.Logger)
		return
	}
	pg.Problem, pg.SubmitURL = msg, r.URL.Path
	writePage(w, status, pg, h.base.Logger)
}

// fieldKey turns an input name into a field name: "email", "data[email]",
// "data[topics][]", "topics[]" and "files[cv]" all name their field.
func fieldKey(name string) string {
	name = strings.TrimSuffix(name, "[]")
	for _, wrap := range []string{"data[", "files["} {
		if inner, ok := strings.CutPrefix(name, wrap); ok && strings.HasSuffix(inner, "]") {
			return strings.TrimSuffix(inner, "]")
		}
	}
	return name
}

// add files a value under its field, or as the honeypot or load time.
func (req *SubmitRequest) add(name, value string) {
	switch key := fieldKey(name); key {
	case HoneypotField:
		req.Honeypot = value
	case LoadedAtField:
		req.LoadedAt = value
	default:
		req.Values[key] = append(req.Values[key], value)
	}
}

// readSubmission reads a multipart, url-encoded or JSON submission.
// Files are written to the BlobStore as they arrive; when reading fails
// they are deleted here, and later failures delete them in Submit.
func (h *Handler) readSubmission(w http.ResponseWriter, r *http.Request, form *Form, fields []Field) (*SubmitRequest, error) {
	req := &SubmitRequest{Values: map[string][]string{}, Files: map[string]*IncomingFile{}}
	r.Body = http.MaxBytesReader(w, r.Body, h.opts.MaxRequestBytes)
	if r.ContentLength > h.opts.MaxRequestBytes {
		return req, tooLarge(h.opts.MaxRequestBytes)
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var err error
	switch ct {
	case "multipart/form-data":
		err = h.readMultipart(r, form, fields, req)
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
		h.svc.discardFiles(r.Context(), req.Files)
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
func (h *Handler) readError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge(h.opts.MaxRequestBytes)
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

func (h *Handler) readMultipart(r *http.Request, form *Form, fields []Field, req *SubmitRequest) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return malformed(err)
	}
	fileErrs := &ValidationError{}
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return h.readError(err)
		}
		if parts >= h.opts.MaxParts {
			part.Close()
			return &api.Error{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("The submission must not have more than %d parts.", h.opts.MaxParts)}
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
				return h.readError(err)
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
			fileErrs.Add(key, "The "+api.Attr(key)+" field takes one file only.")
			continue
		}
		rr := &recordingReader{r: part}
		file, err := h.svc.AcceptFile(r.Context(), form, fields, key, part.FileName(), rr)
		if rr.err == nil {
			// Drain what the service did not read, to reach the next part.
			_, rr.err = io.Copy(io.Discard, rr)
		}
		part.Close()
		if rr.err != nil {
			if file != nil {
				req.Files[key] = file // deleted by readSubmission
			}
			return h.readError(rr.err)
		}
		var ve *ValidationError
		switch {
		case errors.As(err, &ve):
			for _, f := range ve.FieldNames() {
				for _, msg := range ve.Fields()[f] {
					fileErrs.Add(f, msg)
				}
			}
		case err != nil:
			return err
		case file != nil:
			req.Files[key] = file
		}
	}
	return fileErrs.Err()
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
		for _, k := range []string{HoneypotField, LoadedAtField} {
			if v, ok := in[k]; ok {
				values[k] = v
			}
		}
	}
	v := &api.Validator{}
	for name, val := range values {
		items, isList := val.([]any)
		if !isList {
			items = []any{val}
		}
		for _, it := range items {
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
	}
	return v.Err()
}
