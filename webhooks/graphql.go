package webhooks

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	graphql "github.com/graph-gophers/graphql-go"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/paging"
	"github.com/groundwork-go/groundwork/internal/reply"
)

// graphQLSchema: the subscription operations as GraphQL, with the REST
// API's names, rules and abilities (each field checks its own).
const graphQLSchema = `
schema {
	query: Query
	mutation: Mutation
}

type Query {
	webhookSubscriptions: [WebhookSubscription!]!
	webhookSubscription(id: ID!): WebhookSubscription
}

type Mutation {
	createWebhookSubscription(name: String!, url: String!, events: [String!]!, secret: String, is_active: Boolean,
		standard_webhooks: Boolean, owner: String, description: String, headers: [WebhookHeaderInput!], rate_limit: Int,
		channels: [String!], clientMutationId: String): WebhookSubscriptionPayload!
	updateWebhookSubscription(id: ID!, name: String, url: String, events: [String!], secret: String, is_active: Boolean,
		standard_webhooks: Boolean, description: String, headers: [WebhookHeaderInput!], rate_limit: Int,
		channels: [String!], clientMutationId: String): WebhookSubscriptionPayload!
	deleteWebhookSubscription(id: ID!, clientMutationId: String): DeleteWebhookSubscriptionPayload!
	rotateWebhookSubscriptionSecret(id: ID!, secret: String, grace_seconds: Int, clientMutationId: String): WebhookSubscriptionPayload!
	replayWebhookDelivery(subscription_id: ID!, delivery_id: ID!, clientMutationId: String): ReplayWebhookDeliveryPayload!
}

type WebhookSubscription {
	id: ID!
	owner: String!
	name: String!
	url: String!
	events: [String!]!
	secret: String
	is_active: Boolean!
	standard_webhooks: Boolean!
	consecutive_failures: Int!
	last_success_at: String
	last_failure_at: String
	created_at: String!
	updated_at: String!
	previous_secret_expires_at: String
	description: String!
	headers: [WebhookHeader!]!
	rate_limit: Int!
	channels: [String!]!
}

type WebhookHeader {
	name: String!
	value: String!
}

input WebhookHeaderInput {
	name: String!
	value: String!
}

type WebhookDelivery {
	id: ID!
	subscription_id: ID!
	event: String!
	event_id: String!
	status: String!
	attempts: Int!
	next_attempt_at: String
	response_status: Int
	delivered_at: String
	created_at: String!
}

type FieldError {
	field: String!
	message: String!
}

type WebhookSubscriptionPayload {
	webhook_subscription: WebhookSubscription
	errors: [FieldError!]!
	clientMutationId: String
}

type DeleteWebhookSubscriptionPayload {
	deleted_id: ID
	errors: [FieldError!]!
	clientMutationId: String
}

type ReplayWebhookDeliveryPayload {
	delivery: WebhookDelivery
	errors: [FieldError!]!
	clientMutationId: String
}
`

// graphQL serves POST {prefix}/graphql.
type graphQL struct {
	h      *Handler
	schema *graphql.Schema
}

func newGraphQL(h *Handler) (*graphQL, error) {
	schema, err := graphql.ParseSchema(graphQLSchema, &gqlRoot{h: h}, graphql.UseFieldResolvers(), graphql.MaxDepth(8),
		graphql.MaxQueryLength(20000))
	if err != nil {
		return nil, err
	}
	return &graphQL{h: h, schema: schema}, nil
}

func (g *graphQL) serve(w http.ResponseWriter, r *http.Request) error {
	// Any valid token may ask; each field checks its own ability.
	ctx, err := g.h.guard.Check(r, "")
	if err != nil {
		return err
	}
	ctx = scopedFor(ctx) // a token bound to an owner sees its own alone
	var req struct {
		Query         string         `json:"query"`
		OperationName string         `json:"operationName"`
		Variables     map[string]any `json:"variables"`
	}
	if err := api.DecodeJSON(w, r, &req, 0); err != nil {
		return err
	}
	if req.Query == "" {
		return api.Invalid("query", api.MsgRequired("query"))
	}
	reply.WriteJSON(w, http.StatusOK, g.schema.Exec(ctx, req.Query, req.OperationName, req.Variables))
	return nil
}

type gqlRoot struct{ h *Handler }

