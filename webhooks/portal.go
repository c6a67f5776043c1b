package webhooks

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/web"
)

// PortalPrefixDefault is where the portal lives.
const PortalPrefixDefault = "/webhooks-portal"

// PortalTemplate names the portal's page template.
const PortalTemplate = "webhooks/portal.html"

//go:embed all:templates
var templatesFS embed.FS

// PortalOptions configures [NewPortalHandler].
type PortalOptions struct {
	groundwork.HTTPOptions
	// Prefix: PortalPrefixDefault when empty.
	Prefix string
	// Templates replaces the page's template or the page layer's ones.
	Templates fs.FS
	// Key signs the flash; give every instance the same.
	Key []byte
	// Owner, when set, is the owner the host's own session signs in
	// (false for none): the portal is then also at {prefix}/me. Without
	// it the portal is reached only by a link from [Service.PortalLink].
	Owner func(r *http.Request) (owner string, ok bool)
	// TrustedOrigins may post to the portal besides its own origin.
	TrustedOrigins []string
}

// PortalHandler serves the pages where one owner (a host's customer)
// manages their own endpoints, working without JavaScript:
// GET {prefix}/{access} lists the owner's endpoints and adds one; GET
// {prefix}/{access}/{id} shows one with its settings to change, its
// deliveries (status, attempts, time, the receiver's answer), a test
// event to send, deliveries to replay (one, or those of a time range),
// its secret to reveal or rotate, and the endpoint to disable or delete.
// {access} is a portal link's token ([Service.PortalLink]) or "me" (the
// host's session, PortalOptions.Owner). Every read and write is scoped to
// that owner: another owner's endpoint is not found. Posts from other
// origins are refused.
type PortalHandler struct {
	base   *web.Base
	svc    *Service
	prefix string
	who    func(r *http.Request) (string, bool)
}

// NewPortalHandler returns the portal for svc.
func NewPortalHandler(svc *Service, opts *PortalOptions) (*PortalHandler, error) {
	if svc == nil {
		return nil, errors.New("webhooks: new portal: a service is needed")
	}
	var o PortalOptions
	if opts != nil {
		o = *opts
	}
	pages, _ := fs.Sub(templatesFS, "templates")
	base, err := web.NewBase(web.BaseOptions{Domain: "webhooks", Prefix: o.Prefix, Default: PortalPrefixDefault, Pages: pages,
		Override: o.Templates, Key: o.Key, Logger: o.Logger, Brand: o.Brand, Navigator: o.Navigator,
		NotFound: web.ErrorPage{Heading: "Page not found", Message: "There is no page at this address."},
		Failure:  web.Problem{ErrorPage: web.ErrorPage{Heading: "Something went wrong", Message: "Please try again in a moment."}},
		Explain:  explainPortal, Protect: true, TrustedOrigins: o.TrustedOrigins, MaxFormBytes: 64 << 10})
	if err != nil {
		return nil, fmt.Errorf("webhooks: new portal: %w", err)
	}
	p := &PortalHandler{base: base, svc: svc, prefix: base.Prefix, who: o.Owner}
	mux, prefix := base.Mux, p.prefix
	mux.HandleFunc("GET "+prefix+"/{access}", base.Func(p.list))
	mux.HandleFunc("POST "+prefix+"/{access}", base.Func(p.create))
	mux.HandleFunc("GET "+prefix+"/{access}/{id}", base.Func(p.show))
	mux.HandleFunc("POST "+prefix+"/{access}/{id}", base.Func(p.save))
	for _, action := range []string{"test", "rotate", "reveal", "replay", "replay-range", "active", "delete"} {
		mux.HandleFunc("POST "+prefix+"/{access}/{id}/"+action, base.Func(p.act(action)))
	}
	return p, nil
}

// ServeHTTP implements http.Handler.
func (p *PortalHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.base.ServeHTTP(w, r) }

