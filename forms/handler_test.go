package forms_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestFormsCRUD(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })

		f := b.createForm(t, map[string]any{"name": "  Contact us  ", "description": "Say hi"})
		require.Equal(t, "Contact us", f["name"])
		require.Equal(t, "contact-us", f["slug"])
		require.Equal(t, "Submit", f["submit_button_text"])
		require.Equal(t, true, f["is_active"])
		require.Equal(t, true, f["show_progress_bar"])
		require.Equal(t, false, f["is_multi_step"])
		require.Nil(t, f["redirect_url"])
		require.EqualValues(t, 0, f["total_submissions_count"])
		require.Equal(t, "2026-11-22T10:00:00.000000Z", f["created_at"], "microseconds, always six digits")
		again := b.createForm(t, map[string]any{"name": "Contact us!"})
		require.Equal(t, "contact-us-1", again["slug"], "slugs stay unique")
		third := b.createForm(t, map[string]any{"name": "Café & Crème @ 9"})
		require.Equal(t, "cafe-creme-at-9", third["slug"])
		numeric := b.createForm(t, map[string]any{"name": "2026"})
		require.Equal(t, "form-2026", numeric["slug"], "a slug of digits alone would read as an ID")

		r := b.api(t, "POST", "", map[string]any{"name": "Other", "slug": "contact-us"})
		require.Equal(t, 422, r.status)
		require.Equal(t, map[string][]string{"slug": {`The slug "contact-us" has already been taken by another form.`}}, r.errors(t).Errors)
		r = b.api(t, "POST", "", map[string]any{"slug": "Bad Slug", "redirect_url": "javascript:alert(1)", "is_active": "maybe",
			"description": strings.Repeat("x", 1001)})
		require.Equal(t, 422, r.status)
		require.Equal(t, map[string][]string{"is_active": {"The is active field must be true or false."}}, r.errors(t).Errors, "types first")
		r = b.api(t, "POST", "", map[string]any{"slug": "Bad Slug", "redirect_url": "javascript:alert(1)", "description": strings.Repeat("x", 1001)})
		require.Equal(t, 422, r.status)
		e := r.errors(t)
		require.Equal(t, "The name field is required. (and 3 more errors)", e.Message)
		require.Equal(t, []string{"The name field is required."}, e.Errors["name"])
		require.Contains(t, e.Errors["slug"][0], "lower-case words")
		require.Equal(t, []string{"The description field must not be greater than 1000 characters."}, e.Errors["description"])
		require.Equal(t, []string{"The redirect url field must be a valid URL."}, e.Errors["redirect_url"])

		// By slug or by ID; with fields, steps and counts.
		id := fmt.Sprint(f["id"])
		for _, ref := range []string{"contact-us", id} {
			r = b.api(t, "GET", "/"+ref, nil)
			require.Equal(t, 200, r.status, r.body)
			got := r.data(t)
			require.Equal(t, "contact-us", got["slug"])
			require.Equal(t, []any{}, got["fields"])
			require.Equal(t, []any{}, got["steps"])
			require.EqualValues(t, 0, got["unread_submissions_count"])
		}

		// A partial update keeps what it does not name; PATCH too.
		b.clock.Advance(60_000_000_000)
		r = b.api(t, "PUT", "/contact-us", map[string]any{"is_active": false, "redirect_url": "https://example.test/thanks"})
		require.Equal(t, 200, r.status, r.body)
		got := r.data(t)
		require.Equal(t, false, got["is_active"])
		require.Equal(t, "Say hi", got["description"])
		require.Equal(t, "https://example.test/thanks", got["redirect_url"])
		require.Equal(t, "2026-11-22T10:01:00.000000Z", got["updated_at"])
		r = b.api(t, "PATCH", "/"+id, map[string]any{"redirect_url": "", "slug": "hello", "name": "Hello"})
		require.Equal(t, 200, r.status, r.body)
		got = r.data(t)
		require.Nil(t, got["redirect_url"])
		require.Equal(t, "hello", got["slug"])
		r = b.api(t, "PUT", "/hello", map[string]any{"slug": "contact-us-1"})
		require.Equal(t, 422, r.status, "another form's slug")
		r = b.api(t, "PUT", "/hello", map[string]any{"slug": ""})
		require.Equal(t, 200, r.status)
		require.Equal(t, "hello", r.data(t)["slug"], "an emptied slug is made again from the name")

		r = b.api(t, "DELETE", "/hello", nil)
		require.Equal(t, 204, r.status)
		require.Empty(t, r.body)
		r = b.api(t, "GET", "/hello", nil)
		require.Equal(t, 404, r.status)
		require.JSONEq(t, `{"message":"Form not found."}`, r.body)
		r = b.api(t, "DELETE", "/hello", nil)
		require.Equal(t, 404, r.status)
	})
}