// can checks an ability of the caller the request's token named.
func (q *gqlRoot) can(ctx context.Context, ability string) error {
	c, ok := groundwork.CallerFrom(ctx)
	if !ok {
		return errors.New(reply.MsgUnauthenticated)
	}
	if q.h.guard.Authorizer != nil {
		allowed, err := q.h.guard.Authorizer.Authorize(ctx, c.ID, c.Abilities, ability)
		if err != nil {
			return errors.New(reply.MsgServerError)
		}
		if !allowed {
			return errors.New(reply.MsgForbidden)
		}
		return nil
	}
	if !groundwork.Can(c.Abilities, ability) {
		return errors.New(reply.MsgForbidden)
	}
	return nil
}

// shown turns an error for the caller into a GraphQL error: the known
// ones by message, anything else logged and hidden.
func (q *gqlRoot) shown(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return errors.New("Not found.")
	case errors.Is(err, ErrSubscriptionInactive):
		return errors.New("The webhook subscription is disabled; enable it first.")
	case errors.Is(err, ErrRejected):
		return errors.New("The webhook subscription was rejected.")
	}
	q.h.base.Logger.ErrorContext(ctx, "webhooks: graphql", "error", err)
	return errors.New(reply.MsgServerError)
}

func parseID(id graphql.ID) (int64, error) {
	n, err := strconv.ParseInt(string(id), 10, 64)
	if err != nil || n <= 0 {
		return 0, ErrNotFound
	}
	return n, nil
}

func (q *gqlRoot) WebhookSubscriptions(ctx context.Context) ([]*gqlSubscription, error) {
	if err := q.can(ctx, AbilityViewAny); err != nil {
		return nil, err
	}
	list, _, err := q.h.svc.Subscriptions(ctx, SubscriptionQuery{Limit: paging.PerPageMax}, false)
	if err != nil {
		return nil, q.shown(ctx, err)
	}
	out := make([]*gqlSubscription, len(list))
	for i := range list {
		out[i] = &gqlSubscription{&list[i]}
	}
	return out, nil
}

func (q *gqlRoot) WebhookSubscription(ctx context.Context, args struct{ ID graphql.ID }) (*gqlSubscription, error) {
	if err := q.can(ctx, AbilityView); err != nil {
		return nil, err
	}
	id, err := parseID(args.ID)
	if err == nil {
		var sub *Subscription
		if sub, err = q.h.svc.Subscription(ctx, id); err == nil {
			return &gqlSubscription{sub}, nil
		}
	}
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return nil, q.shown(ctx, err)
}

type subscriptionArgs struct {
	Name             *string
	URL              *string
	Events           *[]string
	Secret           *string
	IsActive         *bool
	StandardWebhooks *bool
	Description      *string
	Headers          *[]gqlHeader
	RateLimit        *int32
	Channels         *[]string
}

// gqlHeader is a custom header, in and out.
type gqlHeader struct {
	Name, Value string
}

func (a subscriptionArgs) input() SubscriptionInput {
	in := SubscriptionInput{Name: a.Name, URL: a.URL, Secret: a.Secret, IsActive: a.IsActive, StandardWebhooks: a.StandardWebhooks,
		Description: a.Description}
	if a.Headers != nil {
		in.Headers = map[string]string{}
		for _, h := range *a.Headers {
			in.Headers[h.Name] = h.Value
		}
	}
	if a.RateLimit != nil {
		n := int(*a.RateLimit)
		in.RateLimit = &n
	}
	if a.Channels != nil {
		in.Channels = append([]string{}, *a.Channels...)
	}
	if a.Events != nil {
		in.Events = *a.Events
		if in.Events == nil {
			in.Events = []string{}
		}
	}
	return in
}

// fieldErrors turns a validation error into the payload's errors; other
// errors stay errors.
func fieldErrors(err error) ([]*gqlFieldError, error) {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []*gqlFieldError
	for _, f := range ve.FieldNames() {
		for _, m := range ve.Fields()[f] {
			out = append(out, &gqlFieldError{Field: f, Message: m})
		}
	}
	return out, nil
}

