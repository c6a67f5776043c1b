package forms

import (
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/tenant"
)

//go:embed templates
var templatesFS embed.FS

// PagePrefixDefault is where [NewPageHandler]'s pages live.
const PagePrefixDefault = "/forms"

// PageTemplate is the form page's "content", by the name a host's
// PageOptions.Templates may replace it under; the layout, the field
// helpers, the error page and the stylesheet are replaced under the
// names groundwork.LayoutTemplate, FieldsTemplate, ErrorTemplate and
// Stylesheet.
const PageTemplate = "forms/form.html"

// PageOptions configures [NewPageHandler]. Nil means the defaults.
type PageOptions struct {
	// HTTPOptions, SubmitLimit, SubmitWindow, MaxRequestBytes and MaxParts
	// are as in HandlerOptions. Give both handlers the same
	// store.SQLRateLimiter to count a client's submissions through either
	// in one budget.
	groundwork.HTTPOptions
	// Prefix is where pages live: GET and POST {Prefix}/{form}, the form
	// by slug or ID; PagePrefixDefault when empty.
	Prefix string
	// Templates replaces the page's templates or stylesheet by name
	// (PageTemplate, and the root's LayoutTemplate, FieldsTemplate,
	// ErrorTemplate and Stylesheet); the built-in ones are in this
	// package's templates directory and internal/web's.
	Templates fs.FS
	// FrameOrigins are the origins (https://www.example.com) whose pages
	// may frame the form pages, which embed.js (served at
	// {Prefix}/embed.js) places in them; none when empty, and then the
	// pages refuse every frame.
	FrameOrigins []string
	// FlashKey signs the message that follows a redirect (the thank-you
	// after a submission). Give every instance the same key (32 random
	// bytes, say); a key of this process alone when nil, and then a
	// thank-you served by another instance is lost.
	FlashKey        []byte
	SubmitLimit     int
	SubmitWindow    time.Duration
	MaxRequestBytes int64
	MaxParts        int
	// Respondent names the signed-in person sending a request (a user's
	// ID from the host's session), for forms that take one response a
	// person; without it, the request's groundwork.Caller.
	Respondent func(r *http.Request) (id string, ok bool)
}

// PageHandler serves a plain HTML page for each active form, one that
// works without JavaScript: GET {prefix}/{form} draws it, and it posts to
// itself. A mistake comes back as the page with each message beside its
// input and a summary on top linking to them (422); a valid file sent
// with it is kept (a KeptUpload, for an hour) and the page sends
// its id back (the KeptUploadField input), so the next try needs no file;
// add PeriodicJobs to sweep those never used. A submission taken
// redirects (303, Post/Redirect/Get) to the form's redirect_url, or back
// to the page, which then thanks the visitor once. Fields on steps show
// as fieldsets, one after another; conditional logic applies on the
// server. Submissions are counted per form and client IP as on the API's
// submit route.
//
// The submit is open to other origins, as a hosted form's must be: a page
// on another site may post to it. Pages allow no script but their own,
// no framing but by PageOptions.FrameOrigins, and forms that post only to
// the page's own origin (and the form's redirect_url).
//
// Mount it at the prefix with a trailing slash:
//
//	pages, err := forms.NewPageHandler(svc, nil)
//	mux.Handle("/forms/", pages) // GET and POST /forms/{form}
//
// Under another prefix, name it in PageOptions.Prefix too ("/contact"
// serves /contact/{form}, mounted at "/contact/"; not with
// http.StripPrefix). A mux answers the bare prefix with a 307 redirect to
// it with a slash, where no form is. The page's stylesheet is served under
// {prefix}/_assets/.
type PageHandler struct {
	base      *web.Base
	svc       *Service
	submitter *submitter
	baseURL   *url.URL
}

// notFoundPage is the page of an address that names no form.
var notFoundPage = web.ErrorPage{Heading: "Form not found", Message: "This form does not exist or does not take responses."}

