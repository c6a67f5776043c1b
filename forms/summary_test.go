package forms_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// seedSurvey makes a form of two steps (topic, days, rating; comment,
// agree) and sends it answers over three days: five accepted, one spam,
// one the day before; two saved and one of them swept unsent. It returns
// the form's slug.
func (b *bundle) seedSurvey(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	b.createForm(t, map[string]any{"name": "Survey", "is_multi_step": true, "save_and_resume": true, "resume_hours": 24})
	var steps []float64
	for _, title := range []string{"Your visit", "Your words"} {
		r := b.api(t, "POST", "/survey/steps", map[string]any{"title": title})
		require.Equal(t, 201, r.status, r.body)
		steps = append(steps, r.data(t)["id"].(float64))
	}
	b.addField(t, "survey", map[string]any{"type": "select", "label": "Topic", "step_id": steps[0],
		"field_config": map[string]any{"options": []any{map[string]any{"value": "food", "label": "Food", "quota": 10}, map[string]any{"value": "rooms", "label": "Rooms"},
			map[string]any{"value": "staff", "label": "Staff"}}}})
	b.addField(t, "survey", map[string]any{"type": "checkbox_group", "label": "Days", "step_id": steps[0], "field_config": map[string]any{"options": []any{"sat", "sun"}}})
	b.addField(t, "survey", map[string]any{"type": "number", "label": "Rating", "step_id": steps[0]})
	b.addField(t, "survey", map[string]any{"type": "textarea", "label": "Comment", "step_id": steps[1]})
	b.addField(t, "survey", map[string]any{"type": "checkbox", "label": "Agree", "step_id": steps[1]})
	form, err := b.svc.Form(ctx, "survey")
	require.NoError(t, err)
	fields, err := b.svc.Fields(ctx, form.ID)
	require.NoError(t, err)
	send := func(values map[string][]string, spam bool) {
		t.Helper()
		req := &forms.SubmitRequest{Values: values, FormToken: b.svc.FormToken(form.ID)}
		if spam {
			req.Honeypot = "x"
		}
		b.clock.Advance(forms.MinFillTime)
		_, err := b.svc.Submit(ctx, form, fields, req)
		require.NoError(t, err)
	}
	send(map[string][]string{"topic": {"food"}, "rating": {"2"}}, false) // 2026-11-22, before the range
	b.clock.Advance(24 * time.Hour)                                      // 2026-11-23
	send(map[string][]string{"topic": {"food"}, "days": {"sat", "sun"}, "rating": {"4"}, "comment": {"Lovely"}, "agree": {"1"}}, false)
	send(map[string][]string{"topic": {"rooms"}, "days": {"sat"}, "rating": {"5"}, "comment": {"Quiet rooms"}}, false)
	send(map[string][]string{"topic": {"staff"}, "comment": {"BUY PILLS"}}, true)
	// A saved response that expires and is swept unsent.
	_, err = b.svc.SavePartial(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{"topic": {"food"}}}, "", "")
	require.NoError(t, err)
	b.clock.Advance(25 * time.Hour) // 2026-11-24
	_, err = b.svc.SweepKeptUploads(ctx)
	require.NoError(t, err)
	send(map[string][]string{"topic": {"food"}, "rating": {"3"}, "comment": {"Fine"}}, false)
	send(map[string][]string{"days": {"sun"}, "agree": {"0"}}, false)
	// A saved response kept, stopped on the second step.
	_, err = b.svc.SavePartial(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{"comment": {"half"}}}, "", "")
	require.NoError(t, err)
	return "survey"
}

// Answers at a glance over a date range, checked against the answers
// sent: counts per option, number statistics, the latest texts, and the
// funnel; spam and days outside left out; bad ranges refused. Both
// databases.
func TestSummary(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		slug := b.seedSurvey(t)
		r := b.api(t, "GET", "/"+slug+"/summary?from=2026-11-23&to=2026-11-24", nil)
		require.Equal(t, 200, r.status, r.body)
		require.JSONEq(t, `{
			"from": "2026-11-23T00:00:00.000000Z", "to": "2026-11-25T00:00:00.000000Z", "submissions": 4,
			"fields": [
				{"name": "topic", "label": "Topic", "type": "select", "answered": 3, "options": [
					{"value": "food", "label": "Food", "count": 2}, {"value": "rooms", "label": "Rooms", "count": 1}, {"value": "staff", "label": "Staff", "count": 0}]},
				{"name": "days", "label": "Days", "type": "checkbox_group", "answered": 3, "options": [
					{"value": "sat", "label": "sat", "count": 2}, {"value": "sun", "label": "sun", "count": 2}]},
				{"name": "rating", "label": "Rating", "type": "number", "answered": 3, "number": {"count": 3, "average": 4, "min": 3, "max": 5}},
				{"name": "comment", "label": "Comment", "type": "textarea", "answered": 3, "latest": [
					{"value": "Fine", "at": "2026-11-24T11:00:10.000000Z"},
					{"value": "Quiet rooms", "at": "2026-11-23T10:00:06.000000Z"},
					{"value": "Lovely", "at": "2026-11-23T10:00:04.000000Z"}]},
				{"name": "agree", "label": "Agree", "type": "checkbox", "answered": 4, "options": [
					{"value": "1", "label": "Yes", "count": 1}, {"value": "0", "label": "No", "count": 3}]}
			],
			"funnel": {"views": null, "starts": 6, "completions": 4, "steps": [
				{"step": 1, "title": "Your visit", "reached": 6, "stopped": 1},
				{"step": 2, "title": "Your words", "reached": 5, "stopped": 1}]}
		}`, mustJSON(t, r.data(t)))

		// The default range is the last 30 days to today.
		r = b.api(t, "GET", "/"+slug+"/summary", nil)
		require.Equal(t, 200, r.status, r.body)
		require.EqualValues(t, 5, r.data(t)["submissions"])
		require.Equal(t, "2026-10-26T00:00:00.000000Z", r.data(t)["from"], "30 days to 2026-11-24, both included")

		for query, field := range map[string]string{"from=yesterday": "from", "to=2026-13-01": "to", "from=2026-11-24&to=2026-11-23": "to",
			"from=2024-01-01&to=2026-11-24": "from"} {
			r = b.api(t, "GET", "/"+slug+"/summary?"+query, nil)
			require.Equal(t, 422, r.status, query)
			require.Contains(t, r.errors(t).Errors, field, query)
		}
		require.Equal(t, 403, b.api(t, "GET", "/"+slug+"/summary", nil, "viewer").status)
	})
}