func TestListForms(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 17 {
		b.clock.Advance(1_000_000_000)
		b.createForm(t, map[string]any{"name": fmt.Sprintf("Form %02d", i), "is_active": i%3 != 0})
	}
	r := b.api(t, "GET", "", nil)
	require.Equal(t, 200, r.status)
	out := r.json(t)
	meta := out["meta"].(map[string]any)
	require.EqualValues(t, map[string]any{"current_page": 1.0, "from": 1.0, "last_page": 2.0, "per_page": 15.0, "to": 15.0, "total": 17.0}, meta)
	first := out["data"].([]any)[0].(map[string]any)
	require.Equal(t, "Form 16", first["name"], "newest first")
	links := out["links"].(map[string]any)
	require.Equal(t, b.server.URL+"/api/v1/forms?page=2", links["next"])
	require.Nil(t, links["prev"])

	r = b.api(t, "GET", "/?status=inactive&per_page=2&page=2", nil)
	require.Equal(t, 200, r.status)
	out = r.json(t)
	require.EqualValues(t, 6, out["meta"].(map[string]any)["total"])
	require.Len(t, out["data"], 2)
	require.Equal(t, b.server.URL+"/api/v1/forms/?page=1&per_page=2&status=inactive", out["links"].(map[string]any)["prev"])

	for _, q := range []string{"?status=archived", "?per_page=101", "?page=0", "?per_page=x"} {
		r = b.api(t, "GET", q, nil)
		require.Equal(t, 422, r.status, q)
	}
}

func TestAuthorization(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.contactForm(t)
	cases := []struct {
		method, path, token string
		status              int
	}{
		{"GET", "", "", 401},
		{"GET", "", "nope", 401},
		{"GET", "/contact", "", 401},
		{"GET", "/contact/render", "", 200},
		{"GET", "", "viewer", 200},
		{"GET", "/contact", "viewer", 200},
		{"GET", "/contact/fields", "viewer", 200},
		{"POST", "", "viewer", 403},
		{"PUT", "/contact", "viewer", 403},
		{"DELETE", "/contact", "viewer", 403},
		{"GET", "/contact/submissions", "viewer", 403},
		{"GET", "/contact/notifications", "viewer", 403},
		{"GET", "/contact/submissions", "reader", 200},
		{"GET", "/contact/submissions/export", "reader", 200},
		{"GET", "", "reader", 403},
		{"POST", "/contact/submissions/bulk", "reader", 403},
		{"GET", "/nope", "", 401},
		{"GET", "/nope", "viewer", 404},
	}
	for _, c := range cases {
		var body any
		if c.method == "POST" || c.method == "PUT" {
			body = map[string]any{}
		}
		r := b.api(t, c.method, c.path, body, c.token)
		require.Equal(t, c.status, r.status, "%s %s as %q: %s", c.method, c.path, c.token, r.body)
		switch c.status {
		case 401:
			require.JSONEq(t, `{"message":"Unauthenticated."}`, r.body)
		case 403:
			var refused struct{ Message, Ability string }
			require.NoError(t, json.Unmarshal([]byte(r.body), &refused))
			require.Equal(t, "This action is unauthorized.", refused.Message)
			require.True(t, strings.HasPrefix(refused.Ability, "forms:"), "names the ability the route needed: %s", r.body)
		}
	}
}

