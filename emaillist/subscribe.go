package emaillist

import (
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork/internal/api"
)

// SubscribeRequest is the public subscribe's body: exactly one of FeedID
// and ListFormID.
type SubscribeRequest struct {
	FeedID     *int64             `json:"feed_id"`
	ListFormID *int64             `json:"list_form_id"`
	Email      string             `json:"email"`
	FirstName  *string            `json:"first_name"`
	Fields     map[string]*string `json:"fields"`
	Tags       []int64            `json:"tags"`
}

func (r SubscribeRequest) validate() error {
	v := &api.Validator{}
	switch {
	case r.FeedID == nil && r.ListFormID == nil:
		v.Add("feed_id", "The feed id field is required when list form id is not present.")
		v.Add("list_form_id", "The list form id field is required when feed id is not present.")
	case r.FeedID != nil && r.ListFormID != nil:
		v.Add("feed_id", "The feed id field prohibits list form id from being present.")
		v.Add("list_form_id", "The list form id field prohibits feed id from being present.")
	}
	if r.FeedID != nil && *r.FeedID < 1 {
		v.Add("feed_id", api.MsgMin("feed_id", 1))
	}
	if r.ListFormID != nil && *r.ListFormID < 1 {
		v.Add("list_form_id", api.MsgMin("list_form_id", 1))
	}
	switch {
	case r.Email == "":
		v.Add("email", api.MsgRequired("email"))
	case utf8.RuneCountInString(r.Email) > MaxEmailLength:
		v.Add("email", api.MsgMaxChars("email", MaxEmailLength))
	case !api.ValidEmail(r.Email):
		v.Add("email", api.MsgEmail("email"))
	}
	if r.FirstName != nil && utf8.RuneCountInString(*r.FirstName) > MaxNameLength {
		v.Add("first_name", api.MsgMaxChars("first_name", MaxNameLength))
	}
	if len(r.Fields) > MaxFields {
		v.Add("fields", api.MsgMaxItems("fields", MaxFields))
	}
	for _, k := range slices.Sorted(maps.Keys(r.Fields)) {
		if f := r.Fields[k]; f != nil && utf8.RuneCountInString(*f) > MaxFieldLength {
			v.Add("fields."+k, api.MsgMaxChars("fields."+k, MaxFieldLength))
		}
	}
	if len(r.Tags) > MaxRequestTags {
		v.Add("tags", api.MsgMaxItems("tags", MaxRequestTags))
	}
	for i, id := range r.Tags {
		if id < 1 {
			key := fmt.Sprintf("tags.%d", i)
			v.Add(key, api.MsgMin(key, 1))
		}
	}
	return v.Err()
}
