package forms

import (
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/paging"
	"github.com/groundwork-go/groundwork/internal/reply"
)

// The abilities of the admin API, one per policy.
const (
	AbilityViewAny             = "forms:viewAny"
	AbilityCreate              = "forms:create"
	AbilityView                = "forms:view"
	AbilityUpdate              = "forms:update"
	AbilityDelete              = "forms:delete"
	AbilityViewSubmissions     = "forms:viewSubmissions"
	AbilityManageNotifications = "forms:manageNotifications"
)

// Handler defaults.
const (
	// PrefixDefault is where the API lives.
	PrefixDefault = "/api/v1/forms"
	// SubmitLimitDefault submissions per SubmitWindowDefault per form and
	// client IP.
	SubmitLimitDefault  = 5
	SubmitWindowDefault = time.Minute
	// MaxRequestBytesDefault caps a submission with its files (25 MiB).
	MaxRequestBytesDefault = 25 << 20
	// MaxPartsDefault caps the parts of a multipart submission.
	MaxPartsDefault = 200
	// MaxValueBytes caps one value of a submission (1 MiB).
	MaxValueBytes = 1 << 20
)

// HandlerOptions configures [NewHandler]. Nil means the defaults, and no
// admin API.
type HandlerOptions struct {
	// HTTPOptions: its RateLimiter counts the "api" throttle of the admin
	// API and the submissions per form and client IP (give a
	// store.SQLRateLimiter to share the counts across instances, and with
	// the page handler); BaseURL makes list links absolute (the request's
	// own host when nil).
	groundwork.HTTPOptions
	// Prefix is where the handler is mounted; PrefixDefault when empty.
	Prefix string
	// Tokens verifies the admin API's bearer tokens. Without it only the
	// public routes (render and submit) are served, and every admin route
	// answers 404.
	Tokens     groundwork.TokenVerifier
	Authorizer groundwork.Authorizer
	// SubmitLimit and SubmitWindow: SubmitLimitDefault a
	// SubmitWindowDefault when zero; a negative SubmitLimit turns the
	// limit off. Submissions refused for a mistake are given back (see
	// mistakesPerSubmission).
	SubmitLimit  int
	SubmitWindow time.Duration
	// PerPage is the default page size of lists (groundwork.PerPageDefault, 15).
	PerPage int
	// MaxRequestBytes and MaxParts cap a submission; the defaults above
	// when zero.
	MaxRequestBytes int64
	MaxParts        int
	// IncludeIPAddress and IncludeUserAgent show those of each submission
	// in the API and the CSV export; both are kept regardless.
	IncludeIPAddress bool
	IncludeUserAgent bool
	// Respondent names the signed-in person sending a submission, for
	// forms that take one response a person; without it, the request's
	// groundwork.Caller (a bearer token's holder).
	Respondent func(r *http.Request) (id string, ok bool)
}

// Handler serves the forms API under its prefix: the admin
// routes behind bearer tokens (when HandlerOptions.Tokens is set), and the
// public render and submit routes, which answer JSON. The HTML page of a
// form is [NewPageHandler]'s.
//
// Routes match the whole path, prefix included. Mount the handler at the
// prefix with a trailing slash, and at the prefix itself when the admin
// API is on, since the form collection's own path has none: a mux given
// only "/api/v1/forms/" answers "/api/v1/forms" with a 307 redirect to
// the slash, which curl and most API clients do not follow:
//
//	h, err := forms.NewHandler(svc, &forms.HandlerOptions{Tokens: tokens})
//	mux.Handle("/api/v1/forms", h)
//	mux.Handle("/api/v1/forms/", h)
//
// Under another prefix, name it in HandlerOptions.Prefix too (not with
// http.StripPrefix) and mount there ("/forms-api" and "/forms-api/").
// With nil options the handler serves the public routes only:
//
//	h, err := forms.NewHandler(svc, nil)
//	mux.Handle("/api/v1/forms/", h) // GET {form}/render, POST {form}/submit
type Handler struct {
	svc       *Service
	opts      HandlerOptions
	base      *api.Base
	guard     *api.Guard
	submitter *submitter
}