func TestFieldsAPI(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		b.createForm(t, map[string]any{"name": "Signup", "is_multi_step": true})
		other := b.createForm(t, map[string]any{"name": "Other"})

		first := b.addField(t, "signup", map[string]any{"type": "text", "label": "First name", "is_required": true,
			"validation_rules": map[string]any{"min": 2, "max": 40, "pattern": "/^[a-z]+$/i"}, "width": "half"})
		require.Equal(t, "first_name", first["name"])
		require.Equal(t, "00000000-0000-4000-8000-000000000001", first["uuid"])
		require.EqualValues(t, 1, first["sort_order"])
		require.Equal(t, map[string]any{"min": 2.0, "max": 40.0, "pattern": "/^[a-z]+$/i"}, first["validation_rules"])
		second := b.addField(t, "signup", map[string]any{"type": "text", "label": "First name!"})
		require.Equal(t, "first_name_1", second["name"])
		unlabelled := b.addField(t, "signup", map[string]any{"type": "email"})
		require.Equal(t, "Email", unlabelled["label"])
		require.Equal(t, "email", unlabelled["name"])
		named := b.addField(t, "signup", map[string]any{"type": "number", "label": "Age", "name": "years"})
		require.Equal(t, "years", named["name"])
		r := b.api(t, "POST", "/signup/fields", map[string]any{"type": "text", "name": "years"})
		require.Equal(t, 422, r.status)
		require.Equal(t, []string{`The name "years" has already been taken by another field of this form.`}, r.errors(t).Errors["name"])

		r = b.api(t, "POST", "/signup/fields", map[string]any{"type": "widget", "width": "huge", "step_id": 99999,
			"conditional_logic": map[string]any{"action": "explode", "rules": []any{map[string]any{"field": "", "operator": "like"}}},
			"validation_rules":  map[string]any{"pattern": "/(/", "min_date": "yesterday"}, "name": "website_url"})
		require.Equal(t, 422, r.status)
		e := r.errors(t).Errors
		require.Equal(t, []string{"The selected type is invalid."}, e["type"])
		require.Equal(t, []string{"The selected width is invalid."}, e["width"])
		require.Equal(t, []string{"The selected step id is invalid."}, e["step_id"])
		require.Equal(t, []string{"The selected conditional logic.action is invalid."}, e["conditional_logic.action"])
		require.Equal(t, []string{"The conditional logic.rules.0.field field is required."}, e["conditional_logic.rules.0.field"])
		require.Equal(t, []string{"The selected conditional logic.rules.0.operator is invalid."}, e["conditional_logic.rules.0.operator"])
		require.Equal(t, []string{"The validation rules.pattern field format is invalid."}, e["validation_rules.pattern"])
		require.Equal(t, []string{"The validation rules.min date field must be a valid date."}, e["validation_rules.min_date"])
		require.Contains(t, e["name"][0], "may not be website_url")
		r = b.api(t, "POST", "/signup/fields", map[string]any{"type": "select", "field_config": map[string]any{"options": "a,b"}, "validation_rules": map[string]any{"min": "x"}})
		require.Equal(t, 422, r.status)
		require.Equal(t, []string{"The validation rules.min field must be a number."}, r.errors(t).Errors["validation_rules.min"])
		r = b.api(t, "POST", "/signup/fields", map[string]any{"type": "select", "field_config": map[string]any{"options": "a,b"}})
		require.Equal(t, []string{"The field config.options field must be an array."}, r.errors(t).Errors["field_config.options"])
		r = b.api(t, "POST", "/signup/fields", `{"type": "text", "is_required": "perhaps"}`)
		require.Equal(t, []string{"The is required field must be true or false."}, r.errors(t).Errors["is_required"])
		r = b.api(t, "POST", "/signup/fields", map[string]any{"type": "select", "field_config": map[string]any{"options": []any{1, map[string]any{"label": "no value"}}}})
		require.Equal(t, 422, r.status)
		require.Contains(t, r.errors(t).Errors, "field_config.options.0")
		require.Contains(t, r.errors(t).Errors, "field_config.options.1.value")

		// Steps: a field's step must be this form's.
		step := b.api(t, "POST", "/signup/steps", map[string]any{})
		require.Equal(t, 201, step.status)
		stepID := step.data(t)["id"]
		require.Equal(t, "Step 1", step.data(t)["title"])
		otherStep := b.api(t, "POST", fmt.Sprintf("/%v/steps", other["id"]), map[string]any{"title": "Elsewhere"})
		require.Equal(t, 201, otherStep.status)
		r = b.api(t, "POST", "/signup/fields", map[string]any{"type": "text", "step_id": otherStep.data(t)["id"]})
		require.Equal(t, 422, r.status)
		inStep := b.addField(t, "signup", map[string]any{"type": "date", "label": "Birthday", "step_id": stepID})
		require.EqualValues(t, 1, inStep["sort_order"])

		// Update: the label changes, the name stays; then rename.
		path := fmt.Sprintf("/signup/fields/%v", first["id"])
		r = b.api(t, "PUT", path, map[string]any{"label": "Given name", "placeholder": "Ann"})
		require.Equal(t, 200, r.status, r.body)
		require.Equal(t, "first_name", r.data(t)["name"])
		require.Equal(t, "Given name", r.data(t)["label"])
		require.Equal(t, map[string]any{"min": 2.0, "max": 40.0, "pattern": "/^[a-z]+$/i"}, r.data(t)["validation_rules"], "kept")
		r = b.api(t, "PATCH", path, map[string]any{"name": "given_name", "validation_rules": nil, "is_required": false})
		require.Equal(t, 200, r.status)
		require.Equal(t, "given_name", r.data(t)["name"])
		require.Equal(t, map[string]any{}, r.data(t)["validation_rules"])
		r = b.api(t, "PATCH", path, map[string]any{"name": "years"})
		require.Equal(t, 422, r.status)
		r = b.api(t, "PUT", fmt.Sprintf("/%v/fields/%v", other["id"], first["id"]), map[string]any{"label": "x"})
		require.Equal(t, 404, r.status, "a field of another form")
		require.JSONEq(t, `{"message":"Field not found."}`, r.body)
		r = b.api(t, "PUT", "/signup/fields/abc", map[string]any{})
		require.Equal(t, 404, r.status)

		// Reorder the fields on no step.
		list := b.api(t, "GET", "/signup/fields", nil)
		require.Equal(t, 200, list.status)
		var uuids []any
		for _, f := range list.json(t)["data"].([]any) {
			if f.(map[string]any)["step_id"] == nil {
				uuids = append(uuids, f.(map[string]any)["uuid"])
			}
		}
		require.Len(t, uuids, 4)
		reversed := []any{uuids[3], uuids[2], uuids[1], uuids[0]}
		r = b.api(t, "POST", "/signup/fields/reorder", map[string]any{"ordered_uuids": reversed})
		require.Equal(t, 200, r.status, r.body)
		list = b.api(t, "GET", "/signup/fields", nil)
		var order []any
		for _, f := range list.json(t)["data"].([]any) {
			if f.(map[string]any)["step_id"] == nil {
				order = append(order, f.(map[string]any)["uuid"])
			}
		}
		require.Equal(t, reversed, order)
		r = b.api(t, "POST", "/signup/fields/reorder", map[string]any{"ordered_uuids": []any{uuids[0], uuids[0], inStep["uuid"], 5}})
		require.Equal(t, 422, r.status)
		e = r.errors(t).Errors
		require.Equal(t, []string{"The ordered uuids.3 field must be a string."}, e["ordered_uuids.3"], "types first")
		r = b.api(t, "POST", "/signup/fields/reorder", map[string]any{"ordered_uuids": []any{uuids[0], uuids[0], inStep["uuid"]}})
		e = r.errors(t).Errors
		require.Equal(t, []string{"The ordered uuids.1 field has a duplicate value."}, e["ordered_uuids.1"])
		require.Equal(t, []string{"The selected ordered uuids.2 is invalid."}, e["ordered_uuids.2"], "a field of another step")
		r = b.api(t, "POST", "/signup/fields/reorder", map[string]any{"ordered_uuids": []any{inStep["uuid"]}, "step_id": stepID})
		require.Equal(t, 200, r.status)
		r = b.api(t, "POST", "/signup/fields/reorder", map[string]any{})
		require.Equal(t, []string{"The ordered uuids field is required."}, r.errors(t).Errors["ordered_uuids"])

		r = b.api(t, "DELETE", path, nil)
		require.Equal(t, 204, r.status)
		r = b.api(t, "DELETE", path, nil)
		require.Equal(t, 404, r.status)
	})
}

