package webhooks

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/idempotency"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/paging"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/store"
)

// The abilities of the subscription API.
const (
	AbilityViewAny = "webhookSubscription.viewAny"
	AbilityView    = "webhookSubscription.view"
	AbilityCreate  = "webhookSubscription.create"
	AbilityUpdate  = "webhookSubscription.update"
	AbilityDelete  = "webhookSubscription.delete"
	AbilityReplay  = "webhookSubscription.replay"
)

// PrefixDefault is where the commerce API lives.
const PrefixDefault = "/api/ecommerce/v1"

// HandlerOptions configures [NewHandler]. Tokens is required.
type HandlerOptions struct {
	// HTTPOptions: BaseURL makes list links absolute (the request's own
	// host when nil).
	groundwork.HTTPOptions
	// Prefix is where the handler is mounted; PrefixDefault when empty.
	Prefix string
	// Authorizer decides abilities; without one, the token's own do.
	Authorizer groundwork.Authorizer
	// Idempotency keeps Idempotency-Key records (store.NewIdempotency);
	// without it the header is ignored.
	Idempotency *store.Idempotency
	// PerPage is the default page size of lists (groundwork.PerPageDefault, 15).
	PerPage int
}

// Handler serves the webhook subscription API under its prefix,
// REST at /admin/webhook-subscriptions and GraphQL at /graphql, every
// route behind a bearer token. Routes match the whole path, prefix
// included, so mount the handler at its prefix with a trailing slash, and
// name any other prefix in HandlerOptions.Prefix too (not with
// http.StripPrefix):
//
//	mux.Handle("/api/ecommerce/v1/", h)
//
//	h, err := webhooks.NewHandler(svc, tokens, &webhooks.HandlerOptions{Prefix: "/hooks"})
//	mux.Handle("/hooks/", h) // /hooks/admin/webhook-subscriptions, /hooks/graphql
//
// A mux answers the bare prefix ("/hooks") with a 307 redirect to
// "/hooks/".
type Handler struct {
	svc   *Service
	opts  HandlerOptions
	base  *api.Base
	guard *api.Guard
	idem  *idempotency.Idempotent
	gql   *graphQL
}

// NewHandler returns the subscription API for svc; tokens checks the
// bearer token of every request. opts may be nil.
func NewHandler(svc *Service, tokens groundwork.TokenVerifier, opts *HandlerOptions) (*Handler, error) {
	if svc == nil || tokens == nil {
		return nil, errors.New("webhooks: new handler: a service and a token verifier are required")
	}
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	b, err := api.NewBase(o.Prefix, PrefixDefault, o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("webhooks: new handler: %w", err)
	}
	b.Errors = errorTable
	h := &Handler{svc: svc, opts: o, base: b, guard: &api.Guard{Tokens: tokens, Authorizer: o.Authorizer, Logger: b.Logger}}
	if o.Idempotency != nil {
		h.idem = &idempotency.Idempotent{Store: o.Idempotency, Redact: withoutSecret, TrustedProxies: o.TrustedProxies, Logger: b.Logger}
	}
	if h.gql, err = newGraphQL(h); err != nil {
		return nil, fmt.Errorf("webhooks: new handler: %w", err)
	}
	h.routes()
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.base.ServeHTTP(w, r) }

// Routes lists the routes the handler serves, as "METHOD /path/{param}".
func (h *Handler) Routes() []string { return h.base.Routes() }

func (h *Handler) route(path string, m api.Methods) {
	h.base.Handle(path, m)
}

// admin wraps fn with the bearer check for ability; a token bound to an
// owner acts under that owner's scope (ScopeToOwner).
func (h *Handler) admin(ability string, fn api.HandlerFunc) http.HandlerFunc {
	return h.base.Func(func(w http.ResponseWriter, r *http.Request) error {
		ctx, err := h.guard.Check(r, ability)
		if err != nil {
			return err
		}
		return fn(w, r.WithContext(scopedFor(ctx)))
	})
}

// idempotent guards a write with the Idempotency-Key header.
func (h *Handler) idempotent(route string, fn api.HandlerFunc) api.HandlerFunc {
	if h.idem == nil {
		return fn
	}
	return api.Std(h.idem.Wrap(route, h.base.Func(fn)))
}