// Routes lists the routes, as "METHOD /path/{param}".
func (p *PortalHandler) Routes() []string {
	out := []string{"GET " + p.prefix + "/{access}", "POST " + p.prefix + "/{access}", "GET " + p.prefix + "/{access}/{id}",
		"POST " + p.prefix + "/{access}/{id}"}
	for _, action := range []string{"test", "rotate", "reveal", "replay", "replay-range", "active", "delete"} {
		out = append(out, "POST "+p.prefix+"/{access}/{id}/"+action)
	}
	return append(out, "GET "+p.prefix+"/_assets/{file}")
}

// errPortalLink is a link that is not (or no longer) valid.
var errPortalLink = errors.New("webhooks: portal link not valid")

func explainPortal(err error) *web.Problem {
	switch {
	case errors.Is(err, errPortalLink):
		return &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "Link not valid",
			Message: "This link to your webhooks has expired or is not complete. Ask for a new one where you got it."}}
	case errors.Is(err, ErrNotFound):
		return &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "Endpoint not found",
			Message: "There is no such endpoint among yours."}}
	case errors.Is(err, ErrSecretUnreadable):
		// The operator's mistake (an instance given another key); the
		// request log has the 5xx, the page says it in words.
		return &web.Problem{Status: http.StatusServiceUnavailable, Err: err, ErrorPage: web.ErrorPage{Heading: "The secret cannot be shown just now",
			Message: "This server cannot read the endpoint's signing secret. Try again in a few minutes; if it keeps happening, " +
				"tell the people who run this site. Your endpoint and its deliveries are kept."}}
	}
	return nil
}

// scoped is the request's context scoped to the owner its {access}
// grants, and that owner.
func (p *PortalHandler) scoped(r *http.Request) (context.Context, string, error) {
	access := r.PathValue("access")
	var owner string
	var ok bool
	if access == "me" && p.who != nil {
		owner, ok = p.who(r)
	} else {
		owner, ok = p.svc.portalOwner(access)
	}
	if !ok {
		return nil, "", errPortalLink
	}
	return ScopeToOwner(r.Context(), owner), owner, nil
}

type portalPage struct {
	Owner, Action string
	Endpoints     []endpointView
	Endpoint      *endpointView
	Fields        []web.Field
	Summary       []web.SummaryItem
	// Secret is shown once (made, rotated, or revealed), with what it is.
	Secret, SecretWhat string
	Deliveries         []deliveryView
	// Confirm asks before a delete.
	Confirm bool
	// From and To fill the replay range's fields.
	From, To string
	// EventGroups are the events the endpoint form offers, by group;
	// SwitchedOff names the endpoints the list warns were switched off
	// for failing.
	EventGroups []eventGroup
	SwitchedOff []string
}

// eventGroup is the events of one kind ("Booking events"), by the first
// word of their names.
type eventGroup struct {
	Name   string
	Events []eventChoice
}

// eventChoice is one event of the endpoint form: its name, what it
// means, an example of its data (indented JSON, "" for none), and
// whether the endpoint takes it.
type eventChoice struct {
	ID, Name, Description, Example string
	Checked                        bool
}

type endpointView struct {
	ID                                 int64
	Name, URL, Description, Events     string
	Channels, RateLimit, State, Rotate string
	Active                             bool
	Failures                           int
	// Tone is the state's colour: "ok", "failing" or "off"; Reason says
	// why it is failing or off, when we know.
	Tone, Reason string
	// SwitchedOff: its failures switched it off (not its owner).
	SwitchedOff bool
}

type deliveryView struct {
	ID                              int64
	Event, Status, Tone, When       string
	Attempts                        string
	Response, ResponseText, EventID string
	// Log is each attempt, when there was more than one or it failed.
	Log []attemptView
}

type attemptView struct {
	Number         int
	When, Response string
	Text           string
	Delivered      bool
}