func TestStepsAPI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createForm(t, map[string]any{"name": "Wizard", "is_multi_step": true})
	var ids []any
	for _, title := range []string{"About you", "", "Done"} {
		r := b.api(t, "POST", "/wizard/steps", map[string]any{"title": title, "description": "d"})
		require.Equal(t, 201, r.status, r.body)
		ids = append(ids, r.data(t)["id"])
	}
	r := b.api(t, "GET", "/wizard/steps", nil)
	steps := r.json(t)["data"].([]any)
	require.Equal(t, "Step 2", steps[1].(map[string]any)["title"])
	require.Equal(t, "Next", steps[0].(map[string]any)["next_button_text"])
	require.Equal(t, "Previous", steps[0].(map[string]any)["prev_button_text"])

	a := b.addField(t, "wizard", map[string]any{"type": "text", "label": "A", "step_id": ids[1]})
	b.addField(t, "wizard", map[string]any{"type": "text", "label": "B", "step_id": ids[0]})

	r = b.api(t, "PUT", fmt.Sprintf("/wizard/steps/%v", ids[1]), map[string]any{"title": "Middle", "next_button_text": "On"})
	require.Equal(t, 200, r.status)
	require.Equal(t, "Middle", r.data(t)["title"])
	require.Equal(t, "d", r.data(t)["description"])
	r = b.api(t, "PUT", fmt.Sprintf("/wizard/steps/%v", ids[1]), map[string]any{"title": strings.Repeat("t", 256)})
	require.Equal(t, 422, r.status)

	r = b.api(t, "POST", "/wizard/steps/reorder", map[string]any{"ordered_ids": []any{ids[2], ids[0], ids[1]}})
	require.Equal(t, 200, r.status, r.body)
	r = b.api(t, "GET", "/wizard/steps", nil)
	steps = r.json(t)["data"].([]any)
	require.Equal(t, ids[2], steps[0].(map[string]any)["id"])
	require.Len(t, steps[2].(map[string]any)["fields"], 1, "a step carries its fields")
	r = b.api(t, "POST", "/wizard/steps/reorder", map[string]any{"ordered_ids": []any{ids[2], ids[0]}})
	require.Equal(t, 422, r.status)
	require.Equal(t, "The ordered ids field must list all 3 steps.", r.errors(t).Message)
	r = b.api(t, "POST", "/wizard/steps/reorder", map[string]any{"ordered_ids": []any{ids[2], ids[0], 424242}})
	require.Equal(t, 422, r.status)

	// Deleting the middle step moves its field to the step before it
	// (by order now: Done, About you, Middle → About you).
	r = b.api(t, "DELETE", fmt.Sprintf("/wizard/steps/%v", ids[1]), nil)
	require.Equal(t, 204, r.status)
	r = b.api(t, "GET", "/wizard/fields", nil)
	for _, f := range r.json(t)["data"].([]any) {
		if f.(map[string]any)["id"] == a["id"] {
			require.Equal(t, ids[0], f.(map[string]any)["step_id"])
		}
	}
	// Deleting every step of a multi-step form leaves a fresh Step 1.
	for _, id := range []any{ids[2], ids[0]} {
		r = b.api(t, "DELETE", fmt.Sprintf("/wizard/steps/%v", id), nil)
		require.Equal(t, 204, r.status)
	}
	r = b.api(t, "GET", "/wizard/steps", nil)
	steps = r.json(t)["data"].([]any)
	require.Len(t, steps, 1)
	require.Equal(t, "Step 1", steps[0].(map[string]any)["title"])
	require.Len(t, steps[0].(map[string]any)["fields"], 2)
	r = b.api(t, "DELETE", "/wizard/steps/424242", nil)
	require.Equal(t, 404, r.status)
	require.JSONEq(t, `{"message":"Step not found."}`, r.body)
}