func (q *gqlRoot) CreateWebhookSubscription(ctx context.Context, args struct {
	Name             string
	URL              string
	Events           []string
	Secret           *string
	IsActive         *bool
	StandardWebhooks *bool
	Owner            *string
	Description      *string
	Headers          *[]gqlHeader
	RateLimit        *int32
	Channels         *[]string
	ClientMutationID *string
}) (*gqlSubscriptionPayload, error) {
	if err := q.can(ctx, AbilityCreate); err != nil {
		return nil, err
	}
	events := args.Events
	in := subscriptionArgs{Name: &args.Name, URL: &args.URL, Events: &events, Secret: args.Secret, IsActive: args.IsActive,
		StandardWebhooks: args.StandardWebhooks, Description: args.Description, Headers: args.Headers, RateLimit: args.RateLimit,
		Channels: args.Channels}.input()
	in.Owner = args.Owner
	sub, err := q.h.svc.CreateSubscription(ctx, in)
	return q.payload(ctx, args.ClientMutationID, sub, err)
}

func (q *gqlRoot) UpdateWebhookSubscription(ctx context.Context, args struct {
	ID               graphql.ID
	Name             *string
	URL              *string
	Events           *[]string
	Secret           *string
	IsActive         *bool
	StandardWebhooks *bool
	Description      *string
	Headers          *[]gqlHeader
	RateLimit        *int32
	Channels         *[]string
	ClientMutationID *string
}) (*gqlSubscriptionPayload, error) {
	if err := q.can(ctx, AbilityUpdate); err != nil {
		return nil, err
	}
	id, err := parseID(args.ID)
	if err != nil {
		return nil, q.shown(ctx, err)
	}
	sub, err := q.h.svc.UpdateSubscription(ctx, id, subscriptionArgs{Name: args.Name, URL: args.URL, Events: args.Events,
		Secret: args.Secret, IsActive: args.IsActive, StandardWebhooks: args.StandardWebhooks, Description: args.Description,
		Headers: args.Headers, RateLimit: args.RateLimit, Channels: args.Channels}.input())
	return q.payload(ctx, args.ClientMutationID, sub, err)
}

func (q *gqlRoot) DeleteWebhookSubscription(ctx context.Context, args struct {
	ID               graphql.ID
	ClientMutationID *string
}) (*gqlDeletePayload, error) {
	if err := q.can(ctx, AbilityDelete); err != nil {
		return nil, err
	}
	id, err := parseID(args.ID)
	if err == nil {
		err = q.h.svc.DeleteSubscription(ctx, id)
	}
	if err != nil {
		return nil, q.shown(ctx, err)
	}
	return &gqlDeletePayload{DeletedID: &args.ID, ClientMutationID: args.ClientMutationID, Errors: []*gqlFieldError{}}, nil
}

func (q *gqlRoot) ReplayWebhookDelivery(ctx context.Context, args struct {
	SubscriptionID   graphql.ID
	DeliveryID       graphql.ID
	ClientMutationID *string
}) (*gqlReplayPayload, error) {
	if err := q.can(ctx, AbilityReplay); err != nil {
		return nil, err
	}
	sub, err := parseID(args.SubscriptionID)
	if err != nil {
		return nil, q.shown(ctx, err)
	}
	id, err := parseID(args.DeliveryID)
	if err != nil {
		return nil, q.shown(ctx, err)
	}
	d, err := q.h.svc.Replay(ctx, sub, id)
	if err != nil {
		return nil, q.shown(ctx, err)
	}
	return &gqlReplayPayload{Delivery: &gqlDelivery{d}, ClientMutationID: args.ClientMutationID, Errors: []*gqlFieldError{}}, nil
}

// ---- result types ----

func gqlTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(reply.TimeFormat)
	return &s
}

type gqlSubscription struct{ s *Subscription }

func (g *gqlSubscription) ID() graphql.ID             { return graphql.ID(strconv.FormatInt(g.s.ID, 10)) }
func (g *gqlSubscription) Owner() string              { return g.s.Owner }
func (g *gqlSubscription) Name() string               { return g.s.Name }
func (g *gqlSubscription) URL() string                { return g.s.URL }
func (g *gqlSubscription) Events() []string           { return g.s.Events }
func (g *gqlSubscription) IsActive() bool             { return g.s.IsActive }
func (g *gqlSubscription) StandardWebhooks() bool     { return g.s.StandardWebhooks }
func (g *gqlSubscription) ConsecutiveFailures() int32 { return int32(g.s.ConsecutiveFailures) }
func (g *gqlSubscription) LastSuccessAt() *string     { return gqlTime(g.s.LastSuccessAt) }
func (g *gqlSubscription) LastFailureAt() *string     { return gqlTime(g.s.LastFailureAt) }
func (g *gqlSubscription) CreatedAt() string          { return *gqlTime(&g.s.CreatedAt) }
func (g *gqlSubscription) UpdatedAt() string          { return *gqlTime(&g.s.UpdatedAt) }
func (g *gqlSubscription) Description() string        { return g.s.Description }
func (g *gqlSubscription) RateLimit() int32           { return int32(g.s.RateLimit) }