// NewPageHandler returns the page handler for svc.
func NewPageHandler(svc *Service, opts *PageOptions) (*PageHandler, error) {
	if svc == nil {
		return nil, errors.New("forms: new page handler: service is nil")
	}
	var o PageOptions
	if opts != nil {
		o = *opts
	}
	pages, _ := fs.Sub(templatesFS, "templates")
	base, err := web.NewBase(web.BaseOptions{Domain: "forms", Prefix: o.Prefix, Default: PagePrefixDefault, Pages: pages, Override: o.Templates,
		Key: o.FlashKey, FrameOrigins: o.FrameOrigins, Logger: o.Logger, Brand: o.Brand, Navigator: o.Navigator, NotFound: notFoundPage,
		Failure: web.Problem{Status: http.StatusServiceUnavailable, ErrorPage: web.ErrorPage{Heading: "Form unavailable",
			Message: "The form cannot be shown or sent just now. Please try again in a few minutes."}},
		Explain: func(err error) *web.Problem {
			if errors.Is(err, ErrNotFound) || errors.Is(err, ErrInactive) {
				return &web.Problem{Status: http.StatusNotFound, ErrorPage: notFoundPage, Err: err}
			}
			return nil
		}})
	if err != nil {
		return nil, err
	}
	sub := newSubmitter(svc, submitSettings{respondent: o.Respondent, limiter: o.RateLimiter, limit: o.SubmitLimit, window: o.SubmitWindow,
		trusted: o.TrustedProxies, maxBytes: o.MaxRequestBytes, maxParts: o.MaxParts, baseURL: o.BaseURL, logger: base.Logger})
	sub.keep = true
	p := &PageHandler{base: base, svc: svc, submitter: sub, baseURL: o.BaseURL}
	page := base.Prefix + "/{form}"
	base.Mux.HandleFunc("GET "+page, base.Func(p.show))
	base.Mux.HandleFunc("POST "+page, base.Func(p.submit))
	base.Mux.HandleFunc("POST "+page+"/access", base.Func(p.requestAccess))
	base.Mux.HandleFunc("POST "+page+"/resume-link", base.Func(p.mailResumeLink))
	base.Mux.HandleFunc("GET "+base.Prefix+"/embed.js", web.ServeEmbedScript)
	base.Mux.HandleFunc("GET "+base.Prefix+googleConnectPath, base.Func(p.beginGoogle))
	base.Mux.HandleFunc("GET "+base.Prefix+googleCallbackPath, base.Func(p.finishGoogle))
	sub.pages = p.pages
	base.Mux.HandleFunc(page, base.Func(func(w http.ResponseWriter, r *http.Request) error {
		return &web.Problem{Status: http.StatusMethodNotAllowed, Header: http.Header{"Allow": {"GET, HEAD, POST"}},
			ErrorPage: web.ErrorPage{Heading: "Method not allowed", Message: "This page can be read and its form sent; nothing else."}}
	}))
	return p, nil
}

// ServeHTTP implements http.Handler: GET, HEAD and POST {prefix}/{form},
// and the stylesheet under {prefix}/_assets/.
func (p *PageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.base.ServeHTTP(w, r.WithContext(tenant.All(r.Context()))) // public: it serves whoever asks, whatever tenant the request acted for
}

// Routes lists the routes the handler serves, as "METHOD /path/{param}".
func (p *PageHandler) Routes() []string {
	page := p.base.Prefix + "/{form}"
	return []string{"GET " + page, "HEAD " + page, "POST " + page, "POST " + page + "/access", "POST " + page + "/resume-link", "GET " + p.base.Prefix + "/_assets/{file}",
		"GET " + p.base.Prefix + "/embed.js", "GET " + p.base.Prefix + googleConnectPath, "GET " + p.base.Prefix + googleCallbackPath}
}

