package forms

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/web"

	"github.com/groundwork-go/groundwork/internal/reply"
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
	// Accepting is whether the form takes responses now (its dates, its
	// limit); ClosedMessage says why not, and what to do instead.
	Accepting     bool   `json:"accepting"`
	ClosedMessage string `json:"closed_message,omitempty"`
	// Prefill is what the address fills in, by field name: the fields
	// that opt in, and those of a signed prefill token, which Locked
	// names (send the token back as _prefill; the person cannot change
	// them).
	Prefill map[string][]string `json:"prefill"`
	Locked  []string            `json:"locked"`
	// Language is the one the definition is in (?lang=, else the best
	// match of Accept-Language, else the form's own); Languages are all
	// the form has, its own first.
	Language  string   `json:"language"`
	Languages []string `json:"languages"`
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
	// FormToken is the form-load token: send it back as _form_token.
	FormToken string `json:"form_token"`
	// Captcha, when the form has one, is how to draw the widget: send its
	// token back as response_field.
	Captcha *renderCaptcha `json:"captcha,omitempty"`
	// LoadedAt is the server's Unix time now: sent back as _form_loaded_at it counts only where the service takes
	// submissions without a token (Options.FormTokenOptional).
	LoadedAt int64 `json:"loaded_at"`
}

// renderCaptcha is the render definition's CAPTCHA widget.
type renderCaptcha struct {
	Script        string `json:"script"`
	Class         string `json:"class"`
	SiteKey       string `json:"site_key"`
	ResponseField string `json:"response_field"`
}

// activeForm resolves {form} for the public routes: only active forms.
func (h *Handler) activeForm(r *http.Request) (*Form, error) {
	f, err := h.svc.publicForm(r.Context(), r.PathValue("form"))
	if err != nil {
		return nil, err
	}
	if !f.IsActive {
		return nil, ErrInactive
	}
	return f, nil
}

func (h *Handler) renderDefinition(w http.ResponseWriter, r *http.Request) error {
	form, err := h.activeForm(r)
	if errors.Is(err, ErrNotFound) {
		err = ErrInactive // the same 404 for missing and inactive forms
	}
	if err != nil {
		return err
	}
	d, err := h.svc.Detail(r.Context(), form)
	if err != nil {
		return err
	}
	lang := requestLanguage(form, r)
	shown, fields, _ := Localized(form, d.Fields, nil, lang)
	def := renderDefinition{ID: form.ID, Name: shown.Name, Slug: form.Slug, Description: shown.Description,
		SubmitButtonText: shown.SubmitButtonText, SuccessMessage: shown.SuccessMessage, RedirectURL: form.RedirectURL,
		IsMultiStep: form.IsMultiStep, ShowProgressBar: form.ShowProgressBar, AllowStepNavigation: form.AllowStepNavigation,
		Fields: fields, Steps: localizedSteps(form, d.Steps, lang), Language: lang, Languages: languages(form)}
	def.Config.Honeypot.Enabled, def.Config.Honeypot.FieldName = true, HoneypotField
	def.Config.Display.LabelPosition, def.Config.Display.ShowRequiredIndicator = "above", true
	def.Config.Display.RequiredIndicator, def.Config.Display.ErrorDisplay = "*", "below"
	def.Config.LoadedAt = h.svc.now().Unix()
	def.Config.FormToken = h.svc.FormToken(form.ID)
	if form.Captcha && h.svc.captcha != nil {
		w := h.svc.captcha.Widget()
		def.Config.Captcha = &renderCaptcha{Script: w.Script, Class: w.Class, SiteKey: w.SiteKey, ResponseField: w.ResponseField}
	}
	left, err := h.svc.remaining(r.Context(), form, d.Fields)
	if err != nil {
		return err
	}
	def.Fields = withRemaining(def.Fields, left)
	def.Prefill, def.Locked = h.svc.prefillFrom(d.Fields, r.URL.Query()), []string{}
	if token := r.URL.Query().Get(PrefillQuery); token != "" {
		locked, err := h.svc.readPrefill(form, d.Fields, token)
		if err != nil {
			v := &api.Validator{}
			v.Add(PrefillQuery, msgBadPrefill)
			return v.Err()
		}
		for _, name := range slices.Sorted(maps.Keys(locked)) {
			def.Prefill[name] = []string{locked[name]}
			def.Locked = append(def.Locked, name)
		}
	}
	why, err := h.svc.closedBy(r.Context(), form, h.svc.now(), h.submitter.respondentOf(r), r.URL.Query().Get(AccessQuery))
	if err != nil {
		return err
	}
	def.Accepting = why == nil
	if why != nil {
		def.ClosedMessage = speakerFor(form, nil, lang).phrase(closedWords(shown, why))
	}
	reply.WriteData(w, http.StatusOK, def)
	return nil
}

// submitResponse is the 201 body.
type submitResponse struct {
	Success      bool    `json:"success"`
	Message      string  `json:"message"`
	SubmissionID int64   `json:"submission_id"`
	RedirectURL  *string `json:"redirect_url"`
	// BookingURL is the booking page a routing form sends the respondent
	// on to, prefilled and signed.
	BookingURL string `json:"booking_url,omitempty"`
	// PaymentURL is the payment page of a paid form's submission, kept
	// awaiting payment until paid there.
	PaymentURL string `json:"payment_url,omitempty"`
}

func (h *Handler) submitForm(w http.ResponseWriter, r *http.Request) error {
	a, err := h.submitter.run(w, r, r.PathValue("form"), sendOnly)
	if err != nil {
		return err
	}
	reply.WriteJSON(w, http.StatusCreated, submitResponse{Success: true, Message: a.res.Message, SubmissionID: a.res.Submission.ID, RedirectURL: a.res.RedirectURL,
		BookingURL: a.res.BookingURL, PaymentURL: a.res.PaymentURL})
	return nil
}