func (p *PortalHandler) endpoint(s *Subscription) endpointView {
	v := endpointView{ID: s.ID, Name: s.Name, URL: s.URL, Description: s.Description, Events: strings.Join(s.Events, ", "),
		Channels: strings.Join(s.Channels, ", "), Active: s.IsActive, Failures: s.ConsecutiveFailures, State: "Active"}
	if slices.Contains(s.Events, "*") {
		v.Events = "every event"
	}
	if s.RateLimit > 0 {
		v.RateLimit = strconv.Itoa(s.RateLimit) + " a second"
	}
	v.Tone = "ok"
	last := ""
	if s.LastFailureAt != nil {
		last = "; the last at " + s.LastFailureAt.UTC().Format("2 Jan 2006, 15:04 UTC")
	}
	switch {
	case !s.IsActive && s.ConsecutiveFailures >= p.svc.opts.DisableAfterFailures:
		// The streak reached the limit: the failures switched it off (an
		// owner's Disable leaves a shorter one).
		v.State, v.Tone, v.SwitchedOff = "Disabled", "off", true
		v.Reason = fmt.Sprintf("Switched off by us after %s in a row%s. Fix the receiver, then enable it: the deliveries "+
			"held meanwhile can be sent again.", web.Count(s.ConsecutiveFailures, "failed delivery attempt"), last)
	case !s.IsActive:
		v.State, v.Tone = "Disabled", "off"
		v.Reason = "Disabled: no events are sent to it until it is enabled."
	case s.ConsecutiveFailures > 0:
		v.State, v.Tone = "Failing", "failing"
		v.Reason = fmt.Sprintf("%s in a row%s. After %d it is switched off%s.", web.Count(s.ConsecutiveFailures, "failed delivery attempt"),
			last, p.svc.opts.DisableAfterFailures, p.failingSpan())
	}
	if s.PreviousSecretExpiresAt != nil && p.svc.opts.Now().Before(*s.PreviousSecretExpiresAt) {
		v.Rotate = "The old secret signs deliveries too until " + s.PreviousSecretExpiresAt.UTC().Format("2 January 2006, 15:04 UTC") + "."
	}
	return v
}

// failingSpan is the rest of the sentence on when a failing endpoint is
// switched off, with DisableAfterFailing: ", once none has been
// delivered for 5 days".
func (p *PortalHandler) failingSpan() string {
	if d := p.svc.opts.DisableAfterFailing; d > 0 {
		return ", once none has been delivered for " + web.Span(d)
	}
	return ""
}

// eventGroups are the events the endpoint form offers: those the site
// sends, as they were described (DescribeEvent), and any the endpoint
// already takes; every event of the catalogue when none was described.
// By group, the first word of the name ("booking.created": Booking
// events), each with its description and an example of its data.
func (p *PortalHandler) eventGroups(chosen []string) []eventGroup {
	p.svc.mu.RLock()
	described := maps.Clone(p.svc.described)
	p.svc.mu.RUnlock()
	var groups []eventGroup
	for _, t := range p.svc.EventTypes() {
		_, sent := described[t.Name]
		if len(described) > 0 && !sent && !slices.Contains(chosen, t.Name) {
			continue
		}
		kind, _, _ := strings.Cut(t.Name, ".")
		name := strings.ToUpper(kind[:1]) + kind[1:] + " events"
		if len(groups) == 0 || groups[len(groups)-1].Name != name {
			groups = append(groups, eventGroup{Name: name})
		}
		c := eventChoice{ID: web.FieldID("events-" + t.Name), Name: t.Name, Description: t.Description, Checked: slices.Contains(chosen, t.Name)}
		var pretty bytes.Buffer
		if len(t.Example) > 0 && json.Indent(&pretty, t.Example, "", "  ") == nil {
			c.Example = pretty.String()
		}
		g := &groups[len(groups)-1]
		g.Events = append(g.Events, c)
	}
	if len(groups) > 0 {
		groups[0].Events[0].ID = web.FieldID("events") // where the error summary links
	}
	return groups
}

// portalNames names the API's fields as the form labels them, in the
// messages the pages' voice did not rewrite.
var portalNames = strings.NewReplacer("The url field", "The address", "The name field", "The name", "The rate_limit field",
	"The deliveries a second", "The description field", "The description", "The events field", "The events")

