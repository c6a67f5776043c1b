package reporting

import (
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/openapi"
)

// CapabilityView is what a signed-in user needs to see the reports;
// AbilityView what a bearer token needs.
const (
	CapabilityView = "view_search_reporting"
	AbilityView    = "reporting:view"
)

// HandlerOptions configures [NewHandler]. Nil means the defaults.
type HandlerOptions struct {
	// HTTPOptions: the logger, the rate limiter, the trusted proxies and
	// the base URL, shared by every handler.
	groundwork.HTTPOptions
	// SharedLinks, when set, adds the routes that make, list and revoke
	// shared links (served by the Dashboard at SharedPath, which is
	// SharedPathDefault when "").
	SharedLinks SharedLinkStore
	SharedPath  string
	// EmailReports, when set, adds the routes that choose who gets the
	// weekly and monthly reports by email.
	EmailReports *EmailReports
}

// Handler serves the report routes:
//
//	GET /search-reporting/performance   ?days (28; 1..490)
//	GET /search-reporting/top-queries   ?days&limit (25; 1..1000)
//	GET /search-reporting/top-pages     ?days&limit
//	GET /analytics-reporting/overview   ?days (30; 1..730)&property_id
//	GET /analytics-reporting/top-content ?days&limit (10; 1..100)&property_id
//	GET /analytics-reporting/sources    ?days&limit (first-party source)
//	GET /analytics-reporting/devices    ?days&limit (first-party source)
//
// The analytics routes take ?page=, ?source= and ?device=, alone or
// together: the report counts only the views with all of them (422
// bad_filter where the source cannot).
//
// Errors are {"error", "message"}: 401 unauthenticated, 403 forbidden,
// 409 not_connected, 501 base_not_installed (no source), 502
// reporting_error (never the provider's body, which is logged).
type Handler struct {
	svc  *Service
	auth groundwork.RequestAuthorizer
	base *api.Base
	o    HandlerOptions
}

// NewHandler returns the report routes of svc; auth decides who may see
// them: it is asked for AbilityView, with no resource (a signed-in user's
// capability, CapabilityView in the reference server, is the host's to
// map). Unauthenticated answers 401, Forbidden 403.
func NewHandler(svc *Service, auth groundwork.RequestAuthorizer, opts *HandlerOptions) (*Handler, error) {
	if svc == nil || auth == nil {
		return nil, errors.New("reporting: new handler: a Service and a RequestAuthorizer are required")
	}
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	b, err := api.NewBase("", "", o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("reporting: new handler: %w", err)
	}
	h := &Handler{svc: svc, auth: auth, base: b, o: o}
	for _, name := range []string{"performance", "top-queries", "top-pages"} {
		b.Handle("/search-reporting/"+name, api.Methods{http.MethodGet: b.Func(h.route(searchFamily, name))})
	}
	for _, name := range []string{"overview", "top-content", "sources", "devices", "browsers", "operating-systems", "countries", "entry-pages", "exit-pages", "campaigns", "event-properties", "goals", "funnel"} {
		b.Handle("/analytics-reporting/"+name, api.Methods{http.MethodGet: b.Func(h.route(analyticsFamily, name))})
	}
	h.goalRoutes(b)
	h.hostRoutes(b)
	if o.SharedLinks != nil {
		h.sharedLinkRoutes(b)
	}
	if o.EmailReports != nil {
		h.emailReportRoutes(b)
	}
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.base.ServeHTTP(w, r) }

// Routes lists the routes, as "METHOD /path".
func (h *Handler) Routes() []string { return h.base.Routes() }

// Enabled reports whether any source is configured.
func (h *Handler) Enabled() bool { return h.svc.Enabled() }

type errorBody struct {
	Error         string `json:"error"`
	Message       string `json:"message"`
	BaseInstalled *bool  `json:"baseInstalled,omitempty"`
}

// reportError is an answer in the routes' {"error", "message"} envelope;
// err is the cause, for the log.
func reportError(status int, code, msg string, err error) *api.Error {
	body := errorBody{Error: code, Message: msg}
	if code == "base_not_installed" {
		f := false
		body.BaseInstalled = &f
	}
	return &api.Error{Status: status, Message: msg, Body: body, Err: err}
}

func (h *Handler) route(fam family, name string) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := h.allow(r, fam, AbilityView, "You may not view these reports."); err != nil {
			return err
		}
		v := r.URL.Query()
		q := query{days: clamp(v.Get("days"), fam.defDays, fam.maxDays), limit: clamp(v.Get("limit"), fam.defLimit, fam.maxLimit)}
		if fam.name == "analytics" {
			q.property = v.Get("property_id")
			q.by = v.Get("by")
			if name == "funnel" {
				q.steps = v["step"]
			}
			if name == "event-properties" {
				if q.event = strings.TrimSpace(v.Get("event")); q.event == "" {
					return reportError(http.StatusUnprocessableEntity, "bad_event", "Name the event: ?event=signup.", nil)
				}
			}
			for _, dim := range FilterDims { // together: views with all of them
				if value := v.Get(string(dim)); value != "" {
					q.filters = append(q.filters, Filter{Dim: dim, Value: value})
				}
			}
		}
		body, err := h.svc.report(r.Context(), fam, name, q)
		if err != nil {
			return sourceError(fam, err)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
		return nil
	}
}

// sourceError is the answer to a report that failed: a missing source or
// breakdown is 501, a connection to make or renew 409 or 502, a source's
// failure 502 with its safe message (the provider's own words only in
// the log).
func sourceError(fam family, err error) error {
	var se *SourceError
	switch {
	case errors.Is(err, ErrNoSource):
		return reportError(http.StatusNotImplemented, "base_not_installed", fam.missing, err)
	case errors.Is(err, ErrNotConnected):
		return reportError(http.StatusConflict, "not_connected", fam.connect, err)
	case errors.Is(err, ErrReconnect):
		return reportError(http.StatusBadGateway, "reporting_error", fam.reconnect, err)
	case errors.Is(err, ErrBadGoal) || errors.Is(err, ErrGoalNotFound):
		msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), ErrBadGoal.Error()+": "), ErrGoalNotFound.Error()+": ")
		return reportError(http.StatusUnprocessableEntity, "bad_funnel", strings.ToUpper(msg[:1])+msg[1:]+".", err)
	case errors.Is(err, ErrBadFilter):
		return reportError(http.StatusUnprocessableEntity, "bad_filter", "The analytics source cannot narrow the report that way.", err)
	case errors.Is(err, ErrNoGoals):
		return reportError(http.StatusNotImplemented, "base_not_installed", "The analytics source keeps no goals.", err)
	case errors.Is(err, errNoFunnels):
		return reportError(http.StatusNotImplemented, "base_not_installed", "The analytics source draws no funnels.", err)
	case errors.Is(err, errNoProperties):
		return reportError(http.StatusNotImplemented, "base_not_installed", "The analytics source keeps no event properties.", err)
	case errors.Is(err, errNoBreakdown):
		return reportError(http.StatusNotImplemented, "base_not_installed", "The analytics source has no breakdown by source or device.", err)
	case errors.As(err, &se):
		return reportError(http.StatusBadGateway, "reporting_error", se.Message, err)
	default:
		return reportError(http.StatusBadGateway, "reporting_error", "The report could not be made. Try again in a moment.", err)
	}
}

//go:embed openapi.json
var openAPIDescription []byte

// OpenAPI describes the report routes as an OpenAPI 3.1 part to merge
// into a host's document; see groundwork.OpenAPI.
func (h *Handler) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIDescription, "", "", h.Routes())
}
