package forms_test

import (
	"encoding/csv"
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

// scoresForm makes a form with a rating of 1 to 4 (numbers) and an NPS
// question, both required.
func (b *bundle) scoresForm(t *testing.T) string {
	t.Helper()
	b.createForm(t, map[string]any{"name": "Feedback"})
	b.addField(t, "feedback", map[string]any{"type": "rating", "label": "Your stay", "is_required": true,
		"field_config": map[string]any{"scale": 4, "style": "numbers"}})
	b.addField(t, "feedback", map[string]any{"type": "nps", "label": "Recommend us", "is_required": true})
	return "feedback"
}

// A rating's settings are checked when the field is saved: a scale of 3
// to 10, a style of stars or numbers, and neither on another type.
func TestScoreFieldSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createForm(t, map[string]any{"name": "Feedback"})
	for _, c := range []struct {
		body  map[string]any
		key   string
		error string
	}{
		{map[string]any{"type": "rating", "label": "R", "field_config": map[string]any{"scale": 2}}, "field_config.scale", "The field config.scale field must be between 3 and 10."},
		{map[string]any{"type": "rating", "label": "R", "field_config": map[string]any{"scale": 11}}, "field_config.scale", "The field config.scale field must be between 3 and 10."},
		{map[string]any{"type": "rating", "label": "R", "field_config": map[string]any{"scale": 4.5}}, "field_config.scale", "The field config.scale field must be between 3 and 10."},
		{map[string]any{"type": "rating", "label": "R", "field_config": map[string]any{"scale": "5"}}, "field_config.scale", "The field config.scale field must be between 3 and 10."},
		{map[string]any{"type": "rating", "label": "R", "field_config": map[string]any{"style": "hearts"}}, "field_config.style", "The selected field config.style is invalid."},
		{map[string]any{"type": "text", "label": "T", "field_config": map[string]any{"scale": 5}}, "field_config.scale", "A text field does not take field config.scale."},
		{map[string]any{"type": "nps", "label": "N", "field_config": map[string]any{"style": "stars"}}, "field_config.style", "An NPS field does not take field config.style."},
	} {
		r := b.api(t, "POST", "/feedback/fields", c.body)
		require.Equal(t, 422, r.status, "%v: %s", c.body, r.body)
		require.Equal(t, []string{c.error}, r.errors(t).Errors[c.key], "%v", c.body)
	}
	f := b.addField(t, "feedback", map[string]any{"type": "rating", "label": "Stars"})
	require.Equal(t, "rating", f["type"])
	b.addField(t, "feedback", map[string]any{"type": "rating", "label": "Ten", "field_config": map[string]any{"scale": 10, "style": "stars"}})
	b.addField(t, "feedback", map[string]any{"type": "nps", "label": "NPS"})
}