// NewHandler returns the forms API for svc.
func NewHandler(svc *Service, opts *HandlerOptions) (*Handler, error) {
	if svc == nil {
		return nil, errors.New("forms: new handler: service is nil")
	}
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	b, err := api.NewBase(o.Prefix, PrefixDefault, o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("forms: new handler: %w", err)
	}
	b.Errors = errorTable
	h := &Handler{svc: svc, opts: o, base: b,
		submitter: newSubmitter(svc, submitSettings{respondent: o.Respondent, limiter: o.RateLimiter, limit: o.SubmitLimit, window: o.SubmitWindow,
			trusted: o.TrustedProxies, maxBytes: o.MaxRequestBytes, maxParts: o.MaxParts, baseURL: o.BaseURL, logger: b.Logger})}
	if o.Tokens != nil {
		h.guard = &api.Guard{Tokens: o.Tokens, Authorizer: o.Authorizer, Logger: b.Logger}
		h.adminRoutes()
	}
	h.route("/{form}/render", methods{http.MethodGet: b.Func(h.renderDefinition)})
	h.route("/{form}/submit", methods{http.MethodPost: b.Func(h.submitForm)})
	h.route("/{form}/access", methods{http.MethodPost: b.Func(h.requestAccess)})
	h.route("/{form}/save", methods{http.MethodPost: b.Func(h.saveForm)})
	h.route("/{form}/resume/{token}", methods{http.MethodGet: b.Func(h.resumeForm)})
	h.submitter.pages = h.pages
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.base.ServeHTTP(w, r) }

// Routes lists the routes the handler serves, as "METHOD /path/{param}".
func (h *Handler) Routes() []string { return h.base.Routes() }

// methods maps an HTTP method to its handler.
type methods = api.Methods

// route registers one path and answers any other method with a JSON 405.
func (h *Handler) route(path string, m methods) {
	h.base.Handle(path, m)
}

// admin wraps fn with the bearer check for ability.
func (h *Handler) admin(ability string, fn api.HandlerFunc) http.HandlerFunc {
	return h.base.Func(func(w http.ResponseWriter, r *http.Request) error {
		ctx, err := h.guard.Check(r, ability)
		if err != nil {
			return err
		}
		return fn(w, r.WithContext(ctx))
	})
}

