package emaillist

import (
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
)

// Defaults of the handlers.
const (
	// AdminPrefixDefault is where [NewAdminHandler] serves the feeds.
	AdminPrefixDefault = "/admin/emailmarketing"
	// AbilityManageFeeds is the ability the RequestAuthorizer is asked for.
	AbilityManageFeeds = "manage-emailmarketing-feeds"
	// SubscribePrefixDefault is where [NewSubscribeHandler] serves
	// POST {prefix}/subscribers.
	SubscribePrefixDefault = "/emailmarketing"
	// SubscribeLimitDefault is the subscribe throttle: requests a minute
	// per client IP.
	SubscribeLimitDefault = 10
	// MsgSubscribeQueued is the 202 answer.
	MsgSubscribeQueued = "Subscribe queued."
)

// AdminHandlerOptions configures [NewAdminHandler]. Nil means the
// defaults.
type AdminHandlerOptions struct {
	// HTTPOptions: the logger, the rate limiter, the trusted proxies and
	// the base URL, shared by every handler.
	groundwork.HTTPOptions
	// Prefix: AdminPrefixDefault when empty.
	Prefix string
	// Ability is what the RequestAuthorizer is asked for; AbilityManageFeeds
	// when empty (so the API is never open).
	Ability string
}

// AdminHandler serves the feed administration (spec A1):
//
//	GET    {prefix}/feeds             ?form_id=N; by ID
//	POST   {prefix}/feeds             201 {"data": Feed}
//	GET    {prefix}/feeds/{id}
//	PUT    {prefix}/feeds/{id}        PATCH too: the sent fields merged into the feed
//	DELETE {prefix}/feeds/{id}        204
//	POST   {prefix}/feeds/{id}/test   {"values": {...}} → {"would_send", "reason", "payload"}
type AdminHandler struct {
	svc     *Service
	base    *api.Base
	auth    groundwork.RequestAuthorizer
	ability string
}

// NewAdminHandler returns the feed administration of svc. auth is asked
// about every request, before anything is changed, for the Ability and
// the feed the route names (a *Feed, never a nil one, resolved first so
// an unknown one is 404; an untyped nil for the list and a create);
// anything but Allowed is 403 without a body. opts may be nil.
func NewAdminHandler(svc *Service, auth groundwork.RequestAuthorizer, opts *AdminHandlerOptions) (*AdminHandler, error) {
	if svc == nil || auth == nil {
		return nil, errors.New("emaillist: new admin handler: a service and a RequestAuthorizer are required")
	}
	var o AdminHandlerOptions
	if opts != nil {
		o = *opts
	}
	b, err := api.NewBase(o.Prefix, AdminPrefixDefault, o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("emaillist: new admin handler: %w", err)
	}
	b.Errors = errorTable
	h := &AdminHandler{svc: svc, base: b, auth: auth, ability: o.Ability}
	if h.ability == "" {
		h.ability = AbilityManageFeeds
	}
	b.Handle("/feeds", api.Methods{http.MethodGet: b.Func(h.list), http.MethodPost: b.Func(h.create)})
	b.Handle("/feeds/{id}", api.Methods{http.MethodGet: h.withFeed(h.show), http.MethodPut: h.withFeed(h.update),
		http.MethodPatch: h.withFeed(h.update), http.MethodDelete: h.withFeed(h.delete)})
	b.Handle("/feeds/{id}/test", api.Methods{http.MethodPost: h.withFeed(h.test)})
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *AdminHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.base.ServeHTTP(w, r) }

// Routes lists the routes, as "METHOD /path/{param}".
func (h *AdminHandler) Routes() []string { return h.base.Routes() }

func (h *AdminHandler) allowed(w http.ResponseWriter, r *http.Request, f *Feed) bool {
	var resource any // nil, not a nil *Feed, for the list and a create
	if f != nil {
		resource = f
	}
	if h.auth.AuthorizeRequest(r, h.ability, resource) == groundwork.Allowed {
		return true
	}
	w.WriteHeader(http.StatusForbidden)
	return false
}

// withFeed resolves the feed (404 first, as route-model binding does),
// then asks the RequestAuthorizer about it.
func (h *AdminHandler) withFeed(next func(http.ResponseWriter, *http.Request, Feed) error) http.HandlerFunc {
	return h.base.Func(func(w http.ResponseWriter, r *http.Request) error {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil || id < 1 {
			return ErrNotFound
		}
		f, err := h.svc.Feed(r.Context(), id)
		if err != nil {
			return err
		}
		if !h.allowed(w, r, &f) {
			return nil
		}
		return next(w, r, f)
	})
}

