package emaillist

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/outbound"
)

// Kit defaults.
const (
	// KitBaseURLDefault is Kit's API v4.
	KitBaseURLDefault = "https://api.kit.com/v4"
	// KitTimeoutDefault bounds one request.
	KitTimeoutDefault = 15 * time.Second
)

// KitOptions configures [NewKit].
type KitOptions struct {
	// BaseURL: KitBaseURLDefault when empty; https only unless
	// AllowInsecure.
	BaseURL       string
	AllowInsecure bool
	// HTTPClient sends the requests; a default one when nil.
	HTTPClient *http.Client
	// Timeout bounds one request; KitTimeoutDefault when zero.
	Timeout time.Duration
	// MaxAttempts, BaseDelay and MaxDelay shape the retries inside one
	// subscribe (a 429 or 5xx answered again after a backoff with
	// jitter, a Retry-After honoured up to a minute); the job retries
	// beyond that. Defaults: 3 attempts, 500 ms doubling to 30 s.
	MaxAttempts         int
	BaseDelay, MaxDelay time.Duration
}

// Kit is the Provider for Kit (formerly ConvertKit) API v4.
type Kit struct{ api *outbound.Client }

// NewKit returns the Kit provider for apiKey (sent in X-Kit-Api-Key);
// opts may be nil.
func NewKit(apiKey string, opts *KitOptions) (*Kit, error) {
	var o KitOptions
	if opts != nil {
		o = *opts
	}
	if strings.TrimSpace(apiKey) == "" {
		return nil, errors.New("emaillist: kit: an API key is required")
	}
	if o.BaseURL == "" {
		o.BaseURL = KitBaseURLDefault
	}
	if !strings.HasPrefix(o.BaseURL, "https://") && !o.AllowInsecure {
		return nil, fmt.Errorf("emaillist: kit: the base URL %q is not https (AllowInsecure permits it)", o.BaseURL)
	}
	if o.Timeout == 0 {
		o.Timeout = KitTimeoutDefault
	}
	api, err := outbound.New(outbound.Options{Provider: "kit", BaseURL: o.BaseURL, HTTPClient: o.HTTPClient, Timeout: o.Timeout,
		MaxAttempts: o.MaxAttempts, BaseDelay: o.BaseDelay, MaxDelay: o.MaxDelay,
		Header: http.Header{"X-Kit-Api-Key": {apiKey}, "Accept": {"application/json"}}})
	if err != nil {
		return nil, fmt.Errorf("emaillist: kit: %w", err)
	}
	return &Kit{api: api}, nil
}

type kitSubscriber struct {
	ID           int64          `json:"id"`
	FirstName    *string        `json:"first_name"`
	EmailAddress string         `json:"email_address"`
	State        string         `json:"state"`
	CreatedAt    *time.Time     `json:"created_at"`
	Fields       map[string]any `json:"fields"`
}

// Subscribe implements Provider: create or update the subscriber (email,
// first name, fields: Kit's create is an upsert), add it to the list form,
// then apply each tag (at most maxTagsPerJob), one call each.
func (k *Kit) Subscribe(ctx context.Context, sub Subscription) (Subscriber, error) {
	body := map[string]any{"email_address": sub.Email}
	if sub.FirstName != nil {
		body["first_name"] = *sub.FirstName
	}
	if len(sub.Fields) > 0 {
		body["fields"] = sub.Fields
	}
	var created struct {
		Subscriber kitSubscriber `json:"subscriber"`
	}
	if err := k.api.SendJSON(ctx, http.MethodPost, "/subscribers", true, body, &created); err != nil {
		return Subscriber{}, providerErr(err)
	}
	s := created.Subscriber
	if s.ID == 0 {
		return Subscriber{}, providerErr(&outbound.Error{Provider: "kit", Class: outbound.ClassServer, Path: "/subscribers",
			Err: errors.New("the answer has no subscriber id")})
	}
	id := strconv.FormatInt(s.ID, 10)
	if sub.ListFormID != nil {
		// Kit's "add subscriber to form" requires a referrer; without one,
		// its by-email twin takes the address instead.
		form := "/forms/" + strconv.FormatInt(*sub.ListFormID, 10) + "/subscribers"
		path, body := form+"/"+id, map[string]any{"referrer": sub.Referrer}
		if sub.Referrer == "" {
			path, body = form, map[string]any{"email_address": s.EmailAddress}
		}
		if err := k.api.SendJSON(ctx, http.MethodPost, path, true, body, nil); err != nil {
			return Subscriber{}, providerErr(err)
		}
	}
	for _, tag := range capTags(sub.TagIDs) {
		path := "/tags/" + strconv.FormatInt(tag, 10) + "/subscribers/" + id
		if err := k.api.SendJSON(ctx, http.MethodPost, path, true, map[string]any{}, nil); err != nil {
			return Subscriber{}, providerErr(err)
		}
	}
	out := Subscriber{ID: id, Email: s.EmailAddress, State: s.State, CreatedAt: s.CreatedAt, Fields: s.Fields}
	if s.FirstName != nil {
		out.FirstName = *s.FirstName
	}
	return out, nil
}

// Ping checks the key: GET /account.
func (k *Kit) Ping(ctx context.Context) error {
	var account map[string]any
	if err := k.api.GetJSON(ctx, "/account", nil, &account); err != nil {
		return providerErr(err)
	}
	return nil
}

// capTags is at most maxTagsPerJob tags.
func capTags(tags []int64) []int64 {
	if len(tags) > maxTagsPerJob {
		return tags[:maxTagsPerJob]
	}
	return tags
}

// providerErr marks an outbound error retryable when another try may
// mend it: rate limited (with the provider's wait), a server failure, no
// answer.
func providerErr(err error) error {
	var e *outbound.Error
	if errors.As(err, &e) && (e.Class == outbound.ClassRateLimited || e.Class == outbound.ClassServer || e.Class == outbound.ClassTransport) {
		return &RetryableError{Err: err, After: e.RetryAfter}
	}
	return err
}
