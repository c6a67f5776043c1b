package emaillist

import (
	"encoding/json"
	"time"
)

// Feed links a form of the application to a form and tags at an
// email-list provider, with a mapping of fields and, optionally, the
// conditions a submission must meet.
type Feed struct {
	ID     int64  `json:"id"`
	FormID int64  `json:"form_id"`
	Name   string `json:"name"`
	// ListFormID is the provider's form (Kit) the subscriber is added to;
	// nil for none.
	ListFormID *int64 `json:"list_form_id"`
	// ListTagIDs are the provider's tags applied to the subscriber.
	ListTagIDs []int64 `json:"list_tag_ids"`
	// FieldMap maps a provider destination (email_address, first_name or
	// a custom field's key) to the slug of a form field; it always holds
	// email_address.
	FieldMap map[string]string `json:"field_map"`
	// ConditionalLogic, when set, must match a submission for it to be
	// sent.
	ConditionalLogic *ConditionalLogic `json:"conditional_logic"`
	IsActive         bool              `json:"is_active"`
	CreatedAt        time.Time         `json:"created_at"`
	UpdatedAt        time.Time         `json:"updated_at"`
}

// Match is how many of a rule's conditions must hold.
type Match string

// Match values of a ConditionalLogic.
const (
	MatchAll Match = "all"
	MatchAny Match = "any"
)

// ConditionalLogic is a rule over a submission's values: all or any of
// its conditions must hold. No conditions always holds.
type ConditionalLogic struct {
	Match      Match       `json:"match"`
	Conditions []Condition `json:"conditions"`
}

// MarshalJSON writes no conditions as [], never null (a rule sent
// without any, {"match": "any"}, reads back as the API documents it).
func (l ConditionalLogic) MarshalJSON() ([]byte, error) {
	type plain ConditionalLogic
	if l.Conditions == nil {
		l.Conditions = []Condition{}
	}
	return json.Marshal(plain(l))
}

// Condition compares one submitted field with Value by Operator.
type Condition struct {
	Field    string   `json:"field"`
	Operator Operator `json:"operator"`
	Value    any      `json:"value"`
}

// Payload is what a feed sends to the provider for one subscriber.
type Payload struct {
	EmailAddress string         `json:"email_address"`
	FirstName    *string        `json:"first_name,omitempty"`
	Fields       map[string]any `json:"fields,omitempty"`
}

// DryRun is what a feed would do with some values: whether it would
// send, why not ("conditional_logic" or "field_map"), and the payload.
type DryRun struct {
	WouldSend bool     `json:"would_send"`
	Reason    *string  `json:"reason"`
	Payload   *Payload `json:"payload"`
}

// Subscription is one subscribe for a Provider to carry out.
type Subscription struct {
	Email     string         `json:"email"`
	FirstName *string        `json:"first_name,omitempty"`
	Fields    map[string]any `json:"fields,omitempty"`
	// TagIDs are applied after the subscriber is made (at most
	// maxTagsPerJob).
	TagIDs []int64 `json:"tag_ids,omitempty"`
	// ListFormID is the provider's form to add the subscriber to; nil
	// for none.
	ListFormID *int64 `json:"list_form_id,omitempty"`
	// Referrer is the page the subscriber signed up on (a submission's
	// page URL), when known; Kit records it with the form.
	Referrer string `json:"referrer,omitempty"`
}

// Submission is an accepted form submission, as QueueSubmission takes it.
type Submission struct {
	FormID, ID int64
	// PageURL is the page the form was sent from, when known.
	PageURL string
	// Values are the answers by field name.
	Values map[string]any
}

// Subscriber is the provider's record of a subscriber after a
// subscribe.
type Subscriber struct {
	ID        string         `json:"id"`
	Email     string         `json:"email"`
	State     string         `json:"state,omitempty"`
	FirstName string         `json:"first_name,omitempty"`
	CreatedAt *time.Time     `json:"created_at,omitempty"`
	Fields    map[string]any `json:"fields,omitempty"`
}