func (p *PageHandler) show(w http.ResponseWriter, r *http.Request) error {
	form, err := p.activeForm(r)
	if err != nil {
		return err
	}
	var thanks, sent string
	if f := p.base.Render.TakeFlash(w, r, r.URL.Path); f != nil {
		switch f.Kind {
		case "success":
			thanks = f.Message
		case "info":
			sent = f.Message
		}
	}
	var payURL string
	if token := r.URL.Query().Get(paymentQuery); token != "" && thanks == "" {
		if pay := p.svc.returnedPayment(r.Context(), form, token); pay != nil {
			thanks, payURL = paymentWords(pay, r.URL.Query().Get("paid") == "1", speakerFor(form, nil, requestLanguage(form, r)))
		}
	}
	access := r.URL.Query().Get(AccessQuery)
	d := drawn{access: access, thanks: thanks, payURL: payURL, query: r.URL.Query(), prefill: r.URL.Query().Get(PrefillQuery), lang: requestLanguage(form, r)}
	if token := r.URL.Query().Get(ResumeQuery); token != "" && thanks == "" {
		partial, err := p.svc.Partial(r.Context(), form, token)
		switch {
		case errors.Is(err, ErrNotFound):
			d.problem = "Your saved answers are no longer kept (the link has expired, or they were sent). Please start again."
		case err != nil:
			return err
		default:
			d.values, d.resume = partial.Values, token
			if a := partial.Values[AccessField]; len(a) > 0 && access == "" {
				d.access = a[0]
			}
		}
	}
	if thanks == "" {
		why, err := p.svc.closedBy(r.Context(), form, p.svc.now(), p.submitter.respondentOf(r), d.access)
		if err != nil {
			return err
		}
		if askEmail(form, why) {
			return p.drawAccess(w, r, http.StatusOK, form, why, sent, "", nil)
		}
		if why != nil {
			return p.drawClosed(w, r, http.StatusOK, form, why)
		}
	}
	return p.draw(w, r, http.StatusOK, form, d)
}

// pages is where this handler's pages are, for the links it mails.
func (p *PageHandler) pages(r *http.Request) string {
	return web.LinkBase(r, p.baseURL) + p.base.Prefix
}

// mailResumeLink mails the link of a saved response (its token sent back
// by the saved page) to the address given.
func (p *PageHandler) mailResumeLink(w http.ResponseWriter, r *http.Request) error {
	form, err := p.activeForm(r)
	if err != nil {
		return err
	}
	if _, err := p.submitter.hit(w, r, form); err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	token, address := r.PostFormValue(ResumeField), strings.TrimSpace(r.PostFormValue("email"))
	partial, err := p.svc.Partial(r.Context(), form, token)
	if err != nil {
		return err
	}
	link := p.resumeURL(r, form, token)
	err = p.svc.MailResumeLink(r.Context(), form, partial, address, link)
	if ve, bad := errors.AsType[*ValidationError](err); bad {
		return p.drawSaved(w, r, http.StatusUnprocessableEntity, form, token, link, partial.ExpiresAt, "", address, ve.Fields()["email"])
	}
	if err != nil {
		return err
	}
	return p.drawSaved(w, r, http.StatusOK, form, token, link, partial.ExpiresAt, "We have emailed the link to "+address+".", "", nil)
}

// resumeURL is the page of form with a resume token.
func (p *PageHandler) resumeURL(r *http.Request, form *Form, token string) string {
	pages := p.svc.pagesURL
	if pages == "" {
		pages = p.pages(r)
	}
	return pageLink(pages, form, ResumeQuery, token)
}

// drawSaved answers the page of a saved response: its link, shown once,
// and where to give an address to mail it to (with its messages when
// refused, or that it is sent).
func (p *PageHandler) drawSaved(w http.ResponseWriter, r *http.Request, status int, form *Form, token, link string, expires time.Time,
	sent, address string, errs []string) error {
	in := web.Field{Type: "email", Name: "email", ID: "email", Label: "Email address", Autocomplete: "email", Required: true,
		Value: address, Errors: errs, Help: "We send the link there, and nothing else."}
	data := &pageData{Form: form, PageURL: web.InFrame(r, r.URL.Path), Saved: &savedView{URL: link, Token: token, Sent: sent, Input: in,
		Until: expires.UTC().Format("2 January 2006 at 15:04 MST"), Action: web.InFrame(r, p.base.Prefix+"/"+r.PathValue("form")+"/resume-link"),
		Summary: web.Summary([]web.Field{in}), ResumeField: ResumeField}}
	title := "Saved: " + form.Name
	if len(errs) > 0 {
		title = "Error: " + title
	}
	p.base.Render.Render(w, r, status, PageTemplate, &web.Page{Title: title, Data: data})
	return nil
}

// activeForm resolves {form} for the pages: only active forms.
func (p *PageHandler) activeForm(r *http.Request) (*Form, error) {
	form, err := p.svc.Form(r.Context(), r.PathValue("form")) // the page serves anyone: ServeHTTP put on tenant.All
	if err == nil && !form.IsActive {
		err = ErrInactive
	}
	return form, err
}

