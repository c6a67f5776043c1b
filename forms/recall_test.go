package forms_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/browsertest"
)

// recallForm makes a form whose "why" question recalls the person's name
// and plan, whose thanks recalls the name, with a hidden campaign field
// (filled from the address) and a signed hidden account field. With
// steps, the name and plan are asked on the first step, "why" on the
// second, and a jump ends the form for the free plan (so the page shows
// a step at a time).
func (b *bundle) recallForm(t testing.TB, stepped bool) string {
	t.Helper()
	b.createForm(t, map[string]any{"name": "Feedback", "success_message": "Thank you, {{name|friend}}!", "is_multi_step": stepped})
	var first, second any
	if stepped {
		first = b.api(t, "POST", "/feedback/steps", map[string]any{"title": "You"}).data(t)["id"]
		second = b.api(t, "POST", "/feedback/steps", map[string]any{"title": "Your reasons"}).data(t)["id"]
		r := b.api(t, "PATCH", fmt.Sprintf("/feedback/steps/%v", first), map[string]any{"jumps": []any{
			map[string]any{"action": "end", "rules": []any{map[string]any{"field": "plan", "operator": "equals", "value": "free"}}}}})
		require.Equal(t, 200, r.status, r.body)
	}
	b.addField(t, "feedback", map[string]any{"type": "text", "name": "name", "label": "Your name", "step_id": first})
	b.addField(t, "feedback", map[string]any{"type": "radio", "name": "plan", "label": "Your plan", "is_required": true, "step_id": first,
		"field_config": map[string]any{"options": []any{map[string]any{"value": "pro", "label": "Pro plan"}, map[string]any{"value": "free", "label": "Free plan"}}}})
	b.addField(t, "feedback", map[string]any{"type": "textarea", "name": "why", "label": "Why {{ plan | this plan }}, {{name|friend}}?", "is_required": true,
		"help_text": "A line or two, {{name}}.", "step_id": second})
	b.addField(t, "feedback", map[string]any{"type": "hidden", "name": "utm_campaign", "label": "Campaign"})
	b.addField(t, "feedback", map[string]any{"type": "hidden", "name": "account", "label": "Account", "field_config": map[string]any{"signed": true}})
	return "feedback"
}

// Recall: a label naming no other question is refused when saved; the
// page fills in the answers it knows, escaped, and the fallback where it
// knows none; the thanks and the API's message recall the submission's.
// Hidden fields: one takes its value from the address unasked; a signed
// one only from a signed prefill token, whatever the address or the
// submission says, and cannot be required.
func TestRecallAndHiddenFields(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slug := b.recallForm(t, false)
	for _, c := range []struct {
		field      map[string]any
		key, error string
	}{
		{map[string]any{"type": "text", "label": "About {{nobody|you}}"}, "label", "The label field recalls {{nobody}}, which is no other question of this form."},
		{map[string]any{"type": "text", "name": "self", "label": "Again", "help_text": "You said {{self}}"}, "help_text",
			"The help text field recalls {{self}}, which is no other question of this form."},
		{map[string]any{"type": "hidden", "name": "acct", "is_required": true, "field_config": map[string]any{"signed": true}}, "field_config.signed",
			"A signed field takes its value only from a signed prefill token, so it cannot be required: a person who opens the form without one could not send it."},
		{map[string]any{"type": "hidden", "name": "acct", "field_config": map[string]any{"signed": "yes"}}, "field_config.signed",
			"The field config.signed field must be true or false."},
	} {
		r := b.api(t, "POST", "/"+slug+"/fields", c.field)
		require.Equal(t, 422, r.status, r.body)
		require.Equal(t, []string{c.error}, r.errors(t).Errors[c.key], r.body)
	}
	fields := b.api(t, "GET", "/"+slug+"/fields", nil).json(t)["data"].([]any)
	why := fields[2].(map[string]any)
	r := b.api(t, "PATCH", fmt.Sprintf("/%s/fields/%v", slug, why["id"]), map[string]any{"label": "Why {{why}}?"})
	require.Equal(t, 422, r.status, "a question recalling itself: %s", r.body)

	// The page, first drawn: fallbacks; the campaign from the address, the
	// account not.
	v := &visitor{b: b}
	r = v.do(t, "GET", "/forms/"+slug+"?utm_campaign=spring&account=forged", "", nil, nil)
	require.Equal(t, 200, r.status)
	require.Contains(t, r.body, "Why this plan, friend?")
	require.Contains(t, r.body, "A line or two, .")
	require.Contains(t, r.body, `<input type="hidden" name="utm_campaign" value="spring">`)
	require.NotContains(t, r.body, `name="account"`, "a signed field without a token: not on the page")
	page := readPage(t, r.body)

	// Sent without a reason: drawn again, the answers recalled, escaped.
	b.clock.Advance(20 * time.Second)
	page.inputs["name"], page.inputs["plan"], page.inputs["account"] = "<b>Ann</b>", "pro", "forged"
	var parts []part
	for name, val := range page.inputs {
		parts = append(parts, part{name: name, content: val})
	}
	r = v.do(t, "POST", page.action, "", nil, parts)
	require.Equal(t, 422, r.status, r.body)
	require.Contains(t, r.body, "Why Pro plan, &lt;b&gt;Ann&lt;/b&gt;?")
	require.NotContains(t, r.body, "<b>Ann</b>")

	// The API: the message recalls the answers as they were given; the
	// account the submission names is dropped, the token's kept.
	r = b.postJSON(t, slug, `{"name": "<b>Ann</b>", "plan": "pro", "why": "Cheap", "utm_campaign": "spring", "account": "forged"}`)
	require.Equal(t, 201, r.status, r.body)
	require.Equal(t, "Thank you, <b>Ann</b>!", r.json(t)["message"])
	form, err := b.svc.Form(t.Context(), slug)
	require.NoError(t, err)
	token := b.svc.PrefillToken(form.ID, map[string]string{"account": "A-17"}, time.Hour)
	r = b.postJSON(t, slug, `{"plan": "free", "why": "Free", "account": "forged", "_prefill": "`+token+`"}`)
	require.Equal(t, 201, r.status, r.body)
	require.Equal(t, "Thank you, friend!", r.json(t)["message"], "no name: the fallback")
	require.Equal(t, []string{"plan=free why=Free account=A-17", "name=<b>Ann</b> plan=pro why=Cheap utm_campaign=spring"}, b.storedAnswers(t, slug))

	// The definition keeps the placeholders for a host's own front end.
	def := b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/render", "", "", nil)
	require.Contains(t, def.body, `Why {{ plan | this plan }}, {{name|friend}}?`)
}