// adminRoutes registers the routes behind bearer tokens.
func (h *Handler) adminRoutes() {
	update := func(fn api.HandlerFunc) methods {
		a := h.admin(AbilityUpdate, fn)
		return methods{http.MethodPut: a, http.MethodPatch: a}
	}
	merge := func(ms ...methods) methods {
		out := methods{}
		for _, m := range ms {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	forms := methods{http.MethodGet: h.admin(AbilityViewAny, h.listForms), http.MethodPost: h.admin(AbilityCreate, h.createForm)}
	h.route("", forms)
	h.route("/{$}", forms)
	h.route("/{form}", merge(methods{http.MethodGet: h.admin(AbilityView, h.showForm),
		http.MethodDelete: h.admin(AbilityDelete, h.deleteForm)}, update(h.updateForm)))
	fields, steps, notifications := h.fieldsAPI(), h.stepsAPI(), h.notificationsAPI()
	h.route("/{form}/fields", methods{http.MethodGet: h.admin(AbilityView, h.listFields), http.MethodPost: h.admin(AbilityUpdate, fields.create(h))})
	h.route("/{form}/fields/reorder", methods{http.MethodPost: h.admin(AbilityUpdate, h.reorderFields)})
	h.route("/{form}/fields/{field}", merge(update(fields.update(h)), methods{http.MethodDelete: h.admin(AbilityUpdate, fields.delete(h))}))
	h.route("/{form}/steps", methods{http.MethodGet: h.admin(AbilityView, h.listSteps), http.MethodPost: h.admin(AbilityUpdate, steps.create(h))})
	h.route("/{form}/steps/reorder", methods{http.MethodPost: h.admin(AbilityUpdate, h.reorderSteps)})
	h.route("/{form}/steps/{step}", merge(update(steps.update(h)), methods{http.MethodDelete: h.admin(AbilityUpdate, steps.delete(h))}))
	h.route("/{form}/invitations", methods{http.MethodPost: h.admin(AbilityUpdate, h.invite)})
	h.route("/{form}/partials", methods{http.MethodGet: h.admin(AbilityViewSubmissions, h.listPartials)})
	h.route("/{form}/summary", methods{http.MethodGet: h.admin(AbilityViewSubmissions, h.summary)})
	h.route("/{form}/submissions", methods{http.MethodGet: h.admin(AbilityViewSubmissions, h.listSubmissions)})
	h.route("/{form}/submissions/export", methods{http.MethodGet: h.admin(AbilityViewSubmissions, h.exportSubmissions)})
	h.route("/{form}/submissions/bulk", methods{http.MethodPost: h.admin(AbilityUpdate, h.bulkSubmissions)})
	h.route("/{form}/submissions/{submission}", merge(methods{http.MethodGet: h.admin(AbilityViewSubmissions, h.showSubmission),
		http.MethodDelete: h.admin(AbilityUpdate, h.deleteSubmission)}, update(h.updateSubmission)))
	h.route("/submissions/{submission}/uploads/{upload}/download", methods{http.MethodGet: h.admin(AbilityViewSubmissions, h.downloadUpload)})
	manage := func(fn api.HandlerFunc) http.HandlerFunc { return h.admin(AbilityManageNotifications, fn) }
	h.route("/{form}/notifications", methods{http.MethodGet: manage(h.listNotifications), http.MethodPost: manage(notifications.create(h))})
	updateNotification := manage(notifications.update(h))
	h.route("/{form}/notifications/{notification}", methods{http.MethodPut: updateNotification,
		http.MethodPatch: updateNotification, http.MethodDelete: manage(notifications.delete(h))})
	h.route("/{form}/notifications/{notification}/connect", methods{http.MethodPost: manage(h.connectNotification)})
}

// form resolves {form}.
func (h *Handler) form(r *http.Request) (*Form, error) {
	f, err := h.svc.Form(r.Context(), r.PathValue("form"))
	if err != nil {
		return nil, err
	}
	return f, nil
}

// id reads a numeric path value; anything else is a 404 for what.
func (h *Handler) id(r *http.Request, name, what string) (int64, error) {
	n, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || n <= 0 {
		return 0, notFound(what)
	}
	return n, nil
}

// input decodes a JSON body into its normalised map.
func (h *Handler) input(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	in, err := api.DecodeInput(w, r, 0)
	if err != nil {
		return nil, err
	}
	return in, nil
}

// ---- forms ----

func (h *Handler) listForms(w http.ResponseWriter, r *http.Request) error {
	v := &api.Validator{}
	p := paging.ParsePage(r, h.opts.PerPage, v)
	var active *bool
	switch status := r.URL.Query().Get("status"); status {
	case "":
	case "active", "inactive":
		b := status == "active"
		active = &b
	default:
		v.Add("status", api.MsgSelected("status"))
	}
	if err := v.Err(); err != nil {
		return err
	}
	list, total, err := h.svc.ListForms(r.Context(), active, p)
	if err != nil {
		return err
	}
	reply.WriteJSON(w, http.StatusOK, paging.NewPage(list, p, total, paging.AbsoluteURL(r, h.opts.BaseURL)))
	return nil
}

// The keys the admin API's bodies take. A key the API answers with but
// never sets (id, created_at) is ignored, so a client may send back what
// it read; any other key is refused by name, and a setting put at the
// wrong level is told where it belongs.
var (
	formShape = &api.Shape{Name: "a form", Keys: []string{"name", "slug", "description", "submit_button_text",
		"success_message", "redirect_url", "is_active", "is_multi_step", "show_progress_bar", "allow_step_navigation",
		"min_fill_seconds", "max_responses", "opens_at", "closes_at", "closed_message", "one_per_person", "identify_by", "save_and_resume", "resume_hours", "captcha", "language", "translations", "routing"},
		ReadOnly:  []string{"id", "created_at", "updated_at", "total_submissions_count", "unread_submissions_count", "fields", "steps"},
		Elsewhere: keysIn("a field", fieldShapeKeys...)}
	fieldShape = &api.Shape{Name: "a field", Keys: fieldShapeKeys,
		ReadOnly:  []string{"id", "form_id", "uuid", "sort_order", "created_at", "updated_at"},
		Elsewhere: merge(keysIn("field_config", fieldConfigKeys...), keysIn("validation_rules", ruleKeys...))}
	ruleShape = &api.Shape{Name: "validation_rules", Keys: ruleKeys,
		Elsewhere: merge(keysIn("field_config", fieldConfigKeys...), keysIn("the field itself", fieldShapeKeys...))}
	// field_config also keeps what a front end stores there.
	fieldConfigShape = &api.Shape{Name: "field_config", Keys: fieldConfigKeys, Open: true,
		Elsewhere: merge(keysIn("validation_rules", ruleKeys...), keysIn("the field itself", fieldShapeKeys...))}
	stepShape = &api.Shape{Name: "a step", Keys: []string{"title", "description", "next_button_text", "prev_button_text", "jumps"},
		ReadOnly: []string{"id", "form_id", "sort_order", "created_at", "updated_at", "fields"}}
	notificationShape = &api.Shape{Name: "a notification", Keys: []string{"type", "subject", "recipients", "message",
		"is_enabled", "conditional_logic"}, ReadOnly: []string{"id", "form_id", "created_at", "updated_at"}}
	logicShape    = &api.Shape{Name: "conditional_logic", Keys: []string{"action", "logic", "rules"}}
	jumpShape     = &api.Shape{Name: "a jump", Keys: []string{"action", "logic", "rules", "to_step_id"}}
	routingShape  = &api.Shape{Name: "routing", Keys: []string{"routes", "not_booked_after_minutes"}}
	routeShape    = &api.Shape{Name: "a route", Keys: []string{"when", "service", "providers"}}
	whenShape     = &api.Shape{Name: "when", Keys: []string{"logic", "rules"}, ReadOnly: []string{"action"}}
	ruleItemShape = &api.Shape{Name: "a rule", Keys: []string{"field", "operator", "value"}}

	fieldShapeKeys = []string{"type", "step_id", "name", "label", "placeholder", "help_text", "is_required",
		"validation_rules", "field_config", "default_value", "conditional_logic", "width", "css_classes"}
	ruleKeys        = []string{"min", "max", "pattern", "min_date", "max_date", "min_time", "max_time"}
	fieldConfigKeys = []string{"options", "allowed_types", "max_size", "rows", "content", "prefill", "signed"}
)

// keysIn maps each key to place.
func keysIn(place string, keys ...string) map[string]string {
	m := make(map[string]string, len(keys))
	for _, k := range keys {
		m[k] = place
	}
	return m
}

// merge is the union of maps with distinct keys.
func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

// checkRouting refuses keys a form's routing, its routes, their
// conditions and rules do not take.
func checkRouting(v *api.Validator, in map[string]any) {
	r, ok := in["routing"].(map[string]any)
	if !ok {
		return
	}
	v.CheckKeys("routing", r, routingShape)
	routes, _ := r["routes"].([]any)
	for i, route := range routes {
		route, ok := route.(map[string]any)
		if !ok {
			continue
		}
		at := "routing.routes." + strconv.Itoa(i)
		v.CheckKeys(at, route, routeShape)
		when, ok := route["when"].(map[string]any)
		if !ok {
			continue
		}
		v.CheckKeys(at+".when", when, whenShape)
		rules, _ := when["rules"].([]any)
		for j, rule := range rules {
			if rule, ok := rule.(map[string]any); ok {
				v.CheckKeys(at+".when.rules."+strconv.Itoa(j), rule, ruleItemShape)
			}
		}
	}
}

// checkLogic refuses keys conditional logic and its rules do not take.
func checkLogic(v *api.Validator, in map[string]any) {
	l, ok := in["conditional_logic"].(map[string]any)
	if !ok {
		return
	}
	v.CheckKeys("conditional_logic", l, logicShape)
	rules, _ := l["rules"].([]any)
	for i, r := range rules {
		if r, ok := r.(map[string]any); ok {
			v.CheckKeys("conditional_logic.rules."+strconv.Itoa(i), r, ruleItemShape)
		}
	}
}

func applyForm(v *api.Validator, in map[string]any, f *Form) {
	v.CheckKeys("", in, formShape)
	v.SetString(in, "name", &f.Name)
	v.SetString(in, "slug", &f.Slug)
	v.SetString(in, "description", &f.Description)
	v.SetString(in, "submit_button_text", &f.SubmitButtonText)
	v.SetString(in, "success_message", &f.SuccessMessage)
	v.SetOptionalString(in, "redirect_url", &f.RedirectURL)
	v.SetBool(in, "is_active", &f.IsActive)
	v.SetBool(in, "is_multi_step", &f.IsMultiStep)
	v.SetBool(in, "show_progress_bar", &f.ShowProgressBar)
	v.SetBool(in, "allow_step_navigation", &f.AllowStepNavigation)
	v.SetOptionalInt(in, "min_fill_seconds", &f.MinFillSeconds)
	v.SetOptionalInt(in, "max_responses", &f.MaxResponses)
	setOptionalTime(v, in, "opens_at", &f.OpensAt)
	setOptionalTime(v, in, "closes_at", &f.ClosesAt)
	v.SetString(in, "closed_message", &f.ClosedMessage)
	v.SetBool(in, "one_per_person", &f.OnePerPerson)
	setNamed(v, in, "identify_by", &f.IdentifyBy)
	v.SetBool(in, "save_and_resume", &f.SaveAndResume)
	v.SetBool(in, "captcha", &f.Captcha)
	v.SetString(in, "language", &f.Language)
	v.SetObject(in, "translations", &f.Translations)
	checkRouting(v, in)
	v.SetObject(in, "routing", &f.Routing)
	hours := &f.ResumeHours
	v.SetOptionalInt(in, "resume_hours", &hours)
	f.ResumeHours = 0 // null: the default
	if hours != nil {
		f.ResumeHours = *hours
	}
}

// setOptionalTime sets *dst from in[key] when given: an RFC 3339 time,
// or null for none.
func setOptionalTime(v *api.Validator, in map[string]any, key string, dst **time.Time) {
	var s *string
	v.SetOptionalString(in, key, &s)
	switch {
	case s == nil:
		if raw, given := in[key]; given && raw == nil {
			*dst = nil
		}
	default:
		t, err := time.Parse(time.RFC3339, *s)
		if err != nil {
			v.Add(key, "The "+strings.ReplaceAll(key, "_", " ")+" field must be a date and time such as 2026-12-01T09:00:00Z.")
			return
		}
		t = t.UTC()
		*dst = &t
	}
}

func (h *Handler) createForm(w http.ResponseWriter, r *http.Request) error {
	in, err := h.input(w, r)
	if err != nil {
		return err
	}
	f := &Form{IsActive: true, ShowProgressBar: true, SubmitButtonText: "Submit"}
	v := &api.Validator{}
	applyForm(v, in, f)
	if err := v.Err(); err != nil {
		return err
	}
	if err := h.svc.CreateForm(r.Context(), f); err != nil {
		return err
	}
	reply.WriteData(w, http.StatusCreated, f)
	return nil
}

func (h *Handler) showForm(w http.ResponseWriter, r *http.Request) error {
	f, err := h.form(r)
	if err != nil {
		return err
	}
	d, err := h.svc.Detail(r.Context(), f)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, d)
	return nil
}

func (h *Handler) updateForm(w http.ResponseWriter, r *http.Request) error {
	f, err := h.form(r)
	if err != nil {
		return err
	}
	in, err := h.input(w, r)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	applyForm(v, in, f)
	if err := v.Err(); err != nil {
		return err
	}
	if err := h.svc.UpdateForm(r.Context(), f); err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, f)
	return nil
}