// askEmail reports whether form, refused for why, asks for an address to
// mail a link to: it knows people by email, and the visitor has no good
// link.
func askEmail(form *Form, why error) bool {
	return identifyBy(form) == IdentifyByEmail && (errors.Is(why, ErrAccessRequired) || errors.Is(why, ErrAccessExpired))
}

// requestAccess takes the address a form that knows people by email
// mails its link to, and says it is sent.
func (p *PageHandler) requestAccess(w http.ResponseWriter, r *http.Request) error {
	form, err := p.activeForm(r)
	if err != nil {
		return err
	}
	page := p.base.Prefix + "/" + r.PathValue("form")
	if !form.OnePerPerson || identifyBy(form) != IdentifyByEmail {
		web.SeeOther(w, r, page) // it mails no links: its page says what it takes
		return nil
	}
	if _, err := p.submitter.hit(w, r, form); err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	address := strings.TrimSpace(r.PostFormValue("email"))
	err = p.svc.RequestAccess(r.Context(), form, address, web.LinkBase(r, p.baseURL)+p.base.Prefix)
	if ve, bad := errors.AsType[*ValidationError](err); bad {
		return p.drawAccess(w, r, http.StatusUnprocessableEntity, form, ErrAccessRequired, "", address, ve.Fields()["email"])
	}
	if errors.Is(err, ErrClosed) {
		return p.drawClosed(w, r, http.StatusConflict, form, err)
	}
	if err != nil {
		return err
	}
	p.base.Render.SetFlash(w, r, page, web.Flash{Kind: "info", Message: "We have emailed a link to " + address +
		". Open it to fill in the form; it works for " + strconv.Itoa(int(AccessLinkMaxAge/time.Hour)) + " hours."})
	web.SeeOther(w, r, page)
	return nil
}

func (p *PageHandler) submit(w http.ResponseWriter, r *http.Request) error {
	a, err := p.submitter.run(w, r, r.PathValue("form"), saveByForm)
	if err == nil && a.saved != nil {
		return p.drawSaved(w, r, http.StatusOK, a.form, a.saved.Token, a.saved.URL, a.saved.ExpiresAt, "", "", nil)
	}
	if err == nil {
		if a.res.PaymentURL != "" && !p.base.Render.Framed(r) {
			web.SeeOther(w, r, a.res.PaymentURL) // the provider's page, then back here
			return nil
		}
		if a.res.PaymentURL != "" {
			// The provider's page is not framed: the person opens it from
			// a link out of the frame.
			thanks, pay := paymentWords(a.res.Submission.Payment, false, speakerFor(a.form, nil, a.req.Language))
			return p.draw(w, r, http.StatusOK, a.form, drawn{thanks: thanks, payURL: pay, lang: a.req.Language})
		}
		if a.res.BookingURL != "" {
			// A routing form: on to book, the answers carried over.
			web.SeeOther(w, r, a.res.BookingURL)
			return nil
		}
		if a.res.RedirectURL != nil && !p.base.Render.Framed(r) {
			web.SeeOther(w, r, *a.res.RedirectURL)
			return nil
		}
		// In another site's frame the thanks is shown there, and the host
		// page is told the redirect_url (formSubmitted), for it to go to.
		p.base.Render.SetFlash(w, r, r.URL.Path, web.Flash{Kind: "success", Message: a.res.Message})
		back := r.URL.Path
		if a.req.Language != languageOf(a.form) {
			back += "?" + LanguageQuery + "=" + url.QueryEscape(a.req.Language)
		}
		web.SeeOther(w, r, back)
		return nil
	}
	var again drawn
	if a.req != nil {
		again = drawn{values: a.req.Values, kept: a.req.Kept, token: a.req.FormToken, access: a.req.Access, resume: a.req.Resume,
			prefill: a.req.Prefill, lang: a.req.Language}
	}
	var ve *ValidationError
	var ae *api.Error
	var onward *stepTaken
	switch {
	case a.form == nil:
		return err
	case errors.As(err, &onward):
		again.step = onward.Next
		return p.draw(w, r, http.StatusOK, a.form, again)
	case errors.As(err, &ve):
		again.errs = ve
		return p.draw(w, r, http.StatusUnprocessableEntity, a.form, again)
	case errors.Is(err, ErrClosed) || errors.Is(err, ErrFull) || errors.Is(err, ErrResponded):
		return p.drawClosed(w, r, http.StatusConflict, a.form, err)
	case errors.Is(err, ErrSignInRequired):
		return p.drawClosed(w, r, http.StatusUnauthorized, a.form, err)
	case askEmail(a.form, err):
		return p.drawAccess(w, r, http.StatusForbidden, a.form, err, "", "", nil)
	case errors.Is(err, ErrAccessRequired) || errors.Is(err, ErrAccessExpired):
		return p.drawClosed(w, r, http.StatusForbidden, a.form, err)
	case errors.Is(err, errPaymentUnavailable):
		w.Header().Set("Retry-After", "30")
		again.problem = msgPaymentUnavailable
		return p.draw(w, r, http.StatusServiceUnavailable, a.form, again)
	case errors.Is(err, ErrCaptchaUnavailable):
		w.Header().Set("Retry-After", "30")
		again.problem = msgCaptchaUnavailable
		return p.draw(w, r, http.StatusServiceUnavailable, a.form, again)
	case errors.As(err, &ae) && ae.Status < 500:
		again.problem = ae.Message
		return p.draw(w, r, ae.Status, a.form, again)
	default:
		return err
	}
}

