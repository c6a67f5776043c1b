package emaillist_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestFeedAdmin(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		a := call(t, b.admin, "POST", "/admin/emailmarketing/feeds", newsletter)
		require.Equal(t, 201, a.code, a.body)
		var created struct{ Data emaillist.Feed }
		require.NoError(t, json.Unmarshal([]byte(a.body), &created))
		f := created.Data
		require.Equal(t, "Newsletter", f.Name)
		require.Equal(t, int64(217), *f.ListFormID)
		require.Equal(t, []int64{3, 4}, f.ListTagIDs)
		require.True(t, f.IsActive, "active by default")
		require.Regexp(t, `"created_at":"\d{4}-\d\d-\d\dT[^"]+Z"`, a.body)
		path := "/admin/emailmarketing/feeds/" + itoa(f.ID)

		a = call(t, b.admin, "GET", path, "")
		require.Equal(t, 200, a.code)
		var shown struct{ Data emaillist.Feed }
		require.NoError(t, json.Unmarshal([]byte(a.body), &shown))
		require.Equal(t, f, shown.Data)
		a = call(t, b.admin, "POST", "/admin/emailmarketing/feeds", strings.Replace(newsletter, `"form_id":1`, `"form_id":2`, 1))
		require.Equal(t, 201, a.code, "the same name on another form")
		a = call(t, b.admin, "GET", "/admin/emailmarketing/feeds?form_id=1", "")
		require.Equal(t, 200, a.code)
		require.Equal(t, 1, strings.Count(a.body, `"form_id":1`))
		a = call(t, b.admin, "GET", "/admin/emailmarketing/feeds", "")
		require.Regexp(t, `^\{"data":\[\{"id":1,.*\{"id":2,`, a.body, "id order")

		// PATCH merges; PUT too; the field map must keep email_address.
		a = call(t, b.admin, "PATCH", path, `{"name":"Weekly","list_form_id":null}`)
		require.Equal(t, 200, a.code, a.body)
		require.Contains(t, a.body, `"name":"Weekly"`)
		require.Contains(t, a.body, `"list_form_id":null`)
		require.Contains(t, a.body, `"list_tag_ids":[3,4]`, "untouched")
		a = call(t, b.admin, "PUT", path, `{"field_map":{"first_name":"name"}}`)
		require.Equal(t, 422, a.code)
		require.JSONEq(t, `{"message":"The field map field must contain entries for: email_address.",
			"errors":{"field_map":["The field map field must contain entries for: email_address."]}}`, a.body)
		a = call(t, b.admin, "PUT", path, `{"is_active":false}`)
		require.Equal(t, 200, a.code)
		require.Contains(t, a.body, `"is_active":false`)

		a = call(t, b.admin, "DELETE", path, "")
		require.Equal(t, 204, a.code)
		require.Empty(t, a.body)
		for _, m := range []string{"GET", "PATCH", "DELETE"} {
			a = call(t, b.admin, m, path, `{}`)
			require.Equal(t, 404, a.code, m)
		}
		require.Equal(t, 404, call(t, b.admin, "POST", path+"/test", `{"values":{}}`).code)
		require.Equal(t, 404, call(t, b.admin, "GET", "/admin/emailmarketing/feeds/abc", "").code)
	})
}

func TestFeedAdminValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	long := strings.Repeat("x", 256)
	for _, c := range []struct{ body, field, msg string }{
		{`{}`, "form_id", "The form id field is required."},
		{`{}`, "name", "The name field is required."},
		{`{}`, "field_map", "The field map field is required."},
		{`{"form_id":0,"name":"A","field_map":{"email_address":"e"}}`, "form_id", "The form id field must be at least 1."},
		{`{"form_id":"x","name":"A","field_map":{"email_address":"e"}}`, "form_id", "The form id field must be an integer."},
		{`{"form_id":1,"name":"` + long + `","field_map":{"email_address":"e"}}`, "name", "The name field must not be greater than 255 characters."},
		{`{"form_id":1,"name":"A","field_map":{"email_address":"e"},"list_form_id":0}`, "list_form_id", "The list form id field must be at least 1."},
		{`{"form_id":1,"name":"A","field_map":{"email_address":"e"},"list_tag_ids":[1,0]}`, "list_tag_ids.1", "The list tag ids.1 field must be at least 1."},
		{`{"form_id":1,"name":"A","field_map":{"email_address":"e"},"list_tag_ids":"3"}`, "list_tag_ids", "The list tag ids field must be an array."},
		{`{"form_id":1,"name":"A","field_map":[]}`, "field_map", "The field map field must be an object."},
		{`{"form_id":1,"name":"A","field_map":{"email_address":"e","x":5}}`, "field_map.x", "The field map.x field must be a string."},
		{`{"form_id":1,"name":"A","field_map":{"email_address":"e","x":"` + long + `"}}`, "field_map.x", "The field map.x field must not be greater than 255 characters."},
		{`{"form_id":1,"name":"A","field_map":{"email_address":"e"},"conditional_logic":{"match":"most","conditions":[]}}`,
			"conditional_logic.match", "The selected conditional logic.match is invalid."},
		{`{"form_id":1,"name":"A","field_map":{"email_address":"e"},"conditional_logic":{"match":"all","conditions":[{"field":"a","operator":"like","value":"x"}]}}`,
			"conditional_logic.conditions.0.operator", "The selected conditional logic.conditions.0.operator is invalid."},
		{`{"form_id":1,"name":"A","field_map":{"email_address":"e"},"conditional_logic":{"match":"all","conditions":[{"operator":"equals"}]}}`,
			"conditional_logic.conditions.0.field", "The conditional logic.conditions.0.field field is required."},
		{`{"form_id":1,"name":"A","field_map":{"email_address":"e"},"is_active":"maybe"}`, "is_active", "The is active field must be true or false."},
	} {
		a := call(t, b.admin, "POST", "/admin/emailmarketing/feeds", c.body)
		require.Equal(t, 422, a.code, c.body)
		var ve struct{ Errors map[string][]string }
		require.NoError(t, json.Unmarshal([]byte(a.body), &ve))
		require.Contains(t, ve.Errors[c.field], c.msg, "%s: %s", c.body, a.body)
	}
	require.Equal(t, 201, call(t, b.admin, "POST", "/admin/emailmarketing/feeds", newsletter).code)
	a := call(t, b.admin, "POST", "/admin/emailmarketing/feeds", newsletter)
	require.Equal(t, 422, a.code, "a name the form's feed has")
	require.JSONEq(t, `{"message":"The name has already been taken by another feed.","errors":{"name":["The name has already been taken by another feed."]}}`, a.body)
	require.Equal(t, 400, call(t, b.admin, "POST", "/admin/emailmarketing/feeds", `{"form_id":`).code)
}

// Every route asks the Authorizer, with the feed it resolved; a refusal
// is a 403 without a body, and changes nothing.
func TestFeedAdminAuthorization(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.Equal(t, 201, call(t, b.admin, "POST", "/admin/emailmarketing/feeds", newsletter).code)
	b.mu.Lock()
	require.Nil(t, b.asked[0], "nil for create")
	b.allow, b.asked = false, nil
	b.mu.Unlock()
	for _, c := range [][2]string{{"GET", "/feeds"}, {"POST", "/feeds"}, {"GET", "/feeds/1"}, {"PUT", "/feeds/1"}, {"PATCH", "/feeds/1"},
		{"DELETE", "/feeds/1"}, {"POST", "/feeds/1/test"}} {
		a := call(t, b.admin, c[0], "/admin/emailmarketing"+c[1], `{"name":"Changed","values":{}}`)
		require.Equal(t, 403, a.code, c)
		require.Empty(t, a.body, c)
	}
	b.mu.Lock()
	require.Len(t, b.asked, 7)
	require.Nil(t, b.asked[0])
	require.Nil(t, b.asked[1])
	require.Equal(t, int64(1), b.asked[2].ID, "the resolved feed")
	b.allow = true
	b.mu.Unlock()
	f, err := b.svc.Feed(context.Background(), 1)
	require.NoError(t, err)
	require.Equal(t, "Newsletter", f.Name, "unchanged")
	_, err = emaillist.NewAdminHandler(b.svc, nil, nil)
	require.Error(t, err, "an Authorizer is required")
}

func TestDryRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.Equal(t, 201, call(t, b.admin, "POST", "/admin/emailmarketing/feeds", newsletter).code)
	test := func(body string) answer { return call(t, b.admin, "POST", "/admin/emailmarketing/feeds/1/test", body) }
	a := test(`{"values":{"consent":"yes","email":" grace@example.com ","name":"Grace","org":"Navy","other":"x"}}`)
	require.Equal(t, 200, a.code, a.body)
	require.JSONEq(t, `{"would_send":true,"reason":null,"payload":{"email_address":"grace@example.com","first_name":"Grace",
		"fields":{"company":"Navy"}}}`, a.body, "no data wrapper, no tags")
	a = test(`{"values":{"consent":"no","email":"grace@example.com"}}`)
	require.JSONEq(t, `{"would_send":false,"reason":"conditional_logic","payload":null}`, a.body)
	a = test(`{"values":{"consent":"yes","email":"  "}}`)
	require.JSONEq(t, `{"would_send":false,"reason":"field_map","payload":null}`, a.body)
	a = test(`{}`)
	require.Equal(t, 422, a.code)
	require.Contains(t, a.body, `"values":["The values field is required."]`)
	a = test(`{"values":"x"}`)
	require.Equal(t, 422, a.code)
	require.Contains(t, a.body, `"values":["The values field must be an object."]`)
	require.Equal(t, 200, test(`{"values":[]}`).code, "an empty array is an empty object")
}

func TestSubscribeRules(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) { o.subscribe = &emaillist.SubscribeHandlerOptions{Limit: 1000} })
	require.Equal(t, 201, call(t, b.admin, "POST", "/admin/emailmarketing/feeds", newsletter).code)
	require.Equal(t, 201, call(t, b.admin, "POST", "/admin/emailmarketing/feeds", strings.Replace(strings.Replace(newsletter,
		`"name":"Newsletter"`, `"name":"Off"`, 1), `"form_id":1`, `"form_id":1,"is_active":false`, 1)).code)
	sub := func(body string) answer { return call(t, b.public, "POST", "/emailmarketing/subscribers", body) }
	fields := map[string]any{}
	for i := range 33 {
		fields["f"+itoa(int64(i))] = "v"
	}
	tooMany, _ := json.Marshal(map[string]any{"list_form_id": 1, "email": "a@example.com", "fields": fields})
	for _, c := range []struct{ body, field string }{
		{`{"email":"a@example.com"}`, "feed_id"},
		{`{"email":"a@example.com"}`, "list_form_id"},
		{`{"feed_id":1,"list_form_id":2,"email":"a@example.com"}`, "feed_id"},
		{`{"list_form_id":0,"email":"a@example.com"}`, "list_form_id"},
		{`{"list_form_id":1}`, "email"},
		{`{"list_form_id":1,"email":"not an email"}`, "email"},
		{`{"list_form_id":1,"email":"a@example.com","first_name":"` + strings.Repeat("n", 256) + `"}`, "first_name"},
		{string(tooMany), "fields"},
		{`{"list_form_id":1,"email":"a@example.com","fields":{"bio":"` + strings.Repeat("b", 2049) + `"}}`, "fields.bio"},
		{`{"list_form_id":1,"email":"a@example.com","fields":{"n":5}}`, "fields.n"},
		{`{"list_form_id":1,"email":"a@example.com","tags":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21]}`, "tags"},
		{`{"list_form_id":1,"email":"a@example.com","tags":[0]}`, "tags.0"},
	} {
		a := sub(c.body)
		require.Equal(t, 422, a.code, c.body)
		require.Contains(t, a.body, `"`+c.field+`":[`, c.body)
	}
	// An unknown and an inactive feed: the same answer.
	unknown, inactive := sub(`{"feed_id":99,"email":"a@example.com"}`), sub(`{"feed_id":2,"email":"a@example.com"}`)
	require.Equal(t, 422, unknown.code)
	require.Equal(t, unknown.body, inactive.body)
	require.JSONEq(t, `{"message":"The feed id field is invalid.","errors":{"feed_id":["The feed id field is invalid."]}}`, unknown.body)
	require.Empty(t, b.jobs(t), "nothing queued")

	a := sub(`{"feed_id":1,"email":"grace@example.com","first_name":"Grace","fields":{"company":"Navy","note":null},"tags":[4,9,9]}`)
	require.Equal(t, 202, a.code, a.body)
	require.JSONEq(t, `{"message":"Subscribe queued."}`, a.body)
	a = sub(`{"list_form_id":5,"email":"ada@example.com"}`)
	require.Equal(t, 202, a.code, a.body)
	jobs := b.jobs(t)
	require.Len(t, jobs, 2)
	first := "Grace"
	require.Equal(t, emaillist.SubscribeArgs{FeedID: 1, Subscription: emaillist.Subscription{Email: "grace@example.com", FirstName: &first,
		Fields: map[string]any{"company": "Navy", "note": nil}, TagIDs: []int64{3, 4, 9}, ListFormID: ptr(int64(217))}}, jobs[0],
		"the feed's list form and tags first, de-duplicated")
	require.Equal(t, int64(5), *jobs[1].Subscription.ListFormID)
}

