package forms_test

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// jumpsForm makes a form of three steps. "About you" asks who is asking
// (a person, a business, or just looking), "Your company" the company's
// name, "Reaching you" an email address, all required. After the first:
// a person goes on to "Reaching you", one just looking to the end. It
// returns the steps' ids.
func (b *bundle) jumpsForm(t testing.TB) (slug string, about, company, reach int64) {
	t.Helper()
	b.createForm(t, map[string]any{"name": "Quote", "is_multi_step": true, "success_message": "Thank you!"})
	ids := make([]int64, 3)
	for i, title := range []string{"About you", "Your company", "Reaching you"} {
		r := b.api(t, "POST", "/quote/steps", map[string]any{"title": title})
		require.Equal(t, 201, r.status, r.body)
		ids[i] = int64(r.data(t)["id"].(float64))
	}
	b.addField(t, "quote", map[string]any{"type": "radio", "name": "who", "label": "Who is asking?", "is_required": true, "step_id": ids[0],
		"field_config": map[string]any{"options": []any{map[string]any{"value": "person", "label": "A person"},
			map[string]any{"value": "business", "label": "A business"}, map[string]any{"value": "looking", "label": "Just looking"}}}})
	b.addField(t, "quote", map[string]any{"type": "text", "name": "company", "label": "Company name", "is_required": true, "step_id": ids[1]})
	b.addField(t, "quote", map[string]any{"type": "email", "name": "email", "label": "Email address", "is_required": true, "step_id": ids[2]})
	r := b.api(t, "PATCH", fmt.Sprintf("/quote/steps/%d", ids[0]), map[string]any{"jumps": []any{
		map[string]any{"action": "go_to", "to_step_id": ids[2], "rules": []any{map[string]any{"field": "who", "operator": "equals", "value": "person"}}},
		map[string]any{"action": "end", "rules": []any{map[string]any{"field": "who", "operator": "equals", "value": "looking"}}},
	}})
	require.Equal(t, 200, r.status, r.body)
	return "quote", ids[0], ids[1], ids[2]
}

// storedAnswers is each submission of the form, newest first, as its
// answers' "name=value" in their order.
func (b *bundle) storedAnswers(t *testing.T, slug string) []string {
	t.Helper()
	var out []string
	for _, s := range b.api(t, "GET", "/"+slug+"/submissions", nil).json(t)["data"].([]any) {
		var row []string
		for _, v := range s.(map[string]any)["values"].([]any) {
			v := v.(map[string]any)
			row = append(row, v["field_name"].(string)+"="+v["value"].(string))
		}
		out = append(out, strings.Join(row, " "))
	}
	return out
}

// Jumps are checked when saved: a known action, a later step to go to
// (no loop), the end naming none, and no required field left where no
// path reaches; a step a jump goes to is not deleted, nor the steps put
// in an order where a jump goes back.
func TestJumpSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, about, company, reach := b.jumpsForm(t)
	rule := []any{map[string]any{"field": "who", "operator": "equals", "value": "person"}}
	for _, c := range []struct {
		step  int64
		jumps []any
		key   string
		error string
	}{
		{reach, []any{map[string]any{"action": "go_to", "to_step_id": about, "rules": rule}}, "jumps.0.to_step_id",
			"The jumps.0.to step id field must name a later step of the form: a jump goes forward."},
		{company, []any{map[string]any{"action": "go_to", "to_step_id": company}}, "jumps.0.to_step_id",
			"The jumps.0.to step id field must name a later step of the form: a jump goes forward."},
		{about, []any{map[string]any{"action": "go_to", "to_step_id": 999999}}, "jumps.0.to_step_id",
			"The jumps.0.to step id field must name a later step of the form: a jump goes forward."},
		{about, []any{map[string]any{"action": "go_to"}}, "jumps.0.to_step_id", "The jumps.0.to step id field is required."},
		{about, []any{map[string]any{"action": "end", "to_step_id": reach}}, "jumps.0.to_step_id", "A jump to the end names no step: leave jumps.0.to step id out."},
		{about, []any{map[string]any{"action": "skip"}}, "jumps.0.action", "The selected jumps.0.action is invalid."},
		{about, []any{map[string]any{"action": "end", "then": 1}}, "jumps.0.then", "The then key is not known in jumps.0; it takes action, logic, rules, to_step_id."},
		{about, []any{map[string]any{"action": "go_to", "to_step_id": reach}}, "jumps",
			`No path reaches the step "Your company", yet its field "Company name" is required: change the jumps, or make the field optional.`},
	} {
		r := b.api(t, "PATCH", fmt.Sprintf("/quote/steps/%d", c.step), map[string]any{"jumps": c.jumps})
		require.Equal(t, 422, r.status, "%v: %s", c.jumps, r.body)
		require.Equal(t, []string{c.error}, r.errors(t).Errors[c.key], "%v: %s", c.jumps, r.body)
	}
	r := b.api(t, "DELETE", fmt.Sprintf("/quote/steps/%d", reach), nil)
	require.Equal(t, 422, r.status, r.body)
	require.Equal(t, []string{`A jump of the step "About you" goes to this one: change it before deleting this step.`}, r.errors(t).Errors["step"])
	r = b.api(t, "POST", "/quote/steps/reorder", map[string]any{"ordered_ids": []any{reach, about, company}})
	require.Equal(t, 422, r.status, r.body)
	require.Contains(t, r.errors(t).Errors["ordered_ids"][0], "In that order a jump would go back")

	// Company made optional, every path may skip its step; made required
	// again while none reaches it, refused.
	fields := b.api(t, "GET", "/quote/fields", nil).json(t)["data"].([]any)
	companyID := int64(fields[1].(map[string]any)["id"].(float64))
	r = b.api(t, "PATCH", fmt.Sprintf("/quote/fields/%d", companyID), map[string]any{"is_required": false})
	require.Equal(t, 200, r.status, r.body)
	r = b.api(t, "PATCH", fmt.Sprintf("/quote/steps/%d", about), map[string]any{"jumps": []any{map[string]any{"action": "go_to", "to_step_id": reach}}})
	require.Equal(t, 200, r.status, r.body)
	r = b.api(t, "PATCH", fmt.Sprintf("/quote/fields/%d", companyID), map[string]any{"is_required": true})
	require.Equal(t, 422, r.status, r.body)
	require.Equal(t, []string{"No path reaches this field's step, so it cannot be required: change the step's jumps first."}, r.errors(t).Errors["is_required"])
}

