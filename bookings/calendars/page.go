package calendars

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/oauthflow"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/tenant"
)

//go:embed templates
var templatesFS embed.FS

// maxFormBytes bounds the body of a post to the page.
const maxFormBytes = 64 << 10

// PagePrefixDefault is where [NewPageHandler] serves the providers'
// calendar page.
const PagePrefixDefault = "/provider-calendars"

// Template is the calendar page's "content", by the name a
// host's PageOptions.Templates may replace it under.
const Template = "bookings/calendars.html"

// PageOptions configures [NewPageHandler].
type PageOptions struct {
	groundwork.HTTPOptions
	// Prefix: PagePrefixDefault when empty.
	Prefix string
	// Templates replaces the page's template or the page layer's ones.
	Templates fs.FS
	// Key signs the flash; give every instance the same.
	Key []byte
	// Provider, when set, is the provider the host's own session signs
	// in (false for none): the page is then also at {prefix}/me.
	// Without it the page is reached only by a link from
	// [Service.PageLink].
	Provider func(r *http.Request) (providerID int64, ok bool)
	// TrustedOrigins may post to the page besides its own origin.
	TrustedOrigins []string
}

// PageHandler serves the page where a provider connects their
// own calendars, working without JavaScript: GET {prefix}/{access} lists
// the provider's connections (what each reads, when it was last read,
// its last error, a warning when it has gone unread for a day) with
// "Read now", "Change calendars" and "Disconnect", and the forms that
// add one: an ICS address, a CalDAV account (server, user name, app
// password) and, when a source takes consent, "Connect Google". {access}
// is a signed link's token ([Service.PageLink]) or "me" (the
// host's session, PageOptions.Provider). Posts from other
// origins are refused.
type PageHandler struct {
	base    *web.Base
	svc     *Service
	prefix  string
	who     func(r *http.Request) (int64, bool)
	consent *oauthflow.Flow
	google  string // the consent page's origin, for the page's form-action
}

// NewPageHandler returns the calendar page of svc, whose
// Options.SecretKey signs the links. Mount it at the prefix with a
// trailing slash.
func NewPageHandler(svc *Service, opts *PageOptions) (*PageHandler, error) {
	if svc == nil {
		return nil, errors.New("calendars: new page handler: a service is needed")
	}
	var o PageOptions
	if opts != nil {
		o = *opts
	}
	pages, _ := fs.Sub(templatesFS, "templates")
	base, err := web.NewBase(web.BaseOptions{Domain: "calendars", Prefix: o.Prefix, Default: PagePrefixDefault, Pages: pages,
		Override: o.Templates, Key: o.Key, Logger: o.Logger, Brand: o.Brand, Navigator: o.Navigator,
		NotFound: web.ErrorPage{Heading: "Page not found", Message: "There is no page at this address."},
		Failure:  web.Problem{ErrorPage: web.ErrorPage{Heading: "Something went wrong", Message: "Please try again in a moment."}},
		Explain:  explainPage, Protect: true, TrustedOrigins: o.TrustedOrigins, MaxFormBytes: maxFormBytes})
	if err != nil {
		return nil, err
	}
	p := &PageHandler{base: base, svc: svc, prefix: base.Prefix, who: o.Provider}
	if c, ok := svc.o.Sources[Google].(Consent); ok {
		cfg := c.OAuthConfig()
		p.consent = &oauthflow.Flow{Config: cfg, Sealer: svc.sealer, Cookie: "gw_calendar_consent", Path: p.prefix + "/google", Now: svc.o.Now}
		if u, err := url.Parse(cfg.Endpoint.AuthURL); err == nil {
			p.google = u.Scheme + "://" + u.Host
		}
	}
	mux, prefix := base.Mux, p.prefix
	mux.HandleFunc("GET "+prefix+"/{access}", base.Func(p.show))
	mux.HandleFunc("POST "+prefix+"/{access}/connect", base.Func(p.connect))
	mux.HandleFunc("POST "+prefix+"/{access}/google", base.Func(p.beginGoogle))
	mux.HandleFunc("GET "+prefix+"/google/callback", base.Func(p.finishGoogle))
	mux.HandleFunc("POST "+prefix+"/{access}/{id}/choose", base.Func(p.choose))
	mux.HandleFunc("POST "+prefix+"/{access}/{id}/sync", base.Func(p.sync))
	mux.HandleFunc("POST "+prefix+"/{access}/{id}/disconnect", base.Func(p.disconnect))
	return p, nil
}

