package forms_test

import (
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/browsertest"
)

// Prefill from the address: fields that opt in take the values the page
// or render address gives them, when they would take them as answers;
// others are left alone.
func TestPrefillFromAddress(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slug := b.contactForm(t)
	b.addField(t, slug, map[string]any{"type": "hidden", "label": "Plan", "field_config": map[string]any{"prefill": true}})
	b.addField(t, slug, map[string]any{"type": "hidden", "name": "utm_campaign", "label": "Campaign", "field_config": map[string]any{"prefill": true}})
	b.addField(t, slug, map[string]any{"type": "number", "label": "Seats", "field_config": map[string]any{"prefill": true},
		"validation_rules": map[string]any{"max": 10}})
	b.addField(t, slug, map[string]any{"type": "checkbox_group", "label": "Days", "field_config": map[string]any{"prefill": true,
		"options": []any{"mon", "tue", "wed"}}})
	for _, bad := range []map[string]any{
		{"type": "file", "label": "Photo", "field_config": map[string]any{"prefill": true}},
		{"type": "text", "label": "Code", "field_config": map[string]any{"prefill": "yes"}},
	} {
		r := b.api(t, "POST", "/"+slug+"/fields", bad)
		require.Equal(t, 422, r.status, r.body)
		require.Contains(t, r.errors(t).Errors, "field_config.prefill")
	}

	query := "?plan=pro&utm_campaign=spring&name=Eve&seats=99&days=mon&days=wed&days=sun"
	page := b.request(t, "GET", "/forms/"+slug+query, "", "", nil)
	require.Equal(t, 200, page.status)
	require.Contains(t, page.body, `<input type="hidden" name="plan" value="pro">`)
	require.Contains(t, page.body, `<input type="hidden" name="utm_campaign" value="spring">`)
	require.NotContains(t, page.body, `value="Eve"`, "a field that does not opt in")
	require.NotContains(t, page.body, `value="99"`, "a value the field would refuse")
	require.NotContains(t, page.body, `value="mon" checked`, "a list with a value the field would refuse")

	page = b.request(t, "GET", "/forms/"+slug+"?seats=3&days=mon&days=wed", "", "", nil)
	require.Contains(t, page.body, `value="3"`)
	require.Contains(t, page.body, `value="mon" checked`)
	require.Contains(t, page.body, `value="wed" checked`)

	def := b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/render"+query, "", "", nil)
	require.Equal(t, 200, def.status, def.body)
	require.JSONEq(t, `{"plan":["pro"],"utm_campaign":["spring"]}`, mustJSON(t, def.data(t)["prefill"]))
	require.JSONEq(t, `[]`, mustJSON(t, def.data(t)["locked"]))
}

// A signed prefill sets values the person cannot change: shown without
// an input, and a submission with the token has them whatever it says;
// a forged, expired or another form's token is refused in words.
func TestSignedPrefill(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slug := b.contactForm(t)
	b.addField(t, slug, map[string]any{"type": "hidden", "name": "account", "label": "Account"})
	form, err := b.svc.Form(t.Context(), slug)
	require.NoError(t, err)
	token := b.svc.PrefillToken(form.ID, map[string]string{"email": "vip@example.test", "topic": "sales", "account": "A-17", "nope": "x"}, time.Hour)

	page := b.request(t, "GET", "/forms/"+slug+"?prefill="+url.QueryEscape(token), "", "", nil)
	require.Equal(t, 200, page.status)
	require.Contains(t, page.body, "<p><strong>Email</strong></p>\n<p>vip@example.test</p>")
	require.Contains(t, page.body, "<p>Sales</p>", "a choice by its label")
	require.NotContains(t, page.body, `name="email"`, "no input to change")
	require.NotContains(t, page.body, `name="account"`)
	require.Contains(t, page.body, `name="`+forms.PrefillField+`" value="`+token+`"`)

	def := b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/render?prefill="+url.QueryEscape(token), "", "", nil)
	require.Equal(t, 200, def.status, def.body)
	require.JSONEq(t, `{"account":["A-17"],"email":["vip@example.test"],"topic":["sales"]}`, mustJSON(t, def.data(t)["prefill"]))
	require.JSONEq(t, `["account","email","topic"]`, mustJSON(t, def.data(t)["locked"]))

	// Sent with other values: the signed ones are kept.
	r := b.submit(t, slug, part{name: "name", content: "Vi"}, part{name: "email", content: "other@example.test"},
		part{name: "topic", content: "support"}, part{name: forms.PrefillField, content: token})
	require.Equal(t, 201, r.status, r.body)
	sub := b.api(t, "GET", "/"+slug+"/submissions/"+num(r.json(t)["submission_id"]), nil)
	require.Contains(t, sub.body, `"vip@example.test"`)
	require.Contains(t, sub.body, `"A-17"`)
	require.NotContains(t, sub.body, "other@example.test")
	require.NotContains(t, sub.body, `"support"`)

	// Forged, for another form, expired.
	b.createForm(t, map[string]any{"name": "Other"})
	other, err := b.svc.Form(t.Context(), "other")
	require.NoError(t, err)
	forged := token[:strings.LastIndex(token, ".")+1] + "AAAAAAAAAAAAAAAAAAAAAA"
	for _, bad := range []string{forged, b.svc.PrefillToken(other.ID, map[string]string{"email": "x@example.test"}, time.Hour), "junk"} {
		r = b.submit(t, slug, append(valid(), part{name: forms.PrefillField, content: bad})...)
		require.Equal(t, 422, r.status, r.body)
		require.Contains(t, r.errors(t).Errors, forms.PrefillField)
		def = b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/render?prefill="+url.QueryEscape(bad), "", "", nil)
		require.Equal(t, 422, def.status)
	}
	b.clock.Advance(2 * time.Hour)
	page = b.request(t, "GET", "/forms/"+slug+"?prefill="+url.QueryEscape(token), "", "", nil)
	require.Contains(t, page.body, "filled in for you by a link that is no longer good")
	require.Contains(t, page.body, `name="email"`, "the form, to fill in by hand")
}

// The page with a signed prefill and values from the address, in
// Chromium: axe-core finds nothing, light and dark, phone and desktop.
func TestBrowserPrefilledPage(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 60*time.Second)
	b := setup(t)
	slug := b.contactForm(t)
	form, err := b.svc.Form(t.Context(), slug)
	require.NoError(t, err)
	token := b.svc.PrefillToken(form.ID, map[string]string{"email": "vip@example.test", "topic": "sales"}, time.Hour)
	browsertest.Do(t, ctx, chromedp.Navigate(b.server.URL+"/forms/"+slug+"?prefill="+url.QueryEscape(token)),
		chromedp.WaitVisible(chromedp.CSS("input[name=name]")))
	require.Contains(t, browsertest.Text(t, ctx, "main"), "vip@example.test")
	axeEverywhere(t, ctx, "a page with a signed prefill")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "form-prefilled")
}