// saveForm saves a person's answers so far: POST {form}/save, a body as
// the submit's (with _resume to save over a partial, _resume_email to
// mail the link), answered 201 with the resume token.
func (h *Handler) saveForm(w http.ResponseWriter, r *http.Request) error {
	a, err := h.submitter.run(w, r, r.PathValue("form"), saveOnly)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusCreated, a.saved)
	return nil
}

// resumed is what GET {form}/resume/{token} answers: the answers saved,
// the files (by field), the last step reached and when the link expires.
type resumed struct {
	Values    map[string][]string `json:"values"`
	Files     []resumedFile       `json:"files"`
	LastStep  int                 `json:"last_step"`
	ExpiresAt time.Time           `json:"expires_at"`
}

type resumedFile struct {
	Field        string `json:"field"`
	OriginalName string `json:"original_name"`
	Size         int64  `json:"size"`
}

func (h *Handler) resumeForm(w http.ResponseWriter, r *http.Request) error {
	form, err := h.activeForm(r)
	if errors.Is(err, ErrNotFound) {
		err = ErrInactive
	}
	if err != nil {
		return err
	}
	p, err := h.svc.Partial(r.Context(), form, r.PathValue("token"))
	if err != nil {
		return err
	}
	out := resumed{Values: p.Values, Files: []resumedFile{}, LastStep: p.LastStep, ExpiresAt: p.ExpiresAt}
	for _, u := range p.Uploads {
		out.Files = append(out.Files, resumedFile{Field: u.FieldName, OriginalName: u.OriginalName, Size: u.Size})
	}
	reply.WriteData(w, http.StatusOK, out)
	return nil
}

// listPartials is where people stop: GET {form}/partials.
func (h *Handler) listPartials(w http.ResponseWriter, r *http.Request) error {
	form, err := h.form(r)
	if err != nil {
		return err
	}
	sum, err := h.svc.Partials(r.Context(), form)
	if err != nil {
		return err
	}
	reply.WriteJSON(w, http.StatusOK, sum)
	return nil
}

// summary is the form's answers at a glance: GET {form}/summary?from=&to=.
func (h *Handler) summary(w http.ResponseWriter, r *http.Request) error {
	form, err := h.form(r)
	if err != nil {
		return err
	}
	from, to, err := h.svc.SummaryRange(r.URL.Query().Get("from"), r.URL.Query().Get("to"))
	if err != nil {
		return err
	}
	sum, err := h.svc.Summary(r.Context(), form, from, to)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, sum)
	return nil
}

// pages is where the forms' pages are for links the API makes: the
// service's PagesURL, else this site's address with PagePrefixDefault.
func (h *Handler) pages(r *http.Request) string {
	return web.LinkBase(r, h.opts.BaseURL) + PagePrefixDefault
}

// requestAccess mails a link to a form that knows people by email:
// POST {form}/access {"email": ...}, answered 202 whether or not the
// address has responded.
func (h *Handler) requestAccess(w http.ResponseWriter, r *http.Request) error {
	form, err := h.activeForm(r)
	if errors.Is(err, ErrNotFound) {
		err = ErrInactive
	}
	if err != nil {
		return err
	}
	if _, err := h.submitter.hit(w, r, form); err != nil {
		return err
	}
	in, err := api.DecodeInput(w, r, 0)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	v.CheckKeys("", in, accessShape)
	var address string
	v.SetString(in, "email", &address)
	if err := v.Err(); err != nil {
		return err
	}
	if err := h.svc.RequestAccess(r.Context(), form, address, h.pages(r)); err != nil {
		return err
	}
	reply.WriteJSON(w, http.StatusAccepted, map[string]string{"message": "If the address can respond, a link to the form is on its way to it."})
	return nil
}

// invite mints invitations: POST {form}/invitations {"count": n,
// "expires_at": time}.
func (h *Handler) invite(w http.ResponseWriter, r *http.Request) error {
	form, err := h.form(r)
	if err != nil {
		return err
	}
	in, err := api.DecodeInput(w, r, 0)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	v.CheckKeys("", in, invitationShape)
	var count *int64
	var expires *time.Time
	v.SetOptionalInt(in, "count", &count)
	setOptionalTime(v, in, "expires_at", &expires)
	if count == nil && v.Err() == nil {
		v.Add("count", api.MsgRequired("count"))
	}
	if err := v.Err(); err != nil {
		return err
	}
	var until time.Time
	if expires != nil {
		until = *expires
	}
	list, err := h.svc.Invite(form, int(min(max(*count, -1), invitationsMax+1)), until, h.pages(r))
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusCreated, list)
	return nil
}

var (
	accessShape     = &api.Shape{Name: "a request for a link", Keys: []string{"email"}}
	invitationShape = &api.Shape{Name: "invitations", Keys: []string{"count", "expires_at"}}
)

// withRemaining is fields with each option that has a quota given its
// places left ("remaining") in its field_config, on copies.
func withRemaining(fields []Field, left map[string]map[string]int64) []Field {
	if len(left) == 0 {
		return fields
	}
	out := slices.Clone(fields)
	for i := range out {
		places, ok := left[out[i].Name]
		if !ok {
			continue
		}
		config := maps.Clone(out[i].FieldConfig)
		list, _ := config["options"].([]any)
		options := make([]any, len(list))
		for j, it := range list {
			if o, isObject := it.(map[string]any); isObject {
				if n, limited := places[scalarString(o["value"])]; limited {
					o = maps.Clone(o)
					o["remaining"] = n
				}
				it = o
			}
			options[j] = it
		}
		config["options"] = options
		out[i].FieldConfig = config
	}
	return out
}