// fields are the endpoint form's fields, from s (or what was posted) and
// the errors given.
func (p *PortalHandler) fields(r *http.Request, s *Subscription, errs map[string][]string) []web.Field {
	val := func(name, current string) string {
		if r.Method == http.MethodPost {
			return r.PostFormValue(name)
		}
		return current
	}
	// The events are drawn by group (eventGroups); this field names them
	// for the error summary.
	events := web.Field{Type: web.TypeCheckboxes, Name: "events", ID: web.FieldID("events"), Label: "Events to send",
		Help: "None chosen sends every event.", Errors: errs["events"]}
	rate := ""
	if s.RateLimit > 0 {
		rate = strconv.Itoa(s.RateLimit)
	}
	var headers []string
	for _, name := range slices.Sorted(maps.Keys(s.Headers)) {
		headers = append(headers, name+": "+s.Headers[name])
	}
	fields := []web.Field{
		{Type: "text", Name: "name", ID: web.FieldID("name"), Label: "Name", Value: val("name", s.Name), Required: true,
			Autocomplete: "off", Errors: errs["name"]},
		{Type: "url", Name: "url", ID: web.FieldID("url"), Label: "Address", Help: "Where each event is posted: https://...",
			Value: val("url", s.URL), Required: true, Autocomplete: "url", Errors: errs["url"]},
		{Type: web.TypeTextarea, Name: "description", ID: web.FieldID("description"), Label: "Description",
			Help: "What the endpoint is for (optional).", Value: val("description", s.Description), Rows: 2, Errors: errs["description"]},
		events,
		{Type: "text", Name: "channels", ID: web.FieldID("channels"), Label: "Channels",
			Help: "Only events of these channels, separated by commas (optional).", Value: val("channels", strings.Join(s.Channels, ", ")),
			Autocomplete: "off", Errors: errs["channels"]},
		{Type: "number", Name: "rate_limit", ID: web.FieldID("rate_limit"), Label: "Deliveries a second, at most",
			Help: "Empty for no limit; the rest wait their turn.", Value: val("rate_limit", rate), Errors: errs["rate_limit"]},
		{Type: web.TypeTextarea, Name: "headers", ID: web.FieldID("headers"), Label: "Headers",
			Help: "Sent with every delivery, one \"Name: value\" a line (optional).", Value: val("headers", strings.Join(headers, "\n")),
			Rows: 3, Errors: errs["headers"]},
	}
	web.VoiceFields(fields) // the pages' voice first, then the labels' names for what it left
	for i := range fields {
		for j, m := range fields[i].Errors {
			fields[i].Errors[j] = portalNames.Replace(m)
		}
	}
	return fields
}

// chosenEvents are the events the form shows ticked: what was posted, or
// the endpoint's own.
func chosenEvents(r *http.Request, s *Subscription) []string {
	if r.Method == http.MethodPost {
		return r.PostForm["events"]
	}
	return s.Events
}

// portalInput reads the endpoint form.
func portalInput(r *http.Request) (SubscriptionInput, map[string][]string) {
	errs := map[string][]string{}
	name, url, desc := strings.TrimSpace(r.PostFormValue("name")), strings.TrimSpace(r.PostFormValue("url")), r.PostFormValue("description")
	in := SubscriptionInput{Name: &name, URL: &url, Description: &desc, Events: r.PostForm["events"], Channels: []string{}, Headers: map[string]string{}}
	if len(in.Events) == 0 {
		in.Events = []string{"*"}
	}
	for c := range strings.SplitSeq(r.PostFormValue("channels"), ",") {
		if c = strings.TrimSpace(c); c != "" {
			in.Channels = append(in.Channels, c)
		}
	}
	rate := 0
	if s := strings.TrimSpace(r.PostFormValue("rate_limit")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			errs["rate_limit"] = []string{"Give the deliveries a second as a whole number, or leave it empty."}
		}
		rate = n
	}
	in.RateLimit = &rate
	for line := range strings.SplitSeq(r.PostFormValue("headers"), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			errs["headers"] = append(errs["headers"], "Write each header as \"Name: value\".")
			continue
		}
		in.Headers[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	return in, errs
}