// drawClosed answers the page of a form that takes no response, saying
// why and what to do instead, without the form.
func (p *PageHandler) drawClosed(w http.ResponseWriter, r *http.Request, status int, form *Form, why error) error {
	lang := requestLanguage(form, r)
	shown, _, _ := Localized(form, nil, nil, lang)
	data := &pageData{Form: shown, PageURL: web.InFrame(r, r.URL.Path), Closed: speakerFor(form, nil, lang).phrase(closedWords(shown, why))}
	p.base.Render.Render(w, r, status, PageTemplate, &web.Page{Title: shown.Name, Data: data, Lang: lang})
	return nil
}

// drawAccess answers the page of a form that knows people by email to a
// visitor without a good link: why, or that the link is sent, and where
// to give the address (with its messages when it was refused).
func (p *PageHandler) drawAccess(w http.ResponseWriter, r *http.Request, status int, form *Form, why error, sent, address string,
	errs []string) error {
	in := web.Field{Type: "email", Name: "email", ID: "email", Label: "Email address", Autocomplete: "email", Required: true,
		Value: address, Errors: errs}
	data := &pageData{Form: form, PageURL: web.InFrame(r, r.URL.Path), AccessRequest: &accessRequest{Action: web.InFrame(r, p.base.Prefix+"/"+r.PathValue("form")+"/access"),
		Intro: closedWords(form, why), Sent: sent, Input: in, Summary: web.Summary([]web.Field{in})}}
	title := form.Name
	if len(errs) > 0 {
		title = "Error: " + title
	}
	p.base.Render.Render(w, r, status, PageTemplate, &web.Page{Title: title, Data: data})
	return nil
}

// drawn is what a form's page is drawn with: the visitor's answers, kept
// uploads, form-load and access tokens, the messages of a failed
// submission or a problem, or the thanks of a taken one.
type drawn struct {
	values          map[string][]string
	kept            map[string]KeptUpload
	token, access   string
	resume, prefill string
	lang            string
	// query is the page address's, on a first draw: the prefill of the
	// fields that take it.
	query url.Values
	// step is the step to show, on a form whose page shows one at a
	// time (0: the first, or the first with a mistake).
	step            int64
	errs            *ValidationError
	problem, thanks string
	// payURL is the payment page still open, of a person back from it
	// unpaid.
	payURL string
}