func TestNotificationsAPI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.contactForm(t)
	r := b.api(t, "POST", "/contact/notifications", map[string]any{"type": "admin"})
	require.Equal(t, 201, r.status, r.body)
	n := r.data(t)
	require.Equal(t, "New submission: {{form_name}}", n["subject"])
	require.Equal(t, "team@example.test", n["recipients"], "the service's admin recipients")
	require.Equal(t, true, n["is_enabled"])
	r = b.api(t, "POST", "/contact/notifications", map[string]any{"type": "autoresponder"})
	require.Equal(t, 201, r.status)
	require.Equal(t, "{{field:email}}", r.data(t)["recipients"], "the form's first email field")
	r = b.api(t, "POST", "/contact/notifications", map[string]any{"type": "custom"})
	require.Equal(t, 422, r.status)
	require.Equal(t, []string{"The recipients field is required."}, r.errors(t).Errors["recipients"])
	r = b.api(t, "POST", "/contact/notifications", map[string]any{"type": "sms", "recipients": "nope, {{field:phone}}",
		"conditional_logic": map[string]any{"action": "show"}})
	require.Equal(t, 422, r.status)
	e := r.errors(t).Errors
	require.Equal(t, []string{"The selected type is invalid."}, e["type"])
	require.Len(t, e["recipients"], 2)
	require.Equal(t, []string{"The selected conditional logic.action is invalid."}, e["conditional_logic.action"])

	id := n["id"]
	r = b.api(t, "PUT", fmt.Sprintf("/contact/notifications/%v", id), map[string]any{"is_enabled": false, "recipients": "a@example.test, b@example.test"})
	require.Equal(t, 200, r.status, r.body)
	require.Equal(t, false, r.data(t)["is_enabled"])
	require.Equal(t, "New submission: {{form_name}}", r.data(t)["subject"])
	r = b.api(t, "GET", "/contact/notifications", nil)
	require.Len(t, r.json(t)["data"], 2)
	r = b.api(t, "DELETE", fmt.Sprintf("/contact/notifications/%v", id), nil)
	require.Equal(t, 204, r.status)
	r = b.api(t, "DELETE", fmt.Sprintf("/contact/notifications/%v", id), nil)
	require.Equal(t, 404, r.status)
	require.JSONEq(t, `{"message":"Notification not found."}`, r.body)
}