func (h *AdminHandler) list(w http.ResponseWriter, r *http.Request) error {
	if !h.allowed(w, r, nil) {
		return nil
	}
	var formID int64
	if v := r.URL.Query().Get("form_id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id < 1 {
			return api.Invalid("form_id", api.MsgInteger("form_id"))
		}
		formID = id
	}
	list, err := h.svc.ListFeeds(r.Context(), formID)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, list)
	return nil
}

func (h *AdminHandler) create(w http.ResponseWriter, r *http.Request) error {
	if !h.allowed(w, r, nil) {
		return nil
	}
	in, err := api.DecodeInput(w, r, 0)
	if err != nil {
		return err
	}
	f := Feed{IsActive: true, ListTagIDs: []int64{}}
	v := &api.Validator{}
	for _, key := range []string{"form_id", "name", "field_map"} {
		if api.Absent(in[key]) {
			v.Add(key, api.MsgRequired(key))
		}
	}
	applyFeed(v, in, &f)
	if err := v.Err(); err != nil {
		return err
	}
	created, err := h.svc.CreateFeed(r.Context(), f)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusCreated, created)
	return nil
}

func (h *AdminHandler) show(w http.ResponseWriter, _ *http.Request, f Feed) error {
	reply.WriteData(w, http.StatusOK, f)
	return nil
}

func (h *AdminHandler) update(w http.ResponseWriter, r *http.Request, f Feed) error {
	in, err := api.DecodeInput(w, r, 0)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	applyFeed(v, in, &f)
	if err := v.Err(); err != nil {
		return err
	}
	updated, err := h.svc.UpdateFeed(r.Context(), f)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, updated)
	return nil
}