// ServeHTTP implements http.Handler.
func (p *PageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The page is its provider's, by a signed link or the host's
	// session: that grants it, whatever tenant the request acted for.
	p.base.ServeHTTP(w, r.WithContext(tenant.All(r.Context())))
}

// Routes lists the routes, as "METHOD /path/{param}".
func (p *PageHandler) Routes() []string {
	return []string{"GET " + p.prefix + "/{access}", "POST " + p.prefix + "/{access}/connect", "POST " + p.prefix + "/{access}/google",
		"GET " + p.prefix + "/google/callback", "POST " + p.prefix + "/{access}/{id}/choose", "POST " + p.prefix + "/{access}/{id}/sync",
		"POST " + p.prefix + "/{access}/{id}/disconnect", "GET " + p.prefix + "/_assets/{file}"}
}

// errCalendarsLink is a calendar page address that grants nothing.
var errCalendarsLink = errors.New("calendars: calendar page link not valid")

func explainPage(err error) *web.Problem {
	switch {
	case errors.Is(err, errCalendarsLink):
		return &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "Link not valid",
			Message: "This calendar settings link has expired or is not complete. Ask for a new one."}}
	case errors.Is(err, ErrNotFound):
		return &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "Calendar not found",
			Message: "There is no such calendar connection. It may have been disconnected."}}
	}
	return nil
}

// linkKey is the key of the calendar page's links, from the secret key
// (with the words bookings used, so links made before still open).
func (s *Service) linkKey() []byte {
	m := hmac.New(sha256.New, s.o.SecretKey)
	m.Write([]byte("bookings calendars page link"))
	return m.Sum(nil)
}