func TestBadRequestsNever500(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.contactForm(t)
	cases := []struct {
		method, path, contentType, body string
		status                          int
	}{
		{"POST", "", "application/json", `{"name":`, 400},
		{"POST", "", "text/plain", `{"name":"x"}`, 415},
		{"POST", "", "application/json", `["x"]`, 400},
		{"POST", "", "application/json", `{"name":` + strings.Repeat(`"x"`, 1) + `,"description":"` + strings.Repeat("y", 2<<20) + `"}`, 413},
		{"PUT", "/contact", "application/json", `{"name": 5}`, 422},
		{"POST", "/contact/fields", "application/json", `{"type":"text","field_config":[1]}`, 422},
		{"POST", "/contact/fields", "application/json", `{"type":"text","conditional_logic":{"rules":"x"}}`, 422},
		{"POST", "/contact/submissions/bulk", "application/json", `{"action":"mark_read","ids":["a"]}`, 422},
		{"POST", "/contact/submissions/bulk", "application/json", `{"action":"archive","ids":[1]}`, 422},
		{"GET", "/contact/submissions?is_read=perhaps", "", "", 422},
		{"DELETE", "/contact/fields/99999999999999999999", "", "", 404},
		{"PATCH", "/contact/render", "", "", 405},
	}
	for _, c := range cases {
		var body *strings.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
		}
		var r reply
		if body == nil {
			r = b.request(t, c.method, "/api/v1/forms"+c.path, "admin", c.contentType, http.NoBody)
		} else {
			r = b.request(t, c.method, "/api/v1/forms"+c.path, "admin", c.contentType, body)
		}
		require.Equal(t, c.status, r.status, "%s %s %s: %s", c.method, c.path, c.body[:min(len(c.body), 40)], r.body)
		require.NotEmpty(t, r.json(t)["message"])
	}
}