// Scores on the submit API: a whole number on the field's scale (1 to the
// rating's scale, 0 to 10 for NPS), said otherwise; kept and shown as
// the number, so the CSV holds numbers; a list filters by a score, or
// by an NPS group (promoters, passives, detractors). Then the summary, against figures worked out by hand: the
// rating's average and each score's count, and the NPS split and score.
// Both databases.
func TestScores(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		slug := b.scoresForm(t)
		for _, c := range []struct {
			rating, nps string
			key, error  string
		}{
			{"5", "9", "your_stay", "The Your stay field must be a whole number from 1 to 4."},
			{"0", "9", "your_stay", "The Your stay field must be a whole number from 1 to 4."},
			{"2.5", "9", "your_stay", "The Your stay field must be a whole number from 1 to 4."},
			{"three", "9", "your_stay", "The Your stay field must be a whole number from 1 to 4."},
			{"3", "11", "recommend_us", "The Recommend us field must be a whole number from 0 to 10."},
			{"3", "-1", "recommend_us", "The Recommend us field must be a whole number from 0 to 10."},
			{"3", "", "recommend_us", "The Recommend us field is required."},
		} {
			r := b.submit(t, slug, part{name: "your_stay", content: c.rating}, part{name: "recommend_us", content: c.nps})
			require.Equal(t, 422, r.status, "%+v: %s", c, r.body)
			require.Equal(t, []string{c.error}, r.errors(t).Errors[c.key], "%+v", c)
		}

		// Ten responses. Ratings 4, 3, 3, 2, 4, 1, 4, 3, 3, 4: average 31/10
		// = 3.1. NPS 10, 10, 9, 8, 6, 9, 10, 7, 2, 9: promoters (9, 10) six,
		// passives (7, 8) two, detractors (0-6) two, so (6-2)/10 = +40.
		ratings := []string{"4", "3", "3", "2", "4", "1", "4", "3", "3", "4"}
		scores := []string{"10", "10", "9", "8", "6", "9", "10", "7", "2", "9"}
		for i := range ratings {
			r := b.submit(t, slug, part{name: "your_stay", content: ratings[i]}, part{name: "recommend_us", content: scores[i]})
			require.Equal(t, 201, r.status, r.body)
		}
		r := b.api(t, "GET", "/"+slug+"/submissions?"+url.Values{"field[recommend_us]": {"10"}}.Encode(), nil)
		require.Equal(t, 200, r.status, r.body)
		require.EqualValues(t, 3, r.json(t)["meta"].(map[string]any)["total"], "three answered 10")
		values := r.json(t)["data"].([]any)[0].(map[string]any)["values"].([]any)
		shown := map[string]string{}
		for _, v := range values {
			v := v.(map[string]any)
			shown[v["field_name"].(string)] = fmt.Sprint(v["value"], " ", v["display_value"])
		}
		require.Equal(t, map[string]string{"your_stay": "4 4", "recommend_us": "10 10"}, shown, "the newest: kept and shown as the number")
		for group, n := range map[string]int{"promoters": 6, "passives": 2, "detractors": 2} {
			r := b.api(t, "GET", "/"+slug+"/submissions?"+url.Values{"field[recommend_us]": {group}}.Encode(), nil)
			require.Equal(t, 200, r.status, r.body)
			require.EqualValues(t, n, r.json(t)["meta"].(map[string]any)["total"], group)
		}
		r = b.api(t, "GET", "/"+slug+"/submissions?"+url.Values{"field[recommend_us]": {"detractors"}, "field[your_stay]": {"4"}}.Encode(), nil)
		require.EqualValues(t, 1, r.json(t)["meta"].(map[string]any)["total"], "a detractor who rated 4 (4 and 6)")

		r = b.request(t, "GET", "/api/v1/forms/"+slug+"/submissions/export", "reader", "", nil)
		require.Equal(t, 200, r.status)
		rows, err := csv.NewReader(strings.NewReader(r.body)).ReadAll()
		require.NoError(t, err)
		require.Equal(t, []string{"Your stay", "Recommend us"}, rows[0][3:5])
		var column []string
		for _, row := range rows[1:] {
			column = append(column, row[3]+"|"+row[4])
		}
		require.ElementsMatch(t, []string{"4|10", "3|10", "3|9", "2|8", "4|6", "1|9", "4|10", "3|7", "3|2", "4|9"}, column, "the numbers, for a spreadsheet")

		r = b.api(t, "GET", "/"+slug+"/summary", nil)
		require.Equal(t, 200, r.status, r.body)
		fields := r.data(t)["fields"].([]any)
		rating, nps := fields[0].(map[string]any), fields[1].(map[string]any)
		require.JSONEq(t, `{"count": 10, "average": 3.1, "min": 1, "max": 4}`, mustJSON(t, rating["number"]))
		require.JSONEq(t, `[{"value": "1", "label": "1", "count": 1}, {"value": "2", "label": "2", "count": 1},
			{"value": "3", "label": "3", "count": 4}, {"value": "4", "label": "4", "count": 4}]`, mustJSON(t, rating["options"]))
		require.Nil(t, rating["nps"])
		require.JSONEq(t, `{"promoters": 6, "passives": 2, "detractors": 2, "score": 40}`, mustJSON(t, nps["nps"]))
		require.InDelta(t, 8.0, nps["number"].(map[string]any)["average"], 1e-9, "80/10")
		require.Len(t, nps["options"], 11, "each score, 0 to 10")
		require.EqualValues(t, 3, nps["options"].([]any)[10].(map[string]any)["count"], "three tens")

		page := b.request(t, "GET", forms.SummaryPathDefault+"/"+slug, "", "", nil)
		require.Equal(t, 200, page.status, page.body)
		require.Contains(t, page.body, "<strong>Average rating 3.1 out of 4.</strong>")
		require.Contains(t, page.body, "<strong>Net Promoter Score &#43;40: 6 promoters (9 or 10), 2 passives (7 or 8), 2 detractors (0 to 6).</strong>")
		if d == store.SQLite {
			b.summaryInBrowser(t, slug, "the summary of scores", "form-summary-scores")
		}
	})
}