// portalWords puts the service's messages under the form's fields (the
// fields then say them in the pages' voice).
func portalWords(ve *ValidationError, errs map[string][]string) map[string][]string {
	for name, ms := range ve.Fields() {
		field, _, _ := strings.Cut(name, ".")
		for _, m := range ms {
			// The options that would allow an address are the operator's
			// business, not the customer's.
			switch m {
			case msgNotPublic:
				m = "The address must be on the public internet: this site does not send to private or local addresses."
			case msgInsecureURL:
				m = "The address must start with https://."
			}
			errs[field] = append(errs[field], m)
		}
	}
	return errs
}

func (p *PortalHandler) draw(w http.ResponseWriter, r *http.Request, ctx context.Context, status int, owner string, data *portalPage,
	general ...string) error {
	data.Owner, data.Action = owner, p.prefix+"/"+r.PathValue("access")
	if data.Endpoint == nil {
		list, _, err := p.svc.Subscriptions(ctx, SubscriptionQuery{Limit: 200, Sort: "name"}, false)
		if err != nil {
			return err
		}
		for i := range list {
			v := p.endpoint(&list[i])
			data.Endpoints = append(data.Endpoints, v)
			if v.SwitchedOff {
				data.SwitchedOff = append(data.SwitchedOff, v.Name)
			}
		}
	}
	data.Summary = web.Summary(data.Fields, general...)
	w.Header().Set("Cache-Control", "no-store")
	title := "Your webhooks"
	if data.Endpoint != nil {
		title = data.Endpoint.Name
	}
	p.base.Render.Render(w, r, status, PortalTemplate, &web.Page{Title: title, Data: data, CSRF: web.CSRFToken(w, r), Wide: data.Endpoint != nil,
		Flash: p.base.Render.TakeFlash(w, r, r.URL.Path)})
	return nil
}

func (p *PortalHandler) list(w http.ResponseWriter, r *http.Request) error {
	ctx, owner, err := p.scoped(r)
	if err != nil {
		return err
	}
	return p.draw(w, r, ctx, http.StatusOK, owner, &portalPage{Fields: p.fields(r, &Subscription{}, nil), EventGroups: p.eventGroups(nil)})
}

func (p *PortalHandler) create(w http.ResponseWriter, r *http.Request) error {
	ctx, owner, err := p.scoped(r)
	if err != nil {
		return err
	}
	in, errs := portalInput(r)
	if len(errs) == 0 {
		var sub *Subscription
		if sub, err = p.svc.CreateSubscription(ctx, in); err == nil {
			// The secret is shown on this answer alone, never kept in a
			// cookie or an address.
			return p.drawEndpoint(w, r, ctx, http.StatusCreated, owner, sub, &portalPage{Secret: sub.Secret,
				SecretWhat: "The endpoint is added. Its signing secret, shown this once:"})
		}
		var ve *ValidationError
		if !errors.As(err, &ve) {
			return err
		}
		errs = portalWords(ve, errs)
	}
	return p.draw(w, r, ctx, http.StatusUnprocessableEntity, owner, &portalPage{Fields: p.fields(r, &Subscription{}, errs),
		EventGroups: p.eventGroups(chosenEvents(r, &Subscription{}))})
}

// subscription is the endpoint {id} names, within ctx's owner.
func (p *PortalHandler) subscription(ctx context.Context, r *http.Request) (*Subscription, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, ErrNotFound
	}
	return p.svc.Subscription(ctx, id)
}