// Recall and hidden fields in a browser: the form embedded in another
// site's page, which passes its campaign (from its own address), a
// value of its own (data-values) and a signed account (data-prefill).
// The first step asks the name and plan by keyboard; the second's
// question recalls them; the thanks the name. axe-core finds nothing on
// either step or the thanks.
func TestBrowserRecallAndHidden(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t)
	slug := b.recallForm(t, true)
	b.addField(t, slug, map[string]any{"type": "hidden", "name": "source", "label": "Source"})
	form, err := b.svc.Form(t.Context(), slug)
	require.NoError(t, err)
	token := b.svc.PrefillToken(form.ID, map[string]string{"account": "A-17"}, time.Hour)
	hostOrigin, pagesURL := embedSites(t, b, `<p><a href="%[1]s/forms/%[2]s" data-groundwork-embed="inline" data-values="source=pricing&amp;account=forged" data-prefill="`+token+`">Feedback</a></p></main>
<script src="%[1]s/forms/embed.js" async></script>`, slug)
	shots := os.Getenv(browsertest.EnvScreenshots)

	browsertest.Do(t, ctx, chromedp.EmulateViewport(390, 900), chromedp.Navigate(hostOrigin+"/?utm_campaign=spring"))
	frame := browsertest.Frame(t, ctx, pagesURL+"/forms/"+slug)
	browsertest.Do(t, frame, chromedp.WaitVisible(chromedp.ID("f-name")))
	carried, err := chromedp.Run(frame, chromedp.Evaluate[string](`[...document.querySelectorAll("input[type=hidden]")].filter(i => !i.name.startsWith("_")).map(i => i.name + "=" + i.value).join(" ")`))
	require.NoError(t, err)
	require.Equal(t, "utm_campaign=spring source=pricing", carried, "the host page's campaign and value, not its account")
	b.clock.Advance(time.Minute)
	browsertest.TabTo(t, frame, "#f-name")
	browsertest.Press(t, frame, "Ann & Bo", false)
	browsertest.TabTo(t, frame, "#f-plan")
	browsertest.Press(t, frame, " ", false) // Pro plan
	browsertest.TabTo(t, frame, "main button[type=submit]")
	browsertest.Press(t, frame, "\r", true)
	browsertest.Do(t, frame, chromedp.WaitVisible(chromedp.ID("f-why")))
	require.Equal(t, "Why Pro plan, Ann & Bo? *", browsertest.Text(t, frame, `label[for="f-why"]`))
	browsertest.NoViolationsIn(t, ctx, frame, "the step recalling the answers")
	browsertest.Screenshots(t, ctx, shots, "form-recall")
	browsertest.TabTo(t, frame, "#f-why")
	browsertest.Press(t, frame, "It is quick.", false)
	browsertest.TabTo(t, frame, "main button[type=submit]")
	browsertest.Press(t, frame, "\r", true)
	require.Equal(t, "Thank you, Ann & Bo!", browsertest.Text(t, frame, ".notice"))
	browsertest.NoViolationsIn(t, ctx, frame, "the thanks recalling the name")

	r := b.api(t, "GET", "/"+slug+"/submissions", nil)
	require.Equal(t, 200, r.status, r.body)
	kept := map[string]string{}
	for _, v := range r.json(t)["data"].([]any)[0].(map[string]any)["values"].([]any) {
		v := v.(map[string]any)
		kept[v["field_name"].(string)] = v["value"].(string)
	}
	require.Equal(t, map[string]string{"name": "Ann & Bo", "plan": "pro", "why": "It is quick.", "utm_campaign": "spring", "source": "pricing",
		"account": "A-17"}, kept)
}