// The owner's pages: the list of forms, a form's answers at a glance in
// words and tables, a bad range told at its input; in Chromium, by
// keyboard, axe-core finds nothing, light and dark, phone and desktop.
func TestBrowserSummaryPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slug := b.seedSurvey(t)
	list := b.request(t, "GET", forms.SummaryPathDefault+"/", "", "", nil)
	require.Equal(t, 200, list.status)
	require.Contains(t, list.body, `<a href="/form-answers/survey">Survey</a>`)
	page := b.request(t, "GET", forms.SummaryPathDefault+"/"+slug+"?from=2026-11-23&to=2026-11-24", "", "", nil)
	require.Equal(t, 200, page.status, page.body)
	for _, text := range []string{"<h1>Answers: Survey</h1>", "4 responses from 23 November 2026 to 24 November 2026, spam left out.",
		`<th scope="row">Food</th><td class="num">2</td><td class="num"><meter min="0" max="1" value="0.6666666666666666" aria-hidden="true"></meter> 67%</td><td class="num">7</td>`, // three chose food in all, two of them in the range
		`<th scope="col" class="num">Places left</th>`, `<th scope="row">Rooms</th><td class="num">1</td><td class="num"><meter min="0" max="1" value="0.3333333333333333" aria-hidden="true"></meter> 33%</td><td class="num">–</td>`,
		"Average 4, lowest 3, highest 5.",
		"<li>Fine <span class=\"help\">(24 Nov 2026, 11:00)</span></li>", `<th scope="row">1. Your visit</th><td class="num">6</td><td class="num">1</td>`,
		`<th scope="row">Saw the form</th><td class="num">Not measured</td><td class="num">–</td>`,
		"4 of 6 began it and sent it: 66.7%. The views of the form&#39;s page are not measured: the analytics is not linked to the forms.",
		`<th scope="row">Yes</th><td class="num">1</td><td class="num"><meter min="0" max="1" value="0.25" aria-hidden="true"></meter> 25%</td></tr>`,
		`<th scope="row">No</th><td class="num">3</td>`} {
		require.Contains(t, page.body, text)
	}
	require.NotContains(t, page.body, "BUY PILLS", "spam left out")
	bad := b.request(t, "GET", forms.SummaryPathDefault+"/"+slug+"?from=2026-11-24&to=2026-11-01", "", "", nil)
	require.Equal(t, 422, bad.status)
	require.Contains(t, bad.body, "The to field must be a date after or equal to from.")
	require.Equal(t, 404, b.request(t, "GET", forms.SummaryPathDefault+"/nope", "", "", nil).status)

	ctx := browsertest.New(t, 90*time.Second)
	browsertest.Do(t, ctx, chromedp.Navigate(b.server.URL+forms.SummaryPathDefault+"/"), chromedp.WaitVisible(chromedp.CSS("table")))
	axeEverywhere(t, ctx, "the list of forms")
	browsertest.TabTo(t, ctx, `a[href="/form-answers/survey"]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "h1"), "Answers: Survey")
	// The range by keyboard: the dates typed, then Show.
	browsertest.Do(t, ctx, chromedp.SetValue(chromedp.CSS("#from"), "2026-11-23"), chromedp.SetValue(chromedp.CSS("#to"), "2026-11-24"))
	browsertest.TabTo(t, ctx, "form.actions button")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "main"), "4 responses from 23 November 2026")
	axeEverywhere(t, ctx, "a form's answers")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "form-summary")
	browsertest.Do(t, ctx, chromedp.Navigate(b.server.URL+forms.SummaryPathDefault+"/"+slug+"?from=2026-11-24&to=2026-11-01"),
		chromedp.WaitVisible(chromedp.CSS(".error-summary")))
	axeEverywhere(t, ctx, "a bad range")
}