func (p *PortalHandler) drawEndpoint(w http.ResponseWriter, r *http.Request, ctx context.Context, status int, owner string, sub *Subscription,
	data *portalPage, general ...string) error {
	v := p.endpoint(sub)
	data.Endpoint = &v
	if data.Fields == nil {
		get := r.Clone(ctx)
		get.Method = http.MethodGet
		data.Fields, data.EventGroups = p.fields(get, sub, nil), p.eventGroups(sub.Events)
	} else {
		data.EventGroups = p.eventGroups(chosenEvents(r, sub))
	}
	list, _, err := p.svc.Deliveries(ctx, DeliveryQuery{SubscriptionID: sub.ID, Sort: "-id", Limit: 20})
	if err != nil {
		return err
	}
	for _, d := range list {
		full, err := p.svc.store.Delivery(ctx, d.ID) // listed under sub, already the owner's
		if err != nil {
			return err
		}
		dv := deliveryView{ID: d.ID, Event: d.Event, EventID: d.EventID, Status: statusWords[d.Status], Tone: statusTones[d.Status],
			When: d.CreatedAt.UTC().Format("2 Jan 2006, 15:04:05 UTC"), Attempts: strconv.Itoa(d.Attempts), Response: "none yet"}
		if d.ResponseStatus != nil {
			dv.Response = strconv.Itoa(*d.ResponseStatus)
		}
		if full.ResponseBody != nil {
			dv.ResponseText = clipRunes(*full.ResponseBody, 200)
		}
		if d.Attempts > 1 || d.Status == StatusRetrying || d.Status == StatusFailed {
			log, err := p.svc.Attempts(ctx, sub.ID, d.ID)
			if err != nil {
				return err
			}
			for _, a := range log {
				av := attemptView{Number: a.Number, When: a.At.UTC().Format("2 Jan 2006, 15:04:05 UTC"), Response: "not reached",
					Text: clipRunes(a.Response, 200), Delivered: a.Delivered}
				if a.ResponseStatus != nil {
					av.Response = strconv.Itoa(*a.ResponseStatus)
				}
				dv.Log = append(dv.Log, av)
			}
		}
		data.Deliveries = append(data.Deliveries, dv)
	}
	if data.From == "" {
		now := p.svc.opts.Now().UTC()
		data.From, data.To = now.Add(-24*time.Hour).Format("2006-01-02T15:04"), now.Format("2006-01-02T15:04")
	}
	return p.draw(w, r, ctx, status, owner, data, general...)
}

// statusTones colour a delivery's status as the endpoints' states are.
var statusTones = map[Status]string{StatusPending: "waiting", StatusRetrying: "failing", StatusDelivered: "ok", StatusFailed: "off", StatusParked: "off"}

var statusWords = map[Status]string{StatusPending: "Waiting", StatusRetrying: "Retrying", StatusDelivered: "Delivered",
	StatusFailed: "Failed", StatusParked: "Held: endpoint disabled"}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func (p *PortalHandler) show(w http.ResponseWriter, r *http.Request) error {
	ctx, owner, err := p.scoped(r)
	if err != nil {
		return err
	}
	sub, err := p.subscription(ctx, r)
	if err != nil {
		return err
	}
	return p.drawEndpoint(w, r, ctx, http.StatusOK, owner, sub, &portalPage{Confirm: r.URL.Query().Get("delete") != ""})
}

func (p *PortalHandler) save(w http.ResponseWriter, r *http.Request) error {
	ctx, owner, err := p.scoped(r)
	if err != nil {
		return err
	}
	sub, err := p.subscription(ctx, r)
	if err != nil {
		return err
	}
	in, errs := portalInput(r)
	if len(errs) == 0 {
		if _, err = p.svc.UpdateSubscription(ctx, sub.ID, in); err == nil {
			p.back(w, r, sub.ID, "Your changes are saved.")
			return nil
		}
		var ve *ValidationError
		if !errors.As(err, &ve) {
			return err
		}
		errs = portalWords(ve, errs)
	}
	return p.drawEndpoint(w, r, ctx, http.StatusUnprocessableEntity, owner, sub, &portalPage{Fields: p.fields(r, sub, errs)})
}

// back sends the browser to the endpoint's page with a message.
func (p *PortalHandler) back(w http.ResponseWriter, r *http.Request, id int64, message string) {
	to := p.prefix + "/" + r.PathValue("access") + "/" + strconv.FormatInt(id, 10)
	p.base.Render.SetFlash(w, r, to, web.Flash{Kind: "success", Message: message})
	web.SeeOther(w, r, to)
}