// draw answers the page of form as d says.
func (p *PageHandler) draw(w http.ResponseWriter, r *http.Request, status int, form *Form, d drawn) error {
	values, kept, token, errs, problem, thanks := d.values, d.kept, d.token, d.errs, d.problem, d.thanks
	lang := cmp.Or(d.lang, languageOf(form))
	shown, _, _ := Localized(form, nil, nil, lang)
	sp := speakerFor(form, nil, lang)
	data := &pageData{Form: shown, Lang: lang, SaveText: sp.say("Save and continue later"),
		AnotherText: sp.say("Send another response"), PageURL: web.InFrame(r, r.URL.Path), Thanks: thanks, HoneypotField: HoneypotField, FormTokenField: FormTokenField,
		Access: d.access, AccessField: AccessField, Resume: d.resume, CanSave: form.SaveAndResume, ResumeField: ResumeField,
		ActionField: ActionField, ActionSave: ActionSave}
	if len(form.Translations) > 0 {
		data.LanguageField = LanguageField // the page's language goes with the answers
	}
	data.PayURL = d.payURL
	if thanks != "" && d.payURL == "" { // paid, or owing nothing: sent
		told := map[string]any{"form": form.Slug, "message": thanks}
		if form.RedirectURL != nil {
			told["redirect_url"] = *form.RedirectURL
		}
		sent, _ := json.Marshal(told)
		data.Sent = string(sent)
	}

	if d.resume != "" {
		// The saved files answer their fields until replaced.
		if partial, err := p.svc.Partial(r.Context(), form, d.resume); err == nil {
			for _, u := range partial.Uploads {
				if _, given := kept[u.FieldName]; !given {
					if kept == nil {
						kept = map[string]KeptUpload{}
					}
					kept[u.FieldName] = KeptUpload{IncomingFile: u}
				}
			}
		}
	}
	title := shown.Name
	if thanks == "" {
		fields, err := p.svc.Fields(r.Context(), form.ID)
		if err != nil {
			return err
		}
		steps, err := p.svc.Steps(r.Context(), form.ID)
		if err != nil {
			return err
		}
		data.FormToken = p.svc.pageToken(form.ID, token)
		left, err := p.svc.remaining(r.Context(), form, fields)
		if err != nil {
			return err
		}
		if values == nil && d.query != nil {
			values = p.svc.prefillFrom(fields, d.query)
		}
		var locked map[string]string
		if d.prefill != "" {
			if locked, err = p.svc.readPrefill(form, fields, d.prefill); err != nil {
				problem, d.prefill = msgBadPrefill, ""
			}
			data.Prefill, data.PrefillField = d.prefill, PrefillField
		}
		_, fields, steps = Localized(form, fields, steps, lang)
		fields = recallFields(fields, p.svc.pageAnswers(fields, values, locked))
		groups, inputs, general := p.svc.layout(fields, steps, values, kept, errs, left, locked, sp)
		if hasJumps(steps) {
			groups, data.Stepped = oneStep(groups, fields, steps, values, kept, errs, d.step)
			data.Stepped.Submit = cmp.Or(data.Stepped.Submit, shown.SubmitButtonText)
			if form.ShowProgressBar {
				data.Stepped.Progress = sp.say("Step %d of %d", data.Stepped.Number, data.Stepped.Of)
			}
		}
		if form.Captcha && p.svc.captcha != nil && (data.Stepped == nil || data.Stepped.Last) {
			// On the step the form is sent from: the others are not checked.
			widget := p.svc.captcha.Widget()
			data.Captcha = &widget
		}
		if problem != "" {
			general = append([]string{sp.phrase(problem)}, general...)
		}
		data.Groups, data.Summary = groups, web.Summary(inputs, general...)
		if len(data.Summary) > 0 {
			title = "Error: " + title
		}
	}
	page := &web.Page{Title: title, Data: data, Lang: lang}
	if data.Captcha != nil {
		page.Embeds = data.Captcha.Origins
	}
	if form.RedirectURL != nil {
		// The browser follows the redirect after the post only if the
		// page's form-action allows its origin.
		if u, err := url.Parse(*form.RedirectURL); err == nil && u.Scheme != "" && u.Host != "" {
			page.FormAction = []string{u.Scheme + "://" + u.Host}
		}
	}
	p.base.Render.Render(w, r, status, PageTemplate, page)
	return nil
}