// The submit API follows the jumps: the answers of steps skipped are
// dropped, not refused, and their required fields not asked; the route's
// own are. On two instances of one database the same answers are kept,
// and a jump changed on one is followed by the other at once (its cached
// definition is judged again). Both databases.
func TestJumpsOnTheAPI(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn, files := storetest.DSN(t, d), t.TempDir()
		shared := func(o *setupOptions) { o.dsn, o.blobDir = dsn, files }
		one, two := setup(t, shared), setup(t, shared)
		slug, about, _, reach := one.jumpsForm(t)
		kept := func(b *bundle) []string { return b.storedAnswers(t, slug) }
		for _, b := range []*bundle{one, two} {
			r := b.postJSON(t, slug, `{"who": "business", "company": ""}`)
			require.Equal(t, 422, r.status, r.body)
			require.Equal(t, []string{"The Company name field is required."}, r.errors(t).Errors["company"])
			require.Equal(t, []string{"The Email address field is required."}, r.errors(t).Errors["email"])

			r = b.postJSON(t, slug, `{"who": "person", "company": "Skipped Ltd", "email": "ann@example.test"}`)
			require.Equal(t, 201, r.status, "a person's company is on a step skipped: dropped, not refused: %s", r.body)
			r = b.postJSON(t, slug, `{"who": "looking", "company": "Nobody", "email": "not an address"}`)
			require.Equal(t, 201, r.status, "to the end: nothing after asked: %s", r.body)
			r = b.postJSON(t, slug, `{"who": "business", "company": "Acme", "email": "bo@acme.test"}`)
			require.Equal(t, 201, r.status, r.body)
		}
		want := []string{"who=business company=Acme email=bo@acme.test", "who=looking", "who=person email=ann@example.test"}
		require.ElementsMatch(t, append(want, want...), kept(one), "the same answers kept from either instance")
		require.Equal(t, kept(one), kept(two))

		// Two has the form cached; one now sends a business to the end.
		r := one.api(t, "PATCH", fmt.Sprintf("/%s/steps/%d", slug, about), map[string]any{"jumps": []any{
			map[string]any{"action": "go_to", "to_step_id": reach, "rules": []any{map[string]any{"field": "who", "operator": "equals", "value": "person"}}},
			map[string]any{"action": "end", "rules": []any{map[string]any{"field": "who", "operator": "in", "value": "looking,business"}}},
		}})
		require.Equal(t, 200, r.status, r.body)
		r = two.postJSON(t, slug, `{"who": "business", "company": "Late Ltd", "email": "x@late.test"}`)
		require.Equal(t, 201, r.status, r.body)
		require.Equal(t, "who=business", kept(one)[0], "the new jump followed by the other instance")
	})
}