// act runs one of the endpoint's buttons.
func (p *PortalHandler) act(action string) web.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx, owner, err := p.scoped(r)
		if err != nil {
			return err
		}
		sub, err := p.subscription(ctx, r)
		if err != nil {
			return err
		}
		switch action {
		case "test":
			if _, err := p.svc.SendTest(ctx, sub.ID); errors.Is(err, ErrSubscriptionInactive) {
				return p.refused(w, r, ctx, owner, sub, "Enable the endpoint before sending it a test event.")
			} else if err != nil {
				return err
			}
			p.back(w, r, sub.ID, "A test event is on its way; its delivery is listed below.")
		case "rotate":
			rotated, err := p.svc.RotateSecret(ctx, sub.ID, RotateInput{})
			if err != nil {
				return err
			}
			return p.drawEndpoint(w, r, ctx, http.StatusOK, owner, rotated, &portalPage{Secret: rotated.Secret,
				SecretWhat: "The new signing secret, shown this once. The old one keeps signing beside it until the time below:"})
		case "reveal":
			secret, err := p.svc.RevealSecret(ctx, sub.ID)
			if err != nil {
				return err
			}
			return p.drawEndpoint(w, r, ctx, http.StatusOK, owner, sub, &portalPage{Secret: secret, SecretWhat: "The signing secret:"})
		case "replay":
			id, _ := strconv.ParseInt(r.PostFormValue("delivery"), 10, 64)
			if _, err := p.svc.Replay(ctx, sub.ID, id); errors.Is(err, ErrSubscriptionInactive) {
				return p.refused(w, r, ctx, owner, sub, "Enable the endpoint before sending deliveries again.")
			} else if err != nil {
				return err
			}
			p.back(w, r, sub.ID, "The delivery is sent again, as a new one listed below.")
		case "replay-range":
			from, err1 := time.ParseInLocation("2006-01-02T15:04", r.PostFormValue("from"), time.UTC)
			to, err2 := time.ParseInLocation("2006-01-02T15:04", r.PostFormValue("to"), time.UTC)
			if err1 != nil || err2 != nil || to.Before(from) {
				return p.refused(w, r, ctx, owner, sub, "Give the range as two times, the first before the second.")
			}
			n, err := p.svc.ReplayRange(ctx, sub.ID, from, to.Add(time.Minute-time.Nanosecond))
			if errors.Is(err, ErrSubscriptionInactive) {
				return p.refused(w, r, ctx, owner, sub, "Enable the endpoint before sending deliveries again.")
			} else if err != nil {
				return err
			}
			p.back(w, r, sub.ID, fmt.Sprintf("%s of that range sent again.", web.Count(n, "delivery")))
		case "active":
			on := r.PostFormValue("active") == "1"
			if _, err := p.svc.UpdateSubscription(ctx, sub.ID, SubscriptionInput{IsActive: &on}); err != nil {
				return err
			}
			if on {
				p.back(w, r, sub.ID, "The endpoint is enabled.")
			} else {
				p.back(w, r, sub.ID, "The endpoint is disabled: no events are sent to it until you enable it.")
			}
		case "delete":
			if err := p.svc.DeleteSubscription(ctx, sub.ID); err != nil {
				return err
			}
			to := p.prefix + "/" + r.PathValue("access")
			p.base.Render.SetFlash(w, r, to, web.Flash{Kind: "success", Message: sub.Name + " is deleted, with its deliveries."})
			web.SeeOther(w, r, to)
		}
		return nil
	}
}

// refused redraws the endpoint's page, 422, with what could not be done
// said at the top (the range typed kept).
func (p *PortalHandler) refused(w http.ResponseWriter, r *http.Request, ctx context.Context, owner string, sub *Subscription, message string) error {
	return p.drawEndpoint(w, r, ctx, http.StatusUnprocessableEntity, owner, sub, &portalPage{From: r.PostFormValue("from"),
		To: r.PostFormValue("to")}, message)
}