// Headers are the custom headers, by name.
func (g *gqlSubscription) Headers() []gqlHeader {
	out := make([]gqlHeader, 0, len(g.s.Headers))
	for _, name := range slices.Sorted(maps.Keys(g.s.Headers)) {
		out = append(out, gqlHeader{Name: name, Value: g.s.Headers[name]})
	}
	return out
}

func (g *gqlSubscription) PreviousSecretExpiresAt() *string {
	return gqlTime(g.s.PreviousSecretExpiresAt)
}

// Secret is shown only by the mutation that creates the subscription.
func (g *gqlSubscription) Secret() *string {
	if g.s.Secret == "" {
		return nil
	}
	return &g.s.Secret
}

type gqlDelivery struct{ d *Delivery }

func (g *gqlDelivery) ID() graphql.ID { return graphql.ID(strconv.FormatInt(g.d.ID, 10)) }
func (g *gqlDelivery) SubscriptionID() graphql.ID {
	return graphql.ID(strconv.FormatInt(g.d.SubscriptionID, 10))
}
func (g *gqlDelivery) Event() string          { return g.d.Event }
func (g *gqlDelivery) EventID() string        { return g.d.EventID }
func (g *gqlDelivery) Status() string         { return string(g.d.Status) }
func (g *gqlDelivery) Attempts() int32        { return int32(g.d.Attempts) }
func (g *gqlDelivery) NextAttemptAt() *string { return gqlTime(g.d.NextAttemptAt) }
func (g *gqlDelivery) DeliveredAt() *string   { return gqlTime(g.d.DeliveredAt) }
func (g *gqlDelivery) CreatedAt() string      { return *gqlTime(&g.d.CreatedAt) }
func (g *gqlDelivery) ResponseStatus() *int32 {
	if g.d.ResponseStatus == nil {
		return nil
	}
	n := int32(*g.d.ResponseStatus)
	return &n
}

type gqlFieldError struct {
	Field   string
	Message string
}

type gqlSubscriptionPayload struct {
	Subscription     *gqlSubscription
	Errors           []*gqlFieldError
	ClientMutationID *string
}

func (p *gqlSubscriptionPayload) WebhookSubscription() *gqlSubscription { return p.Subscription }

type gqlDeletePayload struct {
	DeletedID        *graphql.ID
	Errors           []*gqlFieldError
	ClientMutationID *string
}

type gqlReplayPayload struct {
	Delivery         *gqlDelivery
	Errors           []*gqlFieldError
	ClientMutationID *string
}

func (q *gqlRoot) RotateWebhookSubscriptionSecret(ctx context.Context, args struct {
	ID               graphql.ID
	Secret           *string
	GraceSeconds     *int32
	ClientMutationID *string
}) (*gqlSubscriptionPayload, error) {
	if err := q.can(ctx, AbilityUpdate); err != nil {
		return nil, err
	}
	id, err := parseID(args.ID)
	if err != nil {
		return nil, q.shown(ctx, err)
	}
	in := RotateInput{Secret: args.Secret}
	if args.GraceSeconds != nil {
		grace := time.Duration(*args.GraceSeconds) * time.Second
		in.Grace = &grace
	}
	sub, err := q.h.svc.RotateSecret(ctx, id, in)
	return q.payload(ctx, args.ClientMutationID, sub, err)
}

// payload is a mutation's answer: the subscription, or the fields its
// input broke (any other error is the request's).
func (q *gqlRoot) payload(ctx context.Context, clientMutationID *string, sub *Subscription, err error) (*gqlSubscriptionPayload, error) {
	p := &gqlSubscriptionPayload{ClientMutationID: clientMutationID, Errors: []*gqlFieldError{}}
	if err != nil {
		if p.Errors, err = fieldErrors(err); err != nil {
			return nil, q.shown(ctx, err)
		}
		return p, nil
	}
	p.Subscription = &gqlSubscription{sub}
	return p, nil
}

// Channels are the endpoint's channels ([] for none).
func (g *gqlSubscription) Channels() []string {
	if g.s.Channels == nil {
		return []string{}
	}
	return g.s.Channels
}