func (h *Handler) deleteForm(w http.ResponseWriter, r *http.Request) error {
	f, err := h.form(r)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteForm(r.Context(), f); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ---- fields ----

func (h *Handler) listFields(w http.ResponseWriter, r *http.Request) error {
	f, err := h.form(r)
	if err != nil {
		return err
	}
	fields, err := h.svc.Fields(r.Context(), f.ID)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, fields)
	return nil
}

func applyField(v *api.Validator, in map[string]any, f *Field) {
	v.CheckKeys("", in, fieldShape)
	if rules, ok := in["validation_rules"].(map[string]any); ok {
		v.CheckKeys("validation_rules", rules, ruleShape)
	}
	if config, ok := in["field_config"].(map[string]any); ok {
		v.CheckKeys("field_config", config, fieldConfigShape)
	}
	checkLogic(v, in)
	setNamed(v, in, "type", &f.Type)
	v.SetOptionalInt(in, "step_id", &f.StepID)
	v.SetString(in, "name", &f.Name)
	v.SetString(in, "label", &f.Label)
	v.SetString(in, "placeholder", &f.Placeholder)
	v.SetString(in, "help_text", &f.HelpText)
	v.SetBool(in, "is_required", &f.IsRequired)
	v.SetObject(in, "validation_rules", &f.ValidationRules)
	v.SetObject(in, "field_config", &f.FieldConfig)
	v.SetString(in, "default_value", &f.DefaultValue)
	v.SetObject(in, "conditional_logic", &f.ConditionalLogic)
	v.SetString(in, "width", &f.Width)
	v.SetString(in, "css_classes", &f.CSSClasses)
}