func (h *Handler) routes() {
	const subs = "/admin/webhook-subscriptions"
	h.route(subs, api.Methods{
		http.MethodGet:  h.admin(AbilityViewAny, h.list),
		http.MethodPost: h.admin(AbilityCreate, h.idempotent("POST "+subs, h.create)),
	})
	update := h.admin(AbilityUpdate, h.idempotent("PATCH "+subs+"/{subscription}", h.update))
	h.route(subs+"/{subscription}", api.Methods{
		http.MethodGet:    h.admin(AbilityView, h.show),
		http.MethodPatch:  update,
		http.MethodPut:    update,
		http.MethodDelete: h.admin(AbilityDelete, h.delete),
	})
	h.route(subs+"/{subscription}/deliveries", api.Methods{http.MethodGet: h.admin(AbilityView, h.deliveries)})
	h.route(subs+"/{subscription}/deliveries/{delivery}", api.Methods{http.MethodGet: h.admin(AbilityView,
		onDelivery(h, http.StatusOK, h.svc.Delivery))})
	h.route(subs+"/{subscription}/deliveries/{delivery}/attempts", api.Methods{http.MethodGet: h.admin(AbilityView,
		onDelivery(h, http.StatusOK, h.svc.Attempts))})
	h.route(subs+"/{subscription}/replay/{delivery}", api.Methods{http.MethodPost: h.admin(AbilityReplay,
		h.idempotent("POST "+subs+"/{subscription}/replay/{delivery}", onDelivery(h, http.StatusAccepted, h.svc.Replay)))})
	h.route(subs+"/{subscription}/replay-parked", api.Methods{http.MethodPost: h.admin(AbilityReplay,
		h.idempotent("POST "+subs+"/{subscription}/replay-parked", h.replayParked))})
	h.route(subs+"/{subscription}/rotate-secret", api.Methods{http.MethodPost: h.admin(AbilityUpdate,
		h.idempotent("POST "+subs+"/{subscription}/rotate-secret", h.rotate))})
	h.route("/admin/webhook-event-types", api.Methods{http.MethodGet: h.admin(AbilityViewAny, h.eventTypes)})
	h.route("/graphql", api.Methods{http.MethodPost: h.base.Func(h.gql.serve)})
}

// id reads a numeric path value; anything else is a 404.
func (h *Handler) id(r *http.Request, name string) (int64, error) {
	n, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || n <= 0 {
		return 0, ErrNotFound
	}
	return n, nil
}

// withoutSecret drops data.secret from a stored response: a replay never
// shows it.
func withoutSecret(body []byte) []byte {
	var doc map[string]json.RawMessage
	if json.Unmarshal(body, &doc) != nil {
		return body
	}
	var data map[string]json.RawMessage
	if json.Unmarshal(doc["data"], &data) != nil {
		return body
	}
	if _, ok := data["secret"]; !ok {
		return body
	}
	delete(data, "secret")
	raw, err := json.Marshal(data)
	if err != nil {
		return body
	}
	doc["data"] = raw
	out, err := json.Marshal(doc)
	if err != nil {
		return body
	}
	return out
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) error {
	v := &api.Validator{}
	p := paging.ParsePage(r, h.opts.PerPage, v)
	q := r.URL.Query()
	query := SubscriptionQuery{Offset: p.Offset(), Limit: p.PerPage}
	switch s := q.Get("filter[is_active]"); s {
	case "":
	case "true", "1", "false", "0":
		b := s == "true" || s == "1"
		query.Active = &b
	default:
		v.Add("filter.is_active", api.MsgBoolean("filter.is_active"))
	}
	if o, ok := q["filter[owner]"]; ok {
		query.Owner = &o[0]
	}
	switch s := q.Get("sort"); s {
	case "", "name", "-name", "created_at", "-created_at", "id", "-id":
		query.Sort = s
	default:
		v.Add("sort", api.MsgSelected("sort"))
	}
	include := false
	switch s := q.Get("include"); s {
	case "":
	case "deliveries":
		include = true
	default:
		v.Add("include", api.MsgSelected("include"))
	}
	if err := v.Err(); err != nil {
		return err
	}
	list, total, err := h.svc.Subscriptions(r.Context(), query, include)
	if err != nil {
		return err
	}
	reply.WriteJSON(w, http.StatusOK, paging.NewPage(list, p, total, paging.AbsoluteURL(r, h.opts.BaseURL)))
	return nil
}