// PageLink is the {access} part of a calendar page address for
// a provider, valid for ttl: send it to the provider (the admin API and
// the reference CLI make it). Anyone with it can change that provider's
// calendars until it expires; it cannot be withdrawn sooner but by
// changing the secret key.
func (s *Service) PageLink(providerID int64, ttl time.Duration) string {
	body := strconv.FormatInt(providerID, 10) + "." + strconv.FormatInt(s.o.Now().Add(ttl).Unix(), 10)
	m := hmac.New(sha256.New, s.linkKey())
	m.Write([]byte(body))
	return body + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// linkProvider is the provider a link names, if it is ours and has not
// expired.
func (s *Service) linkProvider(link string) (int64, bool) {
	i := strings.LastIndexByte(link, '.')
	if i < 0 {
		return 0, false
	}
	m := hmac.New(sha256.New, s.linkKey())
	m.Write([]byte(link[:i]))
	sig, err := base64.RawURLEncoding.DecodeString(link[i+1:])
	if err != nil || !hmac.Equal(sig, m.Sum(nil)) {
		return 0, false
	}
	id, exp, _ := strings.Cut(link[:i], ".")
	pid, err1 := strconv.ParseInt(id, 10, 64)
	until, err2 := strconv.ParseInt(exp, 10, 64)
	if err1 != nil || err2 != nil || s.o.Now().Unix() >= until {
		return 0, false
	}
	return pid, true
}

// provider is the provider the request's {access} grants.
func (p *PageHandler) provider(r *http.Request, access string) (bookings.Provider, error) {
	var id int64
	var ok bool
	if access == "me" && p.who != nil {
		id, ok = p.who(r)
	} else {
		id, ok = p.svc.linkProvider(access)
	}
	if !ok {
		return bookings.Provider{}, errCalendarsLink
	}
	pr, err := p.svc.bk.Provider(r.Context(), id)
	if errors.Is(err, ErrNotFound) {
		return bookings.Provider{}, errCalendarsLink
	}
	return pr, err
}

// connection is the provider the request's {access} grants and their
// connection ref (an ID); ErrNotFound for another provider's.
func (p *PageHandler) connection(r *http.Request, ref string) (bookings.Provider, Connection, error) {
	pr, err := p.provider(r, r.PathValue("access"))
	if err != nil {
		return pr, Connection{}, err
	}
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil {
		return pr, Connection{}, ErrNotFound
	}
	c, err := p.svc.Connection(r.Context(), id)
	if err == nil && c.ProviderID != pr.ID {
		err = ErrNotFound
	}
	return pr, c, err
}

type calendarsPage struct {
	Provider    string
	Action      string
	Connections []connectionView
	// Edit is the "Change calendars" step; Disconnect the confirming one.
	Edit       *editView
	Disconnect *connectionView
	ICSOK      bool
	CalDAVOK   bool
	Google     bool
	Summary    []web.SummaryItem
	// Providers are the buttons of the kinds of calendar to connect;
	// Connect is the form of the one chosen (?connect=KEY), with its
	// fields.
	Providers []calendarProvider
	Connect   *connectForm
}

// calendarProvider is a kind of calendar the page connects, named as
// people know it, with what its form asks: an iCloud or Fastmail account
// is CalDAV with the server known.
type calendarProvider struct {
	Key, Title, Intro string
	Kind              Kind
	// Server fills the server's address in; ServerHelp, UserHelp and
	// PasswordHelp say where to find each.
	Server, ServerHelp, UserHelp, PasswordHelp string
}

// connectForm is the chosen provider's form.
type connectForm struct {
	calendarProvider
	Fields []web.Field
}

// calendarProviders are the page's buttons, in order.
var calendarProviders = []calendarProvider{
	{Key: "icloud", Title: "Apple iCloud", Kind: CalDAV, Server: "https://caldav.icloud.com/",
		Intro:        "Your iPhone's, iPad's and Mac's calendars. Apple asks for an app-specific password, made for this use alone.",
		ServerHelp:   "Apple's calendar server; leave it as it is.",
		UserHelp:     "The email address of your Apple Account.",
		PasswordHelp: "Made at account.apple.com, under Sign-In and Security, App-Specific Passwords."},
	{Key: "fastmail", Title: "Fastmail", Kind: CalDAV, Server: "https://caldav.fastmail.com/",
		Intro:        "Fastmail's calendars, with an app password that may use calendars (CalDAV).",
		ServerHelp:   "Fastmail's calendar server; leave it as it is.",
		UserHelp:     "Your whole Fastmail address.",
		PasswordHelp: "Made in Fastmail's Settings, under Privacy & Security, Manage app passwords and access."},
	{Key: "nextcloud", Title: "Nextcloud", Kind: CalDAV,
		Intro:        "A Nextcloud's calendars, with an app password made for this use alone.",
		ServerHelp:   "Your Nextcloud's address with /remote.php/dav/ after it, like https://cloud.example.com/remote.php/dav/.",
		UserHelp:     "Your Nextcloud user name.",
		PasswordHelp: "Made in Nextcloud's Personal settings, under Security, Devices & sessions."},
	{Key: "caldav", Title: "Another CalDAV server", Kind: CalDAV,
		Intro:        "Any calendar server that speaks CalDAV: its address, your user name and a password for this use.",
		ServerHelp:   "For example https://calendar.example.com/dav/.",
		UserHelp:     "Usually your email address; leave it empty for a server that asks for none.",
		PasswordHelp: "Made in your account's security settings for this use alone; not your sign-in password."},
	{Key: "ics", Title: "A calendar's address", Kind: ICS,
		Intro: "Google, Outlook and Apple each give a private address for a calendar in iCal format. It is read only: " +
			"bookings are not added to it."},
}

// providerOf is the provider key names (of kind, when given), else the
// plain one of kind (whose key is the kind's name: "caldav", "ics").
func providerOf(key string, kind Kind) calendarProvider {
	for _, pv := range calendarProviders {
		if pv.Key == key && (kind == "" || pv.Kind == kind) {
			return pv
		}
	}
	if key != string(kind) {
		return providerOf(string(kind), kind)
	}
	return calendarProvider{} // no such kind: the handler refused it before
}

type connectionView struct {
	ID                     int64
	Name, Kind, Where      string
	Reads, WritesTo        string
	LastRead, Error, Stale string
	Warning                string
}

type editView struct {
	connectionView
	Fields []web.Field
	// Rows are the account's calendars, each with its own two choices;
	// Writer: bookings can be added to one; NoneWritten: none chosen.
	Rows        []calendarRow
	Writer      bool
	NoneWritten bool
	// Errors are the choices' (of calendars to read, or to write to).
	Errors []string
}

// calendarRow is one calendar of the "Change calendars" step, by its
// name: whether its busy times are read, and whether bookings are added
// to it.
type calendarRow struct {
	Value, Name     string
	ReadID, WriteID string
	Read, Write     bool
}

var kindLabels = map[Kind]string{ICS: "Calendar address (ICS)", CalDAV: "CalDAV account", Google: "Google Calendar"}

func (p *PageHandler) view(c Connection, loc *time.Location) connectionView {
	// Calendars by their names, the server by its host: never a path.
	v := connectionView{ID: c.ID, Name: c.Name, Kind: kindLabels[c.Kind], Where: c.Endpoint, Reads: "every calendar of the account"}
	if u, err := url.Parse(c.Endpoint); err == nil && u.Host != "" {
		v.Where = u.Host
	}
	switch {
	case c.Kind == Google:
		v.Where = "Google"
	case c.Kind == ICS:
		v.Reads = "the calendar at its address"
	}
	name := func(id string) string { return cmp.Or(c.CalendarNames[id], "a calendar of the account") }
	if len(c.Calendars) > 0 {
		names := make([]string, len(c.Calendars))
		for i, id := range c.Calendars {
			names[i] = name(id)
		}
		v.Reads = strings.Join(names, ", ")
	} else if c.Kind != ICS && len(c.CalendarNames) > 0 {
		v.Reads = "every calendar of the account: " + strings.Join(slices.Sorted(maps.Values(c.CalendarNames)), ", ")
	}
	if c.Destination != "" {
		v.WritesTo = name(c.Destination)
	}
	switch {
	case c.SyncedAt != nil:
		v.LastRead = c.SyncedAt.In(loc).Format("2 January 2006, 15:04 MST")
	default:
		v.LastRead = "not yet"
	}
	switch {
	case c.LastError != "" && c.Failures > 0:
		v.Error = "The last read failed. " + c.LastError
	case c.LastError != "":
		v.Warning = "The last read left something out. " + c.LastError
	case c.SyncedAt == nil:
		v.LastRead = "not yet: it is read in the background within a minute or two"
	}
	if c.Stale(p.svc.o.Now()) {
		v.Stale = "It has not been read for over a day, so bookings may clash with it."
		if c.BlockWhenStale {
			v.Stale = "It has not been read for over a day, so you cannot be booked until it is read again."
		}
	}
	return v
}

// connectFields are the fields of a provider's form, with what was
// typed (never the password; its server filled in) and the errors given.
func connectFields(r *http.Request, pv calendarProvider, errs map[string][]string) []web.Field {
	kind := pv.Kind
	f := func(typ, name, label, help, auto string) web.Field {
		n := string(kind) + "_" + name
		return web.Field{Type: typ, Name: n, ID: web.FieldID(n), Label: label, Help: help, Value: r.PostFormValue(n),
			Autocomplete: auto, Required: name != "username", Errors: errs[name]}
	}
	if kind == ICS {
		return []web.Field{f("text", "name", "Name", "How the calendar is shown here, e.g. \"Work\".", "off"),
			f("url", "url", "Calendar address", "The secret address in iCal format; it is kept sealed and never shown again.", "off")}
	}
	name := f("text", "name", "Name", "How the account is shown here, e.g. \""+cmp.Or(strings.TrimPrefix(pv.Title, "Apple "), "Work")+"\".", "off")
	if name.Value == "" && r.Method == http.MethodGet && pv.Key != "caldav" {
		name.Value = strings.TrimPrefix(pv.Title, "Apple ")
	}
	server := f("url", "url", "Server address", pv.ServerHelp, "url")
	if server.Value == "" {
		server.Value = pv.Server
	}
	return []web.Field{name, server, f("text", "username", "User name", pv.UserHelp, "username"),
		f("password", "password", "App password", pv.PasswordHelp, "new-password")}
}

func (p *PageHandler) draw(w http.ResponseWriter, r *http.Request, status int, pr bookings.Provider, data *calendarsPage, general ...string) error {
	access := r.PathValue("access")
	data.Provider, data.Action = pr.Name, p.prefix+"/"+access
	list, err := p.svc.Connections(r.Context(), pr.ID)
	if err != nil {
		return err
	}
	loc := pr.Zone()
	for _, c := range list {
		data.Connections = append(data.Connections, p.view(c, loc))
	}
	_, data.ICSOK = p.svc.o.Sources[ICS]
	_, data.CalDAVOK = p.svc.o.Sources[CalDAV]
	data.Google = p.consent != nil
	for _, pv := range calendarProviders {
		if pv.Kind == ICS && data.ICSOK || pv.Kind == CalDAV && data.CalDAVOK {
			data.Providers = append(data.Providers, pv)
		}
	}
	if key := r.URL.Query().Get("connect"); data.Connect == nil && key != "" {
		if pv := providerOf(key, ""); slices.Contains(data.Providers, pv) {
			data.Connect = &connectForm{calendarProvider: pv, Fields: connectFields(r, pv, nil)}
		}
	}
	var fields []web.Field
	if data.Edit != nil {
		fields = data.Edit.Fields
	}
	if data.Connect != nil {
		fields = append(fields, data.Connect.Fields...)
	}
	data.Summary = web.Summary(fields, general...)
	page := &web.Page{Title: "Your calendars", Data: data, CSRF: web.CSRFToken(w, r), Flash: p.base.Render.TakeFlash(w, r, data.Action)}
	if p.google != "" {
		page.FormAction = []string{p.google}
	}
	p.base.Render.Render(w, r, status, Template, page)
	return nil
}

func (p *PageHandler) show(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	data := &calendarsPage{}
	if ref := q.Get("edit") + q.Get("disconnect"); ref != "" {
		pr, c, err := p.connection(r, ref)
		if err != nil {
			return err
		}
		if q.Get("edit") == "" {
			v := p.view(c, pr.Zone())
			data.Disconnect = &v
		} else if data.Edit, err = p.editView(r.Context(), c, pr.Zone(), nil, nil); err != nil {
			return p.draw(w, r, http.StatusOK, pr, data, "The calendars of "+c.Name+" could not be listed. "+Reason(err))
		}
		return p.draw(w, r, http.StatusOK, pr, data)
	}
	pr, err := p.provider(r, r.PathValue("access"))
	if err != nil {
		return err
	}
	return p.draw(w, r, http.StatusOK, pr, data)
}

// editView is the "Change calendars" step: the calendars the account
// lists, to read and to write to, asked of its server.
func (p *PageHandler) editView(ctx context.Context, c Connection, loc *time.Location, chosen *Choice, errs map[string][]string) (*editView, error) {
	ctx, cancel := context.WithTimeout(ctx, p.svc.o.ReadTimeout)
	defer cancel()
	cals, err := p.svc.Remote(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	reads, dest, block := c.Calendars, c.Destination, c.BlockWhenStale
	if chosen != nil {
		reads, dest, block = chosen.Calendars, *chosen.Destination, *chosen.BlockWhenStale
	}
	read := web.Field{Type: web.TypeCheckboxes, Name: "calendars", ID: web.FieldID("calendars"), Label: "Calendars to read for busy time",
		Help: "None chosen reads them all.", Errors: errs["calendars"]}
	write := web.Field{Type: web.TypeRadio, Name: "destination", ID: web.FieldID("destination"), Label: "Add bookings to",
		Errors: errs["destination"]}
	_, writer := p.svc.o.Sources[c.Kind].(Writer)
	if writer {
		write.Options = append(write.Options, web.Option{Value: "", Label: "None: do not add bookings to this account", Selected: dest == ""})
	}
	for _, rc := range cals {
		read.Options = append(read.Options, web.Option{Value: rc.ID, Label: rc.Name, Selected: slices.Contains(reads, rc.ID)})
		if writer {
			write.Options = append(write.Options, web.Option{Value: rc.ID, Label: rc.Name, Selected: dest == rc.ID})
		}
	}
	fields := []web.Field{read}
	if writer {
		fields = append(fields, write)
	}
	fields = append(fields, web.Field{Type: web.TypeCheckbox, Name: "block_when_stale", ID: web.FieldID("block_when_stale"),
		Label: "Stop taking bookings if this calendar cannot be read for a day", Checked: block, Errors: errs["block_when_stale"]})
	ev := &editView{connectionView: p.view(c, loc), Fields: fields, Writer: writer, NoneWritten: dest == "",
		Errors: slices.Concat(errs["calendars"], errs["destination"])}
	for i, rc := range cals {
		row := calendarRow{Value: rc.ID, Name: cmp.Or(rc.Name, "A calendar without a name"), Read: slices.Contains(reads, rc.ID), Write: dest == rc.ID,
			ReadID: web.FieldID("calendars-" + strconv.Itoa(i)), WriteID: web.FieldID("destination-" + strconv.Itoa(i))}
		if i == 0 {
			row.ReadID = read.ID // where the error summary links
		}
		ev.Rows = append(ev.Rows, row)
	}
	return ev, nil
}

func (p *PageHandler) back(w http.ResponseWriter, r *http.Request, query string, f web.Flash) {
	action := p.prefix + "/" + r.PathValue("access")
	p.base.Render.SetFlash(w, r, action, f)
	web.SeeOther(w, r, action+query)
}

func (p *PageHandler) connect(w http.ResponseWriter, r *http.Request) error {
	pr, err := p.provider(r, r.PathValue("access"))
	if err != nil {
		return err
	}
	kind := Kind(r.PostFormValue("kind"))
	if kind != ICS && kind != CalDAV {
		return p.draw(w, r, http.StatusUnprocessableEntity, pr, &calendarsPage{}, "Choose a kind of calendar to connect.")
	}
	pv := providerOf(r.PostFormValue("provider"), kind)
	v := func(name string) string { return strings.TrimSpace(r.PostFormValue(string(kind) + "_" + name)) }
	in := Input{ProviderID: pr.ID, Kind: kind, Name: v("name"), URL: v("url"), Username: v("username"), Password: r.PostFormValue(string(kind) + "_password")}
	c, cals, err := p.svc.Connect(r.Context(), in)
	var ve *groundwork.ValidationError
	switch {
	case errors.As(err, &ve):
		errs := calendarWords(ve)
		fields := connectFields(r, pv, errs)
		var general []string // what no field of the form shows (an unknown kind)
		for name, ms := range errs {
			if !slices.ContainsFunc(fields, func(f web.Field) bool { return f.Name == string(kind)+"_"+name }) {
				general = append(general, ms...)
			}
		}
		return p.draw(w, r, http.StatusUnprocessableEntity, pr, &calendarsPage{Connect: &connectForm{calendarProvider: pv, Fields: fields}}, general...)
	case errors.Is(err, ErrUnreadable):
		fields := connectFields(r, pv, map[string][]string{"url": {"The calendar could not be read. " + Reason(err)}})
		return p.draw(w, r, http.StatusUnprocessableEntity, pr, &calendarsPage{Connect: &connectForm{calendarProvider: pv, Fields: fields}})
	case err != nil:
		return err
	case cals == nil:
		p.back(w, r, "", web.Flash{Kind: "info", Message: c.Name + " is saved. Its server is slow to answer, so it is read in the background: " +
			"look here again in a minute or two for its busy times, or for what went wrong."})
		return nil
	}
	p.readNow(r, c.ID)
	if kind == CalDAV && len(cals) > 1 {
		p.back(w, r, "?edit="+strconv.FormatInt(c.ID, 10), web.Flash{Kind: "success",
			Message: fmt.Sprintf("%s is connected. It has %d calendars: choose the ones to read.", c.Name, len(cals))})
		return nil
	}
	p.back(w, r, "", web.Flash{Kind: "success", Message: c.Name + " is connected: its busy times will keep you from being booked."})
	return nil
}

// readNow reads a connection just made or changed, so its busy time
// counts at once, waiting for its server no longer than
// Options.ConnectWait; a failure is kept on it and shown on the page.
func (p *PageHandler) readNow(r *http.Request, id int64) {
	ctx, cancel := context.WithTimeout(r.Context(), p.svc.o.ConnectWait)
	defer cancel()
	if _, err := p.svc.Sync(ctx, id); err != nil {
		p.base.Logger.InfoContext(r.Context(), "calendars: calendar read after a change", "connection", id, "error", err)
	}
}

// calendarWords puts the connect form's messages in its labels' words.
func calendarWords(ve *groundwork.ValidationError) map[string][]string {
	words := strings.NewReplacer("The url field", "The address", "The name field", "The name", "The password field", "The app password",
		"The username field", "The user name")
	out := map[string][]string{}
	for name, ms := range ve.Fields() {
		for _, m := range ms {
			out[name] = append(out[name], words.Replace(m))
		}
	}
	return out
}

func (p *PageHandler) choose(w http.ResponseWriter, r *http.Request) error {
	pr, c, err := p.connection(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	dest, block := r.PostFormValue("destination"), r.PostFormValue("block_when_stale") != ""
	ch := Choice{Calendars: r.PostForm["calendars"], Destination: &dest, BlockWhenStale: &block}
	if ch.Calendars == nil {
		ch.Calendars = []string{}
	}
	if _, err := p.svc.Choose(r.Context(), c.ID, ch); err != nil {
		var ve *groundwork.ValidationError
		if !errors.As(err, &ve) && !errors.Is(err, ErrUnreadable) {
			return err
		}
		errs := map[string][]string{}
		general := []string{}
		if ve != nil {
			for name, ms := range ve.Fields() {
				name, _, _ = strings.Cut(name, ".") // calendars.0: the calendars group
				errs[name] = append(errs[name], ms...)
			}
		} else {
			general = append(general, "The calendars could not be listed. "+Reason(err))
		}
		data := &calendarsPage{}
		if data.Edit, err = p.editView(r.Context(), c, pr.Zone(), &ch, errs); err != nil {
			return p.draw(w, r, http.StatusUnprocessableEntity, pr, data, "The calendars could not be listed. "+Reason(err))
		}
		return p.draw(w, r, http.StatusUnprocessableEntity, pr, data, general...)
	}
	p.readNow(r, c.ID)
	p.back(w, r, "", web.Flash{Kind: "success", Message: "The calendars of " + c.Name + " are saved."})
	return nil
}

func (p *PageHandler) sync(w http.ResponseWriter, r *http.Request) error {
	_, c, err := p.connection(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	ok, err := p.svc.Sync(r.Context(), c.ID)
	switch {
	case err != nil && !ok:
		return err
	case !ok:
		p.back(w, r, "", web.Flash{Kind: "info", Message: c.Name + " is being read just now; look again in a moment."})
	case err != nil:
		p.back(w, r, "", web.Flash{Kind: "error", Message: c.Name + " could not be read. " + Reason(err)})
	default:
		p.back(w, r, "", web.Flash{Kind: "success", Message: c.Name + " was read just now."})
	}
	return nil
}

func (p *PageHandler) disconnect(w http.ResponseWriter, r *http.Request) error {
	_, c, err := p.connection(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := p.svc.Disconnect(r.Context(), c.ID); err != nil {
		return err
	}
	p.back(w, r, "", web.Flash{Kind: "success", Message: c.Name + " is disconnected: its busy times no longer count."})
	return nil
}

// beginGoogle sends the provider to Google's consent page; the flow
// carries the page's {access}, so the callback returns to it.
func (p *PageHandler) beginGoogle(w http.ResponseWriter, r *http.Request) error {
	access := r.PathValue("access")
	if _, err := p.provider(r, access); err != nil {
		return err
	}
	if p.consent == nil {
		return &web.Problem{Status: http.StatusNotFound, ErrorPage: web.ErrorPage{Heading: "Page not found", Message: "Google Calendar is not set up here."}}
	}
	p.consent.Begin(w, r, access)
	return nil
}

func (p *PageHandler) finishGoogle(w http.ResponseWriter, r *http.Request) error {
	if p.consent == nil {
		return &web.Problem{Status: http.StatusNotFound, ErrorPage: web.ErrorPage{Heading: "Page not found", Message: "Google Calendar is not set up here."}}
	}
	tok, access, err := p.consent.Finish(w, r)
	pr, perr := p.provider(r, access)
	if perr != nil {
		return perr
	}
	r.SetPathValue("access", access)
	if err != nil {
		p.base.Logger.WarnContext(r.Context(), "calendars: google calendar consent refused", "provider", pr.ID, "error", err)
		p.back(w, r, "", web.Flash{Kind: "error", Message: "Google Calendar was not connected: the permission was not given. Try again."})
		return nil
	}
	if tok.RefreshToken == "" {
		p.back(w, r, "", web.Flash{Kind: "error", Message: "Google did not give lasting access. Remove this site's access in your Google account's settings and try again."})
		return nil
	}
	c, _, err := p.svc.Connect(r.Context(), Input{ProviderID: pr.ID, Kind: Google, Name: "Google Calendar", Password: tok.RefreshToken})
	if errors.Is(err, ErrUnreadable) {
		p.back(w, r, "", web.Flash{Kind: "error", Message: "Google Calendar could not be read. " + Reason(err)})
		return nil
	}
	if err != nil {
		return err
	}
	p.readNow(r, c.ID)
	p.back(w, r, "?edit="+strconv.FormatInt(c.ID, 10), web.Flash{Kind: "success",
		Message: "Google Calendar is connected. Choose the calendars to read, and where bookings go."})
	return nil
}