// strings reads an array of strings from in[key].
func stringItems(v *api.Validator, in map[string]any, key string) []string {
	items, ok := v.Array(key, in[key], true, 1000)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok {
			v.Add(key+"."+strconv.Itoa(i), api.MsgString(key+"."+strconv.Itoa(i)))
			continue
		}
		out = append(out, s)
	}
	return out
}

// intItems reads an array of whole numbers from in[key].
func intItems(v *api.Validator, in map[string]any, key string) []int64 {
	items, ok := v.Array(key, in[key], true, 1000)
	if !ok {
		return nil
	}
	out := make([]int64, 0, len(items))
	for i, it := range items {
		n, ok := api.Int(it)
		if !ok {
			v.Add(key+"."+strconv.Itoa(i), api.MsgInteger(key+"."+strconv.Itoa(i)))
			continue
		}
		out = append(out, n)
	}
	return out
}

func (h *Handler) reorderFields(w http.ResponseWriter, r *http.Request) error {
	form, err := h.form(r)
	if err != nil {
		return err
	}
	in, err := h.input(w, r)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	uuids := stringItems(v, in, "ordered_uuids")
	var stepID *int64
	v.SetOptionalInt(in, "step_id", &stepID)
	if err := v.Err(); err != nil {
		return err
	}
	if err := h.svc.ReorderFields(r.Context(), form.ID, stepID, uuids); err != nil {
		return err
	}
	reply.WriteMessage(w, http.StatusOK, "Fields reordered.")
	return nil
}