// input reads a subscription's JSON body: each field optional, of its
// type.
func (h *Handler) input(w http.ResponseWriter, r *http.Request) (SubscriptionInput, error) {
	in, err := api.DecodeInput(w, r, 0)
	if err != nil {
		return SubscriptionInput{}, err
	}
	var out SubscriptionInput
	v := &api.Validator{}
	str := func(key string) *string {
		val, ok := in[key]
		if !ok || val == nil {
			return nil
		}
		s, ok := val.(string)
		if !ok {
			v.Add(key, api.MsgString(key))
			return nil
		}
		return &s
	}
	boolean := func(key string) *bool {
		val, ok := in[key]
		if !ok || val == nil {
			return nil
		}
		b, ok := api.Bool(val)
		if !ok {
			v.Add(key, api.MsgBoolean(key))
			return nil
		}
		return &b
	}
	out.Owner, out.Name, out.URL, out.Secret = str("owner"), str("name"), str("url"), str("secret")
	if _, given := in["description"]; given {
		out.Description = str("description")
		if out.Description == nil { // null or "" (made null by the trimming): none
			out.Description = new(string)
		}
	}
	if raw, ok := in["headers"]; ok {
		out.Headers = map[string]string{} // null or {}: none
		if raw != nil {
			obj, isObject := raw.(map[string]any)
			if !isObject {
				v.Add("headers", "The headers field must be an object of names to values.")
			}
			for name, val := range obj {
				s, isString := val.(string)
				if !isString {
					v.Add("headers."+name, api.MsgString("headers."+name))
					continue
				}
				out.Headers[name] = s
			}
		}
	}
	if raw, ok := in["channels"]; ok {
		out.Channels = []string{} // null or []: none
		if raw != nil {
			items, ok := v.Array("channels", raw, false, MaxChannels)
			for i, it := range items {
				s, isString := it.(string)
				if !ok || !isString {
					v.Add(fmt.Sprintf("channels.%d", i), api.MsgString(fmt.Sprintf("channels.%d", i)))
					continue
				}
				out.Channels = append(out.Channels, s)
			}
		}
	}
	if raw, ok := in["rate_limit"]; ok {
		n := 0
		if raw != nil {
			f, isNumber := raw.(float64)
			if !isNumber || f != math.Trunc(f) || f < -1 || f > MaxRateLimit+1 {
				v.Add("rate_limit", fmt.Sprintf("The rate_limit field must be a whole number of deliveries a second, 0 to %d.", MaxRateLimit))
			}
			n = int(f)
		}
		out.RateLimit = &n
	}
	out.IsActive, out.StandardWebhooks = boolean("is_active"), boolean("standard_webhooks")
	if raw, ok := in["events"]; ok && raw != nil {
		if a, isArray := raw.([]any); isArray && len(a) == 0 {
			out.Events = []string{} // given and empty: refused by the rules
		}
		items, ok := v.Array("events", raw, false, 100)
		if ok {
			out.Events = []string{}
			for i, it := range items {
				s, ok := it.(string)
				if !ok {
					v.Add(fmt.Sprintf("events.%d", i), api.MsgString(fmt.Sprintf("events.%d", i)))
					continue
				}
				out.Events = append(out.Events, s)
			}
		}
	}
	if err := v.Err(); err != nil {
		return out, err
	}
	return out, nil
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	in, err := h.input(w, r)
	if err != nil {
		return err
	}
	sub, err := h.svc.CreateSubscription(r.Context(), in)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusCreated, sub)
	return nil
}

func (h *Handler) show(w http.ResponseWriter, r *http.Request) error {
	id, err := h.id(r, "subscription")
	if err != nil {
		return err
	}
	sub, err := h.svc.Subscription(r.Context(), id)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, sub)
	return nil
}

func (h *Handler) update(w http.ResponseWriter, r *http.Request) error {
	id, err := h.id(r, "subscription")
	if err != nil {
		return err
	}
	if _, err := h.svc.Subscription(r.Context(), id); err != nil {
		return err
	}
	in, err := h.input(w, r)
	if err != nil {
		return err
	}
	sub, err := h.svc.UpdateSubscription(r.Context(), id, in)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, sub)
	return nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	id, err := h.id(r, "subscription")
	if err != nil {
		return err
	}
	sub, err := h.svc.Subscription(r.Context(), id)
	if err == nil {
		err = h.svc.DeleteSubscription(r.Context(), id)
	}
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, sub)
	return nil
}

func (h *Handler) deliveries(w http.ResponseWriter, r *http.Request) error {
	id, err := h.id(r, "subscription")
	if err != nil {
		return err
	}
	v := &api.Validator{}
	p := paging.ParsePage(r, h.opts.PerPage, v)
	q := r.URL.Query()
	query := DeliveryQuery{SubscriptionID: id, Event: q.Get("filter[event]"), Offset: p.Offset(), Limit: p.PerPage}
	switch st := Status(q.Get("filter[status]")); st {
	case "", StatusPending, StatusRetrying, StatusDelivered, StatusFailed, StatusParked:
		query.Status = st
	default:
		v.Add("filter.status", api.MsgSelected("filter.status"))
	}
	switch s := q.Get("sort"); s {
	case "", "id", "-id", "created_at", "-created_at":
		query.Sort = s
	default:
		v.Add("sort", api.MsgSelected("sort"))
	}
	if err := v.Err(); err != nil {
		return err
	}
	list, total, err := h.svc.Deliveries(r.Context(), query)
	if err != nil {
		return err
	}
	reply.WriteJSON(w, http.StatusOK, paging.NewPage(list, p, total, paging.AbsoluteURL(r, h.opts.BaseURL)))
	return nil
}