// The throttle: 10 a minute per IP by default, tunable, replaceable, never
// gone.
func TestSubscribeThrottle(t *testing.T) {
	t.Parallel()
	body := `{"list_form_id":1,"email":"a@example.com"}`
	b := setup(t)
	for range 10 {
		require.Equal(t, 202, call(t, b.public, "POST", "/emailmarketing/subscribers", body).code)
	}
	a := call(t, b.public, "POST", "/emailmarketing/subscribers", body)
	require.Equal(t, 429, a.code)
	require.NotEmpty(t, a.header.Get("Retry-After"))
	require.Equal(t, "10", a.header.Get("X-RateLimit-Limit"))
	require.Equal(t, "0", a.header.Get("X-RateLimit-Remaining"))

	tuned := setup(t, func(o *setupOptions) { o.subscribe = &emaillist.SubscribeHandlerOptions{Limit: 2} })
	require.Equal(t, 202, call(t, tuned.public, "POST", "/emailmarketing/subscribers", body).code)
	require.Equal(t, 202, call(t, tuned.public, "POST", "/emailmarketing/subscribers", body).code)
	require.Equal(t, 429, call(t, tuned.public, "POST", "/emailmarketing/subscribers", body).code)
	off := setup(t, func(o *setupOptions) { o.subscribe = &emaillist.SubscribeHandlerOptions{Limit: -1} })
	for range 10 {
		call(t, off.public, "POST", "/emailmarketing/subscribers", body)
	}
	require.Equal(t, 429, call(t, off.public, "POST", "/emailmarketing/subscribers", body).code, "a negative limit is the default")

	mine := 0
	own := setup(t, func(o *setupOptions) {
		o.subscribe = &emaillist.SubscribeHandlerOptions{Throttle: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if mine++; mine > 1 {
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				next.ServeHTTP(w, r)
			})
		}}
	})
	require.Equal(t, 202, call(t, own.public, "POST", "/emailmarketing/subscribers", body).code)
	require.Equal(t, 429, call(t, own.public, "POST", "/emailmarketing/subscribers", body).code, "the host's own")
}

type failingEnqueuer struct{ store.Enqueuer }

func (failingEnqueuer) Enqueue(context.Context, riverArgs, *riverOpts) error {
	return errors.New("queue down")
}

func (failingEnqueuer) EnqueueMany(context.Context, *sql.Tx, []riverMany) error {
	return errors.New("queue down")
}

// A subscribe whose job cannot be queued answers 5xx and stores nothing.
func TestSubscribeQueueDown(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) {
		o.enqueuer = func(q store.Enqueuer) store.Enqueuer { return failingEnqueuer{q} }
	})
	a := call(t, b.public, "POST", "/emailmarketing/subscribers", `{"list_form_id":1,"email":"a@example.com"}`)
	require.Equal(t, 500, a.code)
	require.JSONEq(t, `{"message":"Server Error."}`, a.body)
	require.Empty(t, b.jobs(t))
}

func ptr[T any](v T) *T { return &v }

func itoa(n int64) string { return strconvFormat(n) }

// A rule sent without conditions reads back with none as [], as the
// API documents (found by FuzzBodies: it answered null, which the
// document does not allow).
func TestRuleWithoutConditions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := call(t, b.admin, "POST", "/admin/emailmarketing/feeds", newsletter)
	require.Equal(t, 201, a.code, a.body)
	for _, rule := range []string{`{"match":"any"}`, `{"match":"all","conditions":null}`} {
		a = call(t, b.admin, "PATCH", "/admin/emailmarketing/feeds/1", `{"conditional_logic":`+rule+`}`)
		require.Equal(t, 200, a.code, a.body)
		require.Contains(t, a.body, `"conditions":[]`)
		a = call(t, b.admin, "GET", "/admin/emailmarketing/feeds/1", "")
		require.Contains(t, a.body, `"conditions":[]`)
	}
}