// summaryInBrowser opens the form's summary page in Chromium: axe-core
// finds nothing there, light and dark (what names the state), and its
// screenshots are shot.
func (b *bundle) summaryInBrowser(t *testing.T, slug, what, shot string) {
	t.Helper()
	ctx := browsertest.New(t, 90*time.Second)
	browsertest.Do(t, ctx, chromedp.Navigate(b.server.URL+forms.SummaryPathDefault+"/"+slug), chromedp.WaitVisible(chromedp.CSS("table")))
	axeEverywhere(t, ctx, what)
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), shot)
}

// A rating (stars, 1 to 5) and an NPS question on the page, by keyboard
// alone, as radio groups in a row: sent unanswered, each said at the top
// and at its group; then Tab into each group, the arrow keys to a score,
// and the form sent; the scores kept. axe-core finds nothing, error
// state included, light and dark; at 320 px nothing overflows.
func TestBrowserScores(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t)
	b.createForm(t, map[string]any{"name": "Feedback", "success_message": "Thank you!"})
	b.addField(t, "feedback", map[string]any{"type": "rating", "label": "Your stay", "is_required": true})
	b.addField(t, "feedback", map[string]any{"type": "nps", "label": "How likely are you to recommend us to a friend?", "is_required": true})
	shots := os.Getenv(browsertest.EnvScreenshots)

	browsertest.Do(t, ctx, chromedp.EmulateViewport(320, 800), chromedp.Navigate(b.server.URL+"/forms/feedback"), chromedp.WaitVisible(chromedp.ID("f-your_stay")))
	require.Contains(t, browsertest.Text(t, ctx, "fieldset.scale"), "1 is the lowest, 5 the highest.")
	require.Contains(t, browsertest.Text(t, ctx, "main"), "0 is not at all likely, 10 extremely likely.")
	browsertest.NoViolations(t, ctx, "the scores, unanswered")
	browsertest.Screenshots(t, ctx, shots, "form-scores")
	b.clock.Advance(time.Minute)
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	summary := browsertest.Text(t, ctx, ".error-summary")
	require.Contains(t, summary, "Choose a score for “Your stay”")
	require.Contains(t, summary, "Choose a score for “How likely are you to recommend us to a friend”")
	require.Contains(t, browsertest.Text(t, ctx, "#f-your_stay-error"), "Choose a score for “Your stay”", "and at the group")
	browsertest.NoViolations(t, ctx, "the scores, unanswered and sent")
	browsertest.Screenshots(t, ctx, shots, "form-scores-errors")

	browsertest.TabTo(t, ctx, "#f-your_stay")
	browsertest.Press(t, ctx, " ", false)
	for range 3 {
		browsertest.Press(t, ctx, kb.ArrowRight, false)
	}
	browsertest.TabTo(t, ctx, "input[name=how_likely_are_you_to_recommend_us_to_a_friend]")
	browsertest.Press(t, ctx, " ", false)
	for range 9 {
		browsertest.Press(t, ctx, kb.ArrowRight, false)
	}
	checked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("input:checked")].map(i => i.name + "=" + i.value).join(" ")`))
	require.NoError(t, err)
	require.Equal(t, "your_stay=4 how_likely_are_you_to_recommend_us_to_a_friend=9", checked)
	browsertest.NoViolations(t, ctx, "the scores, answered")
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
	require.NoError(t, err)
	require.False(t, overflow, "nothing wider than 320 px")
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "Thank you!")

	r := b.api(t, "GET", "/feedback/submissions", nil)
	require.Equal(t, 200, r.status, r.body)
	kept := map[string]string{}
	for _, v := range r.json(t)["data"].([]any)[0].(map[string]any)["values"].([]any) {
		v := v.(map[string]any)
		kept[v["field_name"].(string)] = v["value"].(string)
	}
	require.Equal(t, map[string]string{"your_stay": "4", "how_likely_are_you_to_recommend_us_to_a_friend": "9"}, kept)
}