// pageData is what the form page draws.
type pageData struct {
	Form    *Form
	Groups  []pageGroup
	Summary []web.SummaryItem
	// PageURL is where the page is, and posts to.
	PageURL string
	// Thanks, when set, is shown instead of the form; Closed, when set,
	// says why the form takes no response (closed, or full).
	Thanks, Closed string
	// Sent is, with Thanks, what a host page framing the form is told of
	// the response (JSON, the formSubmitted event's data).
	Sent string
	// FormToken is the form-load token the page sends back; Access the
	// token of the link it was opened from.
	FormToken, Access string
	// AccessRequest, when set, is drawn instead of the form: where to
	// give the address a form's link is mailed to.
	AccessRequest *accessRequest
	// Saved, when set, is drawn instead of the form: the link of the
	// answers just saved.
	Saved *savedView
	// Captcha, when set, is the CAPTCHA widget the page draws.
	Captcha *CaptchaWidget
	// Lang is the language the page is drawn in, sent back in
	// LanguageField; SaveText and AnotherText are its words for "Save
	// and continue later" and "Send another response".
	Lang, LanguageField, SaveText, AnotherText string
	// Prefill is the signed prefill token the page sends back.
	Prefill, PrefillField string
	// Resume is the token of the saved response the page continues;
	// CanSave whether the form may be saved to finish later.
	Resume      string
	CanSave     bool
	ResumeField string
	ActionField string
	ActionSave  string
	// PayURL, with Thanks, is the payment page still to pay on.
	PayURL string
	// Stepped, on a form with jumps, is the step shown alone: the
	// answers of the steps before it carried along, and its buttons.
	Stepped *stepView

	HoneypotField, FormTokenField, AccessField string
}

// savedView is the page of a saved response.
type savedView struct {
	URL, Token, Until, Sent, Action, ResumeField string
	Input                                        web.Field
	Summary                                      []web.SummaryItem
}

// accessRequest is the page's request for a link by email.
type accessRequest struct {
	Action, Intro, Sent string
	Input               web.Field
	Summary             []web.SummaryItem
}

// pageGroup is a step (with a title) or the fields on no step.
type pageGroup struct {
	Title, Description string
	Items              []pageItem
}

// pageItem is an input, or a layout element with its text.
type pageItem struct {
	Kind  string // an input, or TypeHeading, TypeParagraph, TypeDivider, TypeHTML, TypeStatement
	Text  string
	Note  string // a statement's text under its title; a total's button
	Data  string // a total's prices, for the page's script
	Input web.Field
	// Kept is the file input's upload kept from the last try, sent back
	// by its id.
	Kept *KeptUpload
}

// lockedText is how a person reads value, set on f by a signed prefill:
// a choice by its label, a checkbox as Yes or No.
func lockedText(f *Field, value string) string {
	if f.Type == TypeCheckbox {
		if checked(value) {
			return "Yes"
		}
		return "No"
	}
	for _, o := range f.Options() {
		if o.Value == value {
			return o.Label
		}
	}
	return value
}

// sizeText says a file's size: "812 bytes", "12 KB", "3.4 MB".
func sizeText(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10) + " bytes"
	case n < 1000*1000:
		return strconv.FormatInt((n+500)/1000, 10) + " KB"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
}

// inputTypes maps field types to the page layer's input types.
var inputTypes = map[FieldType]string{TypeText: "text", TypeEmail: "email", TypePhone: "tel", TypeNumber: "number", TypeURL: "url",
	TypeDate: "date", TypeTime: "time", TypeFile: "file", TypeHidden: "hidden", TypeTextarea: web.TypeTextarea,
	TypeSelect: web.TypeSelect, TypeSelectMultiple: web.TypeSelect, TypeRadio: web.TypeRadio,
	TypeCheckboxGroup: web.TypeCheckboxes, TypeCheckbox: web.TypeCheckbox, TypeDateRange: web.TypeDateRange,
	TypeDateTime: "datetime-local", TypeMatrix: web.TypeGroup, TypeRanking: web.TypeGroup}

var autocomplete = map[FieldType]string{TypeEmail: "email", TypePhone: "tel", TypeURL: "url"}