// onDelivery answers a route of one delivery of one subscription with
// do's result, or its error.
func onDelivery[T any](h *Handler, status int, do func(ctx context.Context, sub, id int64) (T, error)) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		sub, err := h.id(r, "subscription")
		if err != nil {
			return err
		}
		id, err := h.id(r, "delivery")
		if err != nil {
			return err
		}
		d, err := do(r.Context(), sub, id)
		if err != nil {
			return err
		}
		reply.WriteData(w, status, d)
		return nil
	}
}

func (h *Handler) replayParked(w http.ResponseWriter, r *http.Request) error {
	sub, err := h.id(r, "subscription")
	if err != nil {
		return err
	}
	n, err := h.svc.ReplayParked(r.Context(), sub)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusAccepted, map[string]int{"requeued": n})
	return nil
}

// rotate gives a subscription a new secret, the old one signing beside it
// for the grace (grace_seconds, the service's default when absent).
func (h *Handler) rotate(w http.ResponseWriter, r *http.Request) error {
	id, err := h.id(r, "subscription")
	if err != nil {
		return err
	}
	in := RotateInput{}
	if r.ContentLength != 0 {
		body, err := api.DecodeInput(w, r, 0)
		if err != nil {
			return err
		}
		v := &api.Validator{}
		if raw, ok := body["secret"]; ok && raw != nil {
			s, isString := raw.(string)
			if !isString {
				v.Add("secret", api.MsgString("secret"))
			}
			in.Secret = &s
		}
		if raw, ok := body["grace_seconds"]; ok && raw != nil {
			n, isNumber := raw.(float64)
			switch {
			case !isNumber || n != math.Trunc(n):
				v.Add("grace_seconds", api.MsgInteger("grace_seconds"))
			case n < 0 || n > SecretGraceMax.Seconds():
				v.Add("grace_seconds", fmt.Sprintf("The grace_seconds field must be between 0 and %d.", int(SecretGraceMax.Seconds())))
			default:
				grace := time.Duration(n) * time.Second
				in.Grace = &grace
			}
		}
		if err := v.Err(); err != nil {
			return err
		}
	}
	sub, err := h.svc.RotateSecret(r.Context(), id, in)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, sub)
	return nil
}

//go:embed openapi.json
var openAPIDescription []byte

// eventTypes answers the event catalogue: each event's description, the
// JSON Schema of its data and an example.
func (h *Handler) eventTypes(w http.ResponseWriter, r *http.Request) error {
	reply.WriteData(w, http.StatusOK, h.svc.EventTypes())
	return nil
}

// OpenAPI describes the subscription API, under the handler's prefix, as
// an OpenAPI 3.1 part to merge into a host's document (see
// groundwork.OpenAPI), and the deliveries it sends: each event of the
// catalogue under the document's webhooks, its body the envelope with
// the event's data schema and example.
func (h *Handler) OpenAPI() (*groundwork.OpenAPI, error) {
	part, err := openapi.Part(openAPIDescription, h.base.Prefix, PrefixDefault, h.Routes())
	if err != nil {
		return nil, err
	}
	part.Webhooks = map[string]map[string]json.RawMessage{}
	for _, t := range h.svc.EventTypes() {
		content := map[string]any{"schema": EnvelopeSchema(t)}
		if len(t.Example) > 0 {
			content["example"] = map[string]any{"id": "01JD8Z5Q4N6F5T2Y9V3K7M1R0A", "event": t.Name, "created_at": "2026-11-22T10:00:00+00:00",
				"data": t.Example}
		}
		op, err := json.Marshal(map[string]any{
			"summary":     t.Description,
			"description": "Posted to each endpoint that takes " + t.Name + ", signed: X-Platform-Signature (or the Standard Webhooks headers), X-Platform-Event, X-Platform-Delivery and X-Request-Id.",
			"operationId": "webhookEvent" + operationName(t.Name),
			"tags":        []string{"webhooks"},
			"requestBody": map[string]any{"required": true, "content": map[string]any{"application/json": content}},
			"responses": map[string]any{
				"2XX":     map[string]any{"description": "Received: the delivery is done."},
				"default": map[string]any{"description": "Not received: the delivery is tried again on its backoff."}},
		})
		if err != nil {
			return nil, err
		}
		part.Webhooks[t.Name] = map[string]json.RawMessage{"post": op}
	}
	return part, nil
}

// operationName is an event's name in camel case: "order.placed" →
// "OrderPlaced".
func operationName(event string) string {
	var b strings.Builder
	for w := range strings.FieldsFuncSeq(event, func(r rune) bool { return r == '.' || r == '_' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}