// A form with jumps on the page, one step at a time, by keyboard alone
// and without JavaScript: a person's answer on the first step jumps
// over the company's step to the email's; Back returns to it with the
// answer kept; a business goes through the company's step, where a
// missing name is said; sent, the company's answer of the skipped route
// is not kept. axe-core finds nothing on each step, light and dark.
func TestBrowserJumps(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	b := setup(t)
	slug, _, _, _ := b.jumpsForm(t)
	shots := os.Getenv(browsertest.EnvScreenshots)
	legend := func() string { return browsertest.Text(t, ctx, "main form fieldset legend") }

	browsertest.Do(t, ctx, chromedp.EmulateViewport(390, 800), chromedp.Navigate(b.server.URL+"/forms/"+slug), chromedp.WaitVisible(chromedp.ID("f-who")))
	require.Equal(t, "About you", legend())
	require.NotContains(t, browsertest.Text(t, ctx, "main"), "Company name", "one step at a time")
	browsertest.NoViolations(t, ctx, "the first step")
	browsertest.Screenshots(t, ctx, shots, "form-jumps")
	b.clock.Advance(time.Minute)

	// A business: on to the company's step, sent without a name.
	browsertest.TabTo(t, ctx, "#f-who")
	browsertest.Press(t, ctx, " ", false)
	browsertest.Press(t, ctx, kb.ArrowDown, false) // A business
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "Your company", legend())
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".error-summary"), "Enter a company name")
	require.Equal(t, "Your company", legend())
	browsertest.NoViolations(t, ctx, "the company's step, its name missing")
	browsertest.Screenshots(t, ctx, shots, "form-jumps-errors")

	// Back, and a person instead: over the company's step.
	browsertest.TabTo(t, ctx, "main button[value=back]")
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "About you", legend())
	checked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("input[name=who]:checked").value`))
	require.NoError(t, err)
	require.Equal(t, "business", checked, "the answer kept")
	browsertest.TabTo(t, ctx, "#f-who-1")
	browsertest.Press(t, ctx, kb.ArrowUp, false) // A person
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "Reaching you", legend(), "the company's step jumped over")
	browsertest.NoViolations(t, ctx, "the last step")
	browsertest.TabTo(t, ctx, "#f-email")
	browsertest.Press(t, ctx, "ann@example.test", false)
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "Thank you!")

	r := b.api(t, "GET", "/"+slug+"/submissions", nil)
	require.Equal(t, 200, r.status, r.body)
	var got []string
	for _, v := range r.json(t)["data"].([]any)[0].(map[string]any)["values"].([]any) {
		v := v.(map[string]any)
		got = append(got, v["field_name"].(string)+"="+v["value"].(string))
	}
	require.Equal(t, []string{"who=person", "email=ann@example.test"}, got)
}

// The CAPTCHA of a form with jumps is drawn on the steps it may be sent
// from only (the last, and one with a jump to the end): the others are
// not checked, so they ask nothing of the person. Each step says where
// it is on the person's route ("Step 2 of 3"), the route as the answers
// so far lead.
func TestCaptchaOnTheStepsThatSend(t *testing.T) {
	t.Parallel()
	provider := newSiteverify(t, "turnstile-secret")
	b := setup(t, func(o *setupOptions) {
		o.service = func(so *forms.Options) {
			var err error
			so.Captcha, err = forms.NewTurnstile(forms.CaptchaOptions{SiteKey: "0x4AAAA-site", Secret: "turnstile-secret", BaseURL: provider.URL})
			require.NoError(t, err)
		}
	})
	slug, _, _, _ := b.jumpsForm(t)
	require.Equal(t, 200, b.api(t, "PATCH", "/"+slug, map[string]any{"captcha": true}).status)
	v := &visitor{b: b}
	widget := `class="cf-turnstile"`
	r := v.do(t, "GET", "/forms/"+slug, "", nil, nil)
	require.Contains(t, r.body, widget, "About you may end the form")
	require.Contains(t, r.body, `<p class="progress">Step 1 of 3</p>`)
	page := readPage(t, r.body)
	b.clock.Advance(time.Minute)
	page.inputs["who"] = "business"
	body := url.Values{}
	for k, val := range page.inputs {
		body.Set(k, val)
	}
	r = v.do(t, "POST", page.action, "application/x-www-form-urlencoded", strings.NewReader(body.Encode()), nil)
	require.Equal(t, 200, r.status, r.body)
	require.Contains(t, r.body, "<legend>Your company</legend>")
	require.NotContains(t, r.body, widget, "the company's step sends nothing")
	require.Contains(t, r.body, `<p class="progress">Step 2 of 3</p>`)
	page = readPage(t, r.body)
	page.inputs["company"] = "Acme"
	body = url.Values{}
	for k, val := range page.inputs {
		body.Set(k, val)
	}
	r = v.do(t, "POST", page.action, "application/x-www-form-urlencoded", strings.NewReader(body.Encode()), nil)
	require.Equal(t, 200, r.status, r.body)
	require.Contains(t, r.body, "<legend>Reaching you</legend>")
	require.Contains(t, r.body, widget, "the last step")
	require.Contains(t, r.body, `<p class="progress">Step 3 of 3</p>`)
	require.Empty(t, provider.Calls(), "no step was checked")
}