// layout lays out a form's fields by step, with the visitor's answers and
// the messages of a failed submission. For the error summary it also
// returns the inputs in page order, and the messages about no field.
func (s *Service) layout(fields []Field, steps []Step, values map[string][]string, kept map[string]KeptUpload, errs *ValidationError,
	left map[string]map[string]int64, locked map[string]string, sp *speaker) (groups []pageGroup,
	inputs []web.Field, general []string) {
	var messages map[string][]string
	var names []string
	if errs != nil {
		messages, names = errs.Fields(), errs.FieldNames()
	}
	unclaimed := map[string]bool{}
	for _, name := range names {
		unclaimed[name] = true
	}
	item := func(f *Field) pageItem {
		if isLayout(f.Type) {
			text := f.Label
			if c, ok := f.FieldConfig["content"].(string); ok && f.Type == TypeHTML {
				text = c // shown as text: html/template escapes it
			}
			item := pageItem{Kind: string(f.Type), Text: text}
			if f.Type == TypeStatement {
				item.Note = f.HelpText
			}
			return item
		}
		if it, drawn := s.fixedItem(f, fields, values, locked, sp); drawn {
			return it
		}
		in := web.Field{Type: inputTypes[f.Type], Name: f.Name, ID: web.FieldID(f.Name), Label: f.Label, Help: f.HelpText,
			Placeholder: f.Placeholder, Required: f.IsRequired, Multiple: f.Type == TypeSelectMultiple, Autocomplete: autocomplete[f.Type]}
		if in.Type == "" {
			in.Type = "text"
		}
		if in.Type == web.TypeSelect && in.Placeholder == "" && sp != nil && sp.printer != nil {
			in.Placeholder = sp.phrase("Choose…") // the page layer's own word is English
		}
		if rows, ok := f.FieldConfig["rows"].(float64); ok && rows > 0 && rows < 100 {
			in.Rows = int(rows)
		}
		if f.Type == TypeFile {
			var accept []string
			for _, ext := range s.allowedTypes(f) {
				accept = append(accept, "."+ext)
			}
			in.Accept = strings.Join(accept, ",")
		}
		var keep *KeptUpload
		if k, ok := kept[f.Name]; ok && f.Type == TypeFile {
			keep = &k
			in.Required = false // the kept file answers it
			from := " Kept from your last try: "
			if k.ID == "" {
				from = " Saved with your answers: " // a saved response's
			}
			in.Help = strings.TrimSpace(in.Help + from + k.OriginalName + " (" + sizeText(k.Size) + "). Choose a file only to replace it.")
		}
		given, answered := values[f.Name]
		if !answered && f.DefaultValue != "" {
			given = []string{f.DefaultValue}
		}
		if len(given) > 0 && f.Type != TypeCheckbox {
			in.Value = given[0]
		}
		if f.Type == TypeCheckbox {
			in.Value, in.Checked = "1", len(given) > 0 && checked(given[0])
		}
		rangeEnds(&in, f, given, sp)
		if in.Type == web.TypeGroup {
			parts(&in, f, given, sp)
		} else {
			choices(&in, f, given, left[f.Name], sp)
		}
		for _, name := range names {
			if name == f.Name || strings.HasPrefix(name, f.Name+".") {
				for _, m := range messages[name] {
					if sp.english() {
						m = web.Voice(in, m) // the page's voice; the API keeps its words
					}
					in.Errors = append(in.Errors, m)
				}
				delete(unclaimed, name)
			}
		}
		for i := range in.Parts {
			in.Parts[i].Invalid = len(in.Errors) > 0
		}
		if in.Type != "hidden" {
			inputs = append(inputs, in)
		}
		return pageItem{Input: in, Kept: keep}
	}
	var loose pageGroup
	for i := range fields {
		if fields[i].StepID == nil {
			loose.Items = append(loose.Items, item(&fields[i]))
		}
	}
	if len(loose.Items) > 0 {
		groups = append(groups, loose)
	}
	for _, st := range steps {
		g := pageGroup{Title: st.Title, Description: st.Description}
		for i := range fields {
			if fields[i].StepID != nil && *fields[i].StepID == st.ID {
				g.Items = append(g.Items, item(&fields[i]))
			}
		}
		groups = append(groups, g)
	}
	for _, name := range names {
		if unclaimed[name] {
			general = append(general, messages[name]...)
		}
	}
	return groups, inputs, general
}

// requestLanguage is the language to draw form in for r: ?lang= when the
// form has it, else the best match of Accept-Language, else the form's
// own.
func requestLanguage(form *Form, r *http.Request) string {
	return chooseLanguage(form, r.URL.Query().Get(LanguageQuery), r.Header.Get("Accept-Language"))
}
