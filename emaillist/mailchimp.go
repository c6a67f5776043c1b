package emaillist

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/outbound"
)

// Mailchimp defaults.
const (
	// MailchimpStatusIfNew is the status a new member gets:
	// "subscribed"; "pending" makes Mailchimp ask for a confirmation.
	MailchimpStatusIfNew = "subscribed"
	// MailchimpTimeoutDefault bounds one request.
	MailchimpTimeoutDefault = 15 * time.Second
)

// MailchimpOptions configures [NewMailchimp].
type MailchimpOptions struct {
	// BaseURL: https://{dc}.api.mailchimp.com/3.0 from the key when
	// empty; https only unless AllowInsecure.
	BaseURL       string
	AllowInsecure bool
	// StatusIfNew: MailchimpStatusIfNew when empty.
	StatusIfNew string
	// TagNames names the tag IDs of feeds and requests (Mailchimp tags
	// are names); an ID without a name is tagged by its decimal form.
	TagNames map[int64]string
	// HTTPClient, Timeout, MaxAttempts, BaseDelay and MaxDelay as
	// KitOptions'.
	HTTPClient          *http.Client
	Timeout             time.Duration
	MaxAttempts         int
	BaseDelay, MaxDelay time.Duration
}

// Mailchimp is the Provider for the Mailchimp Marketing API v3.
type Mailchimp struct {
	api  *outbound.Client
	o    MailchimpOptions
	list string
}

// NewMailchimp returns the Mailchimp provider for apiKey (the Marketing
// API key, ending in its data centre: "…-us21") and listID (the audience
// subscribers join; a subscription's ListFormID, a Kit form, has no
// meaning here); opts may be nil.
func NewMailchimp(apiKey, listID string, opts *MailchimpOptions) (*Mailchimp, error) {
	var o MailchimpOptions
	if opts != nil {
		o = *opts
	}
	key := strings.TrimSpace(apiKey)
	if key == "" || strings.TrimSpace(listID) == "" {
		return nil, errors.New("emaillist: mailchimp: an API key and a list (audience) ID are required")
	}
	if o.BaseURL == "" {
		_, dc, ok := strings.Cut(key, "-")
		if !ok || dc == "" || strings.ContainsAny(dc, "./:") {
			return nil, errors.New("emaillist: mailchimp: the API key names no data centre (it ends in -us21, say)")
		}
		o.BaseURL = "https://" + dc + ".api.mailchimp.com/3.0"
	}
	if !strings.HasPrefix(o.BaseURL, "https://") && !o.AllowInsecure {
		return nil, fmt.Errorf("emaillist: mailchimp: the base URL %q is not https (AllowInsecure permits it)", o.BaseURL)
	}
	if o.StatusIfNew == "" {
		o.StatusIfNew = MailchimpStatusIfNew
	}
	if o.Timeout == 0 {
		o.Timeout = MailchimpTimeoutDefault
	}
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("groundwork:"+key))
	api, err := outbound.New(outbound.Options{Provider: "mailchimp", BaseURL: o.BaseURL, HTTPClient: o.HTTPClient, Timeout: o.Timeout,
		MaxAttempts: o.MaxAttempts, BaseDelay: o.BaseDelay, MaxDelay: o.MaxDelay, Secrets: []string{key},
		Header: http.Header{"Authorization": {auth}, "Accept": {"application/json"}}})
	if err != nil {
		return nil, fmt.Errorf("emaillist: mailchimp: %w", err)
	}
	return &Mailchimp{api: api, o: o, list: listID}, nil
}

// SubscriberHash is Mailchimp's member id: the MD5 of the lower-cased
// address.
func SubscriberHash(email string) string {
	sum := md5.Sum([]byte(strings.ToLower(strings.TrimSpace(email))))
	return hex.EncodeToString(sum[:])
}

// Subscribe implements Provider: an idempotent upsert of the member
// (PUT /lists/{list}/members/{hash}: email, status if new, the first name
// as FNAME and the fields as merge fields), then the tags in one call to
// the member tags endpoint (at most maxTagsPerJob).
func (m *Mailchimp) Subscribe(ctx context.Context, sub Subscription) (Subscriber, error) {
	hash := SubscriberHash(sub.Email)
	member := "/lists/" + m.list + "/members/" + hash
	merge := map[string]any{}
	for k, v := range sub.Fields {
		merge[k] = v
	}
	if sub.FirstName != nil {
		merge["FNAME"] = *sub.FirstName
	}
	body := map[string]any{"email_address": sub.Email, "status_if_new": m.o.StatusIfNew}
	if len(merge) > 0 {
		body["merge_fields"] = merge
	}
	var got struct {
		ID              string         `json:"id"`
		EmailAddress    string         `json:"email_address"`
		Status          string         `json:"status"`
		MergeFields     map[string]any `json:"merge_fields"`
		TimestampSignup string         `json:"timestamp_signup"`
	}
	if err := m.api.SendJSON(ctx, http.MethodPut, member, true, body, &got); err != nil {
		return Subscriber{}, providerErr(err)
	}
	if tags := capTags(sub.TagIDs); len(tags) > 0 {
		list := make([]map[string]string, len(tags))
		for i, id := range tags {
			name, ok := m.o.TagNames[id]
			if !ok {
				name = strconv.FormatInt(id, 10)
			}
			list[i] = map[string]string{"name": name, "status": "active"}
		}
		if err := m.api.SendJSON(ctx, http.MethodPost, member+"/tags", true, map[string]any{"tags": list}, nil); err != nil {
			return Subscriber{}, providerErr(err)
		}
	}
	out := Subscriber{ID: got.ID, Email: got.EmailAddress, State: got.Status, Fields: got.MergeFields}
	if name, ok := got.MergeFields["FNAME"].(string); ok {
		out.FirstName = name
	}
	if t, err := time.Parse(time.RFC3339, got.TimestampSignup); err == nil {
		out.CreatedAt = &t
	}
	return out, nil
}

// Ping checks the key: GET /ping.
func (m *Mailchimp) Ping(ctx context.Context) error {
	var health map[string]any
	if err := m.api.GetJSON(ctx, "/ping", nil, &health); err != nil {
		return providerErr(err)
	}
	return nil
}