func (h *AdminHandler) delete(w http.ResponseWriter, r *http.Request, f Feed) error {
	if err := h.svc.DeleteFeed(r.Context(), f.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *AdminHandler) test(w http.ResponseWriter, r *http.Request, f Feed) error {
	body, err := api.ReadJSONBody(w, r, 0)
	if err != nil {
		return err
	}
	var req struct {
		Values any `json:"values"`
	}
	if err := api.DecodeJSONBytes(body, &req); err != nil {
		return err
	}
	values, ok := req.Values.(map[string]any)
	if !ok {
		if list, isList := req.Values.([]any); isList && len(list) == 0 {
			values, ok = map[string]any{}, true
		}
	}
	if !ok {
		msg := api.MsgRequired("values")
		if req.Values != nil {
			msg = api.MsgObject("values")
		}
		return api.Invalid("values", msg)
	}
	reply.WriteJSON(w, http.StatusOK, h.svc.DryRun(r.Context(), f, values))
	return nil
}

// applyFeed copies the sent keys of in into f, adding type mistakes to v
// (the rules themselves are ValidateFeed's).
func applyFeed(v *api.Validator, in map[string]any, f *Feed) {
	if val, ok := in["form_id"]; ok && val != nil {
		if n, ok := api.Int(val); ok {
			f.FormID = n
		} else {
			v.Add("form_id", api.MsgInteger("form_id"))
		}
	}
	v.SetString(in, "name", &f.Name)
	v.SetOptionalInt(in, "list_form_id", &f.ListFormID)
	if val, ok := in["list_tag_ids"]; ok {
		f.ListTagIDs = append([]int64{}, intList(v, "list_tag_ids", val)...)
	}
	if val, ok := in["field_map"]; ok {
		if m, ok := v.Object("field_map", val, true); ok {
			f.FieldMap = map[string]string{}
			for _, dest := range slices.Sorted(maps.Keys(m)) {
				switch s := m[dest].(type) {
				case string:
					f.FieldMap[dest] = s
				case nil:
					f.FieldMap[dest] = ""
				default:
					v.Add("field_map."+dest, api.MsgString("field_map."+dest))
				}
			}
		}
	}
	if _, ok := in["conditional_logic"]; ok {
		var logic *ConditionalLogic
		v.SetObject(in, "conditional_logic", &logic)
		f.ConditionalLogic = logic
	}
	v.SetBool(in, "is_active", &f.IsActive)
}

// intList reads a JSON array of whole numbers, adding a message to v for
// val not an array and for each item not a whole number.
func intList(v *api.Validator, key string, val any) []int64 {
	items, ok := v.Array(key, val, false, 0)
	if !ok {
		return nil
	}
	var out []int64
	for i, item := range items {
		n, ok := api.Int(item)
		if !ok {
			k := key + "." + strconv.Itoa(i)
			v.Add(k, api.MsgInteger(k))
			continue
		}
		out = append(out, n)
	}
	return out
}

// SubscribeHandlerOptions configures [NewSubscribeHandler].
type SubscribeHandlerOptions struct {
	// HTTPOptions: the logger, the rate limiter, the trusted proxies and
	// the base URL, shared by every handler.
	groundwork.HTTPOptions
	// Prefix: SubscribePrefixDefault when empty.
	Prefix string
	// Limit is the requests a minute per client IP; SubscribeLimitDefault
	// when zero or less: the throttle cannot be removed, only tuned or
	// replaced with Throttle.
	Limit int
	// Throttle, when set, replaces the built-in throttle: a middleware of
	// the host's own that must limit the route (it is not checked).
	Throttle func(http.Handler) http.Handler
}

// SubscribeHandler serves the public subscribe (spec A2):
//
//	POST {prefix}/subscribers   202 {"message": "Subscribe queued."}
type SubscribeHandler struct {
	svc     *Service
	base    *api.Base
	handler http.Handler
}

// NewSubscribeHandler returns the public subscribe of svc.
func NewSubscribeHandler(svc *Service, opts *SubscribeHandlerOptions) (*SubscribeHandler, error) {
	if svc == nil {
		return nil, errors.New("emaillist: new subscribe handler: service is nil")
	}
	var o SubscribeHandlerOptions
	if opts != nil {
		o = *opts
	}
	b, err := api.NewBase(o.Prefix, SubscribePrefixDefault, o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("emaillist: new subscribe handler: %w", err)
	}
	b.Errors = errorTable
	h := &SubscribeHandler{svc: svc, base: b}
	var route http.Handler = b.Func(h.subscribe)
	if o.Throttle != nil {
		route = o.Throttle(route)
	} else {
		limit := o.Limit
		if limit <= 0 {
			limit = SubscribeLimitDefault
		}
		t := &throttle.Throttle{Name: "emaillist_subscribe", Limiter: b.Throttle.Limiter, Limit: limit, Window: time.Minute,
			TrustedProxies: o.TrustedProxies, Now: svc.o.Now, Logger: b.Logger,
			Key: func(r *http.Request) string { return "ip:" + proxies.ClientIPString(r, o.TrustedProxies) }}
		route = t.Wrap(route)
	}
	b.Handle("/subscribers", api.Methods{http.MethodPost: route.ServeHTTP})
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *SubscribeHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.base.ServeHTTP(w, r) }

// Routes lists the routes, as "METHOD /path/{param}".
func (h *SubscribeHandler) Routes() []string { return h.base.Routes() }

func (h *SubscribeHandler) subscribe(w http.ResponseWriter, r *http.Request) error {
	in, err := api.DecodeInput(w, r, 0)
	if err != nil {
		return err
	}
	var req SubscribeRequest
	v := &api.Validator{}
	v.SetOptionalInt(in, "feed_id", &req.FeedID)
	v.SetOptionalInt(in, "list_form_id", &req.ListFormID)
	v.SetString(in, "email", &req.Email)
	v.SetOptionalString(in, "first_name", &req.FirstName)
	if val, ok := in["fields"]; ok && val != nil {
		if m, ok := v.Object("fields", val, false); ok {
			req.Fields = make(map[string]*string, len(m))
			for k, fv := range m {
				switch s := fv.(type) {
				case nil:
					req.Fields[k] = nil
				case string:
					req.Fields[k] = &s
				default:
					v.Add("fields."+k, api.MsgString("fields."+k))
				}
			}
		}
	}
	if val, ok := in["tags"]; ok && val != nil {
		req.Tags = intList(v, "tags", val)
	}
	if !v.Empty() {
		// The rules too, so one answer names every mistake.
		var rules *ValidationError
		if errors.As(req.validate(), &rules) {
			for _, name := range rules.FieldNames() {
				if !v.Has(name) {
					for _, msg := range rules.Fields()[name] {
						v.Add(name, msg)
					}
				}
			}
		}
		return v.Err()
	}
	if err := h.svc.Subscribe(r.Context(), req); err != nil {
		return err
	}
	reply.WriteMessage(w, http.StatusAccepted, MsgSubscribeQueued)
	return nil
}

//go:embed openapi.json
var openAPIDescription []byte

// OpenAPI describes the feed administration, under the handler's prefix,
// as an OpenAPI 3.1 part to merge into a host's document; see
// groundwork.OpenAPI.
func (h *AdminHandler) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIDescription, h.base.Prefix, AdminPrefixDefault, h.Routes())
}

// OpenAPI describes the subscribe route, under the handler's prefix, as
// an OpenAPI 3.1 part; see groundwork.OpenAPI.
func (h *SubscribeHandler) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIDescription, h.base.Prefix, SubscribePrefixDefault, h.Routes())
}