// A form's name reaches the render JSON with its HTML characters
// escaped, as encoding/json writes them.
func TestRenderJSONEscapesHTML(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	f := &forms.Form{Name: "<script>alert(1)</script> & co", IsActive: true}
	require.NoError(t, b.svc.CreateForm(ctx, f))
	res, err := http.Get(b.server.URL + forms.PrefixDefault + "/" + f.Slug + "/render")
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, string(body))
	require.NotContains(t, string(body), "<script>")
	require.Contains(t, string(body), `\u003cscript\u003e`)
	require.Contains(t, string(body), `\u0026 co`)
}

// A key the admin API would drop (a typing mistake, a setting at the
// wrong level) is a 422 naming it and where it belongs; a field's
// settings must suit its type, and a required field must be answerable.
func TestAdminBodiesRefuseMisplacedKeys(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createForm(t, map[string]any{"name": "Contact"})
	errs := func(method, path string, body any) map[string][]string {
		t.Helper()
		r := b.api(t, method, path, body)
		require.Equal(t, 422, r.status, r.body)
		return r.errors(t).Errors
	}
	options := []any{map[string]any{"value": "sales", "label": "Sales"}}

	// The case: options at the top level stored a select nobody
	// could answer.
	e := errs("POST", "/contact/fields", map[string]any{"type": "select", "label": "Topic", "is_required": true, "options": options})
	require.Equal(t, map[string][]string{"options": {"The options key belongs in field_config, not in the top level of a field."}}, e)
	e = errs("POST", "/contact/fields", map[string]any{"type": "text", "lable": "Name", "min": 2})
	require.Equal(t, []string{"The min key belongs in validation_rules, not in the top level of a field."}, e["min"])
	require.Equal(t, []string{"The lable key is not known in the top level of a field; it takes type, step_id, name, label, placeholder, " +
		"help_text, is_required, validation_rules, field_config, default_value, conditional_logic, width, css_classes."}, e["lable"])
	e = errs("POST", "/contact/fields", map[string]any{"type": "text", "validation_rules": map[string]any{"minimum": 2, "options": options}})
	require.Contains(t, e["validation_rules.minimum"][0], "The minimum key is not known in validation_rules; it takes min, max,")
	require.Equal(t, []string{"The options key belongs in field_config, not in validation_rules."}, e["validation_rules.options"])
	e = errs("POST", "/contact/fields", map[string]any{"type": "text", "field_config": map[string]any{"pattern": "x", "is_required": true}})
	require.Equal(t, []string{"The pattern key belongs in validation_rules, not in field_config."}, e["field_config.pattern"])
	require.Equal(t, []string{"The is_required key belongs in the field itself, not in field_config."}, e["field_config.is_required"])
	e = errs("POST", "/contact/fields", map[string]any{"type": "text", "conditional_logic": map[string]any{"action": "show",
		"rules": []any{map[string]any{"field": "x", "operator": "equals", "val": "y"}}}})
	require.Contains(t, e["conditional_logic.rules.0.val"][0], "The val key is not known in conditional_logic.rules.0; it takes field, operator, value.")

	// Settings per type; a required field must be answerable.
	e = errs("POST", "/contact/fields", map[string]any{"type": "select", "label": "Topic"})
	require.Equal(t, []string{"A select field needs at least one choice in field config.options."}, e["field_config.options"])
	e = errs("POST", "/contact/fields", map[string]any{"type": "radio", "field_config": map[string]any{"options": []any{}}})
	require.Equal(t, []string{"A choice field needs at least one choice in field config.options."}, e["field_config.options"])
	e = errs("POST", "/contact/fields", map[string]any{"type": "text", "field_config": map[string]any{"options": options, "max_size": 10}})
	require.Equal(t, []string{"A text field does not take field config.options."}, e["field_config.options"])
	require.Equal(t, []string{"A text field does not take field config.max size."}, e["field_config.max_size"])
	e = errs("POST", "/contact/fields", map[string]any{"type": "heading", "label": "About you", "is_required": true})
	require.Equal(t, []string{"A heading field takes no answer, so it cannot be required."}, e["is_required"])
	e = errs("POST", "/contact/fields", map[string]any{"type": "checkbox_group", "is_required": true,
		"field_config": map[string]any{"options": options}, "validation_rules": map[string]any{"min": 2}})
	require.Equal(t, []string{"The validation rules.min field must not be more than the 1 choices of a required field."}, e["validation_rules.min"])
	e = errs("POST", "/contact/fields", map[string]any{"type": "date", "validation_rules": map[string]any{"min_date": "2026-12-01", "max_date": "2026-11-01"}})
	require.Equal(t, []string{"The validation rules.max date field must be a date after or equal to validation rules.min date."}, e["validation_rules.max_date"])

	// A field read back and sent again whole is taken: what the API
	// answers with but never sets is ignored.
	topic := b.addField(t, "contact", map[string]any{"type": "select", "label": "Topic", "field_config": map[string]any{"options": options, "layout": "inline"}})
	topic["label"] = "Subject"
	r := b.api(t, "PUT", fmt.Sprintf("/contact/fields/%v", topic["id"]), topic)
	require.Equal(t, 200, r.status, r.body)
	require.Equal(t, "inline", r.data(t)["field_config"].(map[string]any)["layout"], "a front end's own setting is kept")
	// A type changed so that the settings no longer suit it.
	e = errs("PATCH", fmt.Sprintf("/contact/fields/%v", topic["id"]), map[string]any{"type": "email"})
	require.Equal(t, []string{"An email field does not take field config.options."}, e["field_config.options"])
	require.Equal(t, 200, b.api(t, "PATCH", fmt.Sprintf("/contact/fields/%v", topic["id"]), map[string]any{"type": "email", "field_config": nil}).status)

	// Forms, steps and notifications.
	e = errs("POST", "/", map[string]any{"name": "Other", "sucess_message": "Thanks", "label": "x"})
	require.Contains(t, e["sucess_message"][0], "The sucess_message key is not known in the top level of a form; it takes name, slug,")
	require.Equal(t, []string{"The label key belongs in a field, not in the top level of a form."}, e["label"])
	form := b.api(t, "GET", "/contact", nil)
	require.Equal(t, 200, form.status)
	r = b.api(t, "PUT", "/contact", form.data(t))
	require.Equal(t, 200, r.status, "a form read back whole is taken: "+r.body)
	e = errs("POST", "/contact/steps", map[string]any{"title": "One", "next_button": "Go"})
	require.Contains(t, e["next_button"][0], "The next_button key is not known in the top level of a step; it takes title,")
	step := b.api(t, "POST", "/contact/steps", map[string]any{"title": "One"})
	require.Equal(t, 201, step.status)
	require.Equal(t, 200, b.api(t, "PUT", fmt.Sprintf("/contact/steps/%v", step.data(t)["id"]), step.data(t)).status)
	e = errs("POST", "/contact/notifications", map[string]any{"type": "admin", "recipients": "a@example.test", "to": "b@example.test"})
	require.Contains(t, e["to"][0], "The to key is not known in the top level of a notification; it takes type, subject,")
}