// ---- steps ----

func (h *Handler) listSteps(w http.ResponseWriter, r *http.Request) error {
	form, err := h.form(r)
	if err != nil {
		return err
	}
	steps, err := h.svc.StepsWithFields(r.Context(), form.ID, nil)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, steps)
	return nil
}

func applyStep(v *api.Validator, in map[string]any, st *Step) {
	v.CheckKeys("", in, stepShape)
	v.SetString(in, "title", &st.Title)
	v.SetString(in, "description", &st.Description)
	v.SetString(in, "next_button_text", &st.NextButtonText)
	v.SetString(in, "prev_button_text", &st.PrevButtonText)
	raw, given := in["jumps"]
	list, isList := raw.([]any)
	switch {
	case !given:
	case raw == nil:
		st.Jumps = nil
	case !isList:
		v.Add("jumps", api.MsgArray("jumps"))
	default:
		st.Jumps = make([]Logic, len(list))
		for i, it := range list {
			at := "jumps." + strconv.Itoa(i)
			jump, ok := it.(map[string]any)
			if !ok {
				v.Add(at, api.MsgObject(at))
				continue
			}
			v.CheckKeys(at, jump, jumpShape)
			rules, _ := jump["rules"].([]any)
			for k, r := range rules {
				if r, ok := r.(map[string]any); ok {
					v.CheckKeys(at+".rules."+strconv.Itoa(k), r, ruleItemShape)
				}
			}
			v.SetObject(map[string]any{at: jump}, at, &st.Jumps[i])
		}
	}
}

func (h *Handler) reorderSteps(w http.ResponseWriter, r *http.Request) error {
	form, err := h.form(r)
	if err != nil {
		return err
	}
	in, err := h.input(w, r)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	ids := intItems(v, in, "ordered_ids")
	if err := v.Err(); err != nil {
		return err
	}
	if err := h.svc.ReorderSteps(r.Context(), form.ID, ids); err != nil {
		return err
	}
	reply.WriteMessage(w, http.StatusOK, "Steps reordered.")
	return nil
}

// ---- notifications ----

func (h *Handler) listNotifications(w http.ResponseWriter, r *http.Request) error {
	form, err := h.form(r)
	if err != nil {
		return err
	}
	list, err := h.svc.Notifications(r.Context(), form.ID)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, list)
	return nil
}

func applyNotification(v *api.Validator, in map[string]any, n *Notification) {
	v.CheckKeys("", in, notificationShape)
	checkLogic(v, in)
	setNamed(v, in, "type", &n.Type)
	v.SetString(in, "subject", &n.Subject)
	v.SetString(in, "recipients", &n.Recipients)
	v.SetString(in, "message", &n.Message)
	v.SetBool(in, "is_enabled", &n.IsEnabled)
	v.SetObject(in, "conditional_logic", &n.ConditionalLogic)
}

//go:embed openapi.json
var openAPIDescription []byte

// OpenAPI describes the routes the handler serves (the admin API only
// when it has Tokens), under its prefix, as an OpenAPI 3.1 part to merge
// into a host's document; see groundwork.OpenAPI.
func (h *Handler) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIDescription, h.base.Prefix, PrefixDefault, h.Routes())
}

// setNamed is Validator.SetString for a named string type (an enum).
func setNamed[T ~string](v *api.Validator, in map[string]any, key string, dst *T) {
	s := string(*dst)
	v.SetString(in, key, &s)
	*dst = T(s)
}
