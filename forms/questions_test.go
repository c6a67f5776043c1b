package forms_test

import (
	"encoding/csv"
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

// surveyForm makes a form with a required matrix (three rows, three
// columns), a required ranking of three items, a date and time, and a
// statement.
func (b *bundle) surveyForm(t testing.TB) string {
	t.Helper()
	b.createForm(t, map[string]any{"name": "Survey", "success_message": "Thank you!"})
	b.addField(t, "survey", map[string]any{"type": "statement", "label": "About your visit", "help_text": "Three questions, one minute."})
	b.addField(t, "survey", map[string]any{"type": "matrix", "name": "rate", "label": "Rate our service", "is_required": true,
		"field_config": map[string]any{
			"rows":    []any{map[string]any{"value": "speed", "label": "Speed"}, "Price", map[string]any{"value": "staff", "label": "Friendly staff"}},
			"options": []any{map[string]any{"value": "poor", "label": "Poor"}, map[string]any{"value": "fair", "label": "Fair"}, map[string]any{"value": "good", "label": "Good"}}}})
	b.addField(t, "survey", map[string]any{"type": "ranking", "name": "rank", "label": "What matters most?", "is_required": true,
		"field_config": map[string]any{"options": []any{map[string]any{"value": "cost", "label": "Cost"},
			map[string]any{"value": "time", "label": "Time"}, map[string]any{"value": "care", "label": "Care"}}}})
	b.addField(t, "survey", map[string]any{"type": "datetime", "name": "call", "label": "When may we call?",
		"validation_rules": map[string]any{"min_date": "2026-12-01", "max_date": "2026-12-31", "min_time": "09:00", "max_time": "17:30"}})
	return "survey"
}

// formToken is a form-load token from the form's render route, the
// least time to fill the form in let pass, as a person would.
func (b *bundle) formToken(t *testing.T, form string) string {
	t.Helper()
	parts := withFormToken(t, b.clock, func(path string) reply { return b.request(t, "GET", path, "", "", nil) }, form, nil)
	require.Len(t, parts, 1)
	return parts[0].content
}

// postJSON submits a JSON object of answers ({...}, the token added) to
// a form's submit route.
func (b *bundle) postJSON(t *testing.T, form, body string) reply {
	t.Helper()
	body = `{"` + forms.FormTokenField + `": "` + b.formToken(t, form) + `", ` + strings.TrimPrefix(body, "{")
	return b.request(t, "POST", forms.PrefixDefault+"/"+form+"/submit", "", "application/json", strings.NewReader(body))
}

// The new types' settings are checked when the field is saved: a matrix
// needs its rows (a list, each value once, none holding "="), a ranking
// its items each once, and a statement takes no answer.
func TestQuestionTypeSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createForm(t, map[string]any{"name": "Survey"})
	cols := []any{"Yes", "No"}
	for _, c := range []struct {
		body  map[string]any
		key   string
		error string
	}{
		{map[string]any{"type": "matrix", "label": "M", "field_config": map[string]any{"options": cols}}, "field_config.rows", "A matrix field needs its rows in field config.rows, a list."},
		{map[string]any{"type": "matrix", "label": "M", "field_config": map[string]any{"options": cols, "rows": []any{}}}, "field_config.rows", "A matrix field needs at least one row in field config.rows."},
		{map[string]any{"type": "matrix", "label": "M", "field_config": map[string]any{"options": cols, "rows": []any{"A", "A"}}}, "field_config.rows.1", `The field config.rows.1 field repeats the value "A".`},
		{map[string]any{"type": "matrix", "label": "M", "field_config": map[string]any{"options": cols, "rows": []any{"a=b"}}}, "field_config.rows.0", `The field config.rows.0 field must not hold "=".`},
		{map[string]any{"type": "matrix", "label": "M", "field_config": map[string]any{"rows": []any{"A"}}}, "field_config.options", "A matrix field needs at least one choice in field config.options."},
		{map[string]any{"type": "ranking", "label": "R", "field_config": map[string]any{"options": []any{"x", "y", "x"}}}, "field_config.options.2", `The field config.options.2 field repeats the value "x".`},
		{map[string]any{"type": "ranking", "label": "R", "field_config": map[string]any{"options": cols, "rows": []any{"A"}}}, "field_config.rows", "A ranking field does not take field config.rows."},
		{map[string]any{"type": "statement", "label": "S", "is_required": true}, "is_required", "A statement field takes no answer, so it cannot be required."},
		{map[string]any{"type": "datetime", "label": "D", "validation_rules": map[string]any{"min_time": "9am"}}, "validation_rules.min_time", "The validation rules.min time field must match the format H:i."},
	} {
		r := b.api(t, "POST", "/survey/fields", c.body)
		require.Equal(t, 422, r.status, "%v: %s", c.body, r.body)
		require.Equal(t, []string{c.error}, r.errors(t).Errors[c.key], "%v", c.body)
	}
	f := b.addField(t, "survey", map[string]any{"type": "matrix", "label": "Grid", "field_config": map[string]any{"options": cols, "rows": []any{"One", "Two"}}})
	require.Equal(t, "matrix", f["type"])
}

// A matrix, a ranking and a date and time on the submit API, JSON and
// url-encoded: wrong answers said, right ones kept in order and shown in
// words; the CSV gives a matrix a column per row and a ranking a column
// per item (its place); the list filters by a row's answer and by an
// item's place; the summary's matrix counts and average places match
// figures worked out by hand. Both databases.
func TestMatrixRankingAndDateTime(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		slug := b.surveyForm(t)
		good := `"rate": {"speed": "good", "Price": "fair", "staff": "good"}, "rank": ["care", "cost", "time"]`
		for _, c := range []struct {
			body, key, error string
		}{
			{`{"rate": {"speed": "good", "Price": "fair"}, "rank": ["care", "cost", "time"]}`, "rate", "The Rate our service field needs an answer for Friendly staff."},
			{`{"rate": {"speed": "great", "Price": "fair", "staff": "good"}, "rank": ["care", "cost", "time"]}`, "rate", "The selected Rate our service is invalid."},
			{`{"rate": {"pace": "good", "Price": "fair", "staff": "good"}, "rank": ["care", "cost", "time"]}`, "rate", `The Rate our service field has no row "pace".`},
			{`{"rate": ["speed=good", "speed=poor", "Price=fair", "staff=good"], "rank": ["care", "cost", "time"]}`, "rate", "The Rate our service field takes one answer a row."},
			{`{"rate": {"speed": "good", "Price": "fair", "staff": "good"}, "rank": ["care", "cost"]}`, "rank", "The What matters most? field must put all 3 of its items in order."},
			{`{"rate": {"speed": "good", "Price": "fair", "staff": "good"}, "rank": ["care", "care", "time"]}`, "rank", "The What matters most? field must put each of its items in order once."},
			{`{"rate": {"speed": "good", "Price": "fair", "staff": "good"}, "rank": {"care": 1, "cost": 1, "time": 2}}`, "rank", "The What matters most? field must give each item a different place from 1 to 3."},
			{`{` + good + `, "call": "2026-12-10 10:00"}`, "call", "The When may we call? field must be a date and a time."},
			{`{` + good + `, "call": "2026-02-30T10:00"}`, "call", "The When may we call? field must be a date and a time."},
			{`{` + good + `, "call": "2027-01-04T10:00"}`, "call", "The When may we call? field must be a date before or equal to 2026-12-31."},
			{`{` + good + `, "call": "2026-12-10T08:30"}`, "call", "The When may we call? field must be a time after or equal to 09:00."},
			{`{"rank": ["care", "cost", "time"]}`, "rate", "The Rate our service field is required."},
		} {
			r := b.postJSON(t, slug, c.body)
			require.Equal(t, 422, r.status, "%s: %s", c.body, r.body)
			require.Equal(t, []string{c.error}, r.errors(t).Errors[c.key], "%s", c.body)
		}

		// Four responses. Speed: good, good, poor, fair; Price: fair,
		// poor, fair, fair; staff: good, good, good, poor. Rankings:
		// care>cost>time, cost>care>time, care>time>cost, time>care>cost:
		// care 1+2+1+2 = 6/4 = 1.5, cost 2+1+3+3 = 9/4 = 2.25, time
		// 3+3+2+1 = 9/4 = 2.25; put first: care 2, cost 1, time 1.
		r := b.postJSON(t, slug, `{`+good+`, "call": "2026-12-10T10:00"}`)
		require.Equal(t, 201, r.status, r.body)
		r = b.postJSON(t, slug, `{"data": {"rate": {"speed": "good", "Price": "poor", "staff": "good"}, "rank": {"cost": 1, "care": "2", "time": 3}}}`)
		require.Equal(t, 201, r.status, "places by item: %s", r.body)
		form := url.Values{forms.FormTokenField: {b.formToken(t, slug)}, "rate.speed": {"poor"}, "data[rate][Price]": {"fair"}, "rate.staff": {"good"}, "rank.care": {"1"}, "rank.time": {"2"}, "rank.cost": {"3"}}
		r = b.request(t, "POST", forms.PrefixDefault+"/"+slug+"/submit", "", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
		require.Equal(t, 201, r.status, "as the page posts it: %s", r.body)
		r = b.postJSON(t, slug, `{"rate": ["staff=poor", "speed=fair", "Price=fair"], "rank": ["time", "care", "cost"], "call": ""}`)
		require.Equal(t, 201, r.status, "row=column values: %s", r.body)

		r = b.api(t, "GET", "/"+slug+"/submissions?"+url.Values{"field[rate.speed]": {"good"}}.Encode(), nil)
		require.Equal(t, 200, r.status, r.body)
		require.EqualValues(t, 2, r.json(t)["meta"].(map[string]any)["total"], "speed good twice")
		newest := r.json(t)["data"].([]any)[0].(map[string]any)["values"].([]any)
		kept := map[string]any{}
		for _, v := range newest {
			v := v.(map[string]any)
			kept[v["field_name"].(string)] = []any{v["value"], v["value_array"], v["display_value"]}
		}
		require.Equal(t, map[string]any{
			"rate": []any{nil, []any{"speed=good", "Price=poor", "staff=good"}, "Speed: Good; Price: Poor; Friendly staff: Good"},
			"rank": []any{nil, []any{"cost", "care", "time"}, "1. Cost; 2. Care; 3. Time"},
		}, kept, "kept in the rows' order, the ranking as ordered")
		for q, n := range map[string]int{"field[rank]=care": 2, "field[rank.cost]=3": 2, "field[rank.time]=1": 1, "field[rate.staff]=poor": 1,
			"field[rate]=Price%3Dfair": 3, "field[rate.staff]=good&field[rank]=care": 2} {
			r := b.api(t, "GET", "/"+slug+"/submissions?"+q, nil)
			require.Equal(t, 200, r.status, "%s: %s", q, r.body)
			require.EqualValues(t, n, r.json(t)["meta"].(map[string]any)["total"], q)
		}
		for q, error := range map[string]string{"field[rank.cost]=first": "Give a place from 1 to 50.", "field[rate]=good": "Filter a matrix by a row's answer: field[rate.row]=answer.",
			"field[call.x]=1": `The field "call" has no parts: filter by field[call].`} {
			r := b.api(t, "GET", "/"+slug+"/submissions?"+q, nil)
			require.Equal(t, 422, r.status, "%s: %s", q, r.body)
			key, _, _ := strings.Cut(q, "=")
			require.Equal(t, []string{error}, r.errors(t).Errors[key], q)
		}

		r = b.request(t, "GET", "/api/v1/forms/"+slug+"/submissions/export", "reader", "", nil)
		require.Equal(t, 200, r.status)
		rows, err := csv.NewReader(strings.NewReader(r.body)).ReadAll()
		require.NoError(t, err)
		require.Equal(t, []string{"Rate our service: Speed", "Rate our service: Price", "Rate our service: Friendly staff",
			"What matters most?: Cost", "What matters most?: Time", "What matters most?: Care", "When may we call?"}, rows[0][3:10])
		var cells []string
		for _, row := range rows[1:] {
			cells = append(cells, strings.Join(row[3:10], "|"))
		}
		require.ElementsMatch(t, []string{"Good|Fair|Good|2|3|1|2026-12-10 10:00", "Good|Poor|Good|1|3|2|", "Poor|Fair|Good|3|2|1|",
			"Fair|Fair|Poor|3|1|2|"}, cells, "a column per row and per item")

		r = b.api(t, "GET", "/"+slug+"/summary", nil)
		require.Equal(t, 200, r.status, r.body)
		fields := r.data(t)["fields"].([]any)
		require.Len(t, fields, 3, "the statement takes no answer")
		matrix, ranking, when := fields[0].(map[string]any), fields[1].(map[string]any), fields[2].(map[string]any)
		require.JSONEq(t, `[
			{"name": "speed", "label": "Speed", "type": "radio", "answered": 4, "options": [
				{"value": "poor", "label": "Poor", "count": 1}, {"value": "fair", "label": "Fair", "count": 1}, {"value": "good", "label": "Good", "count": 2}]},
			{"name": "Price", "label": "Price", "type": "radio", "answered": 4, "options": [
				{"value": "poor", "label": "Poor", "count": 1}, {"value": "fair", "label": "Fair", "count": 3}, {"value": "good", "label": "Good", "count": 0}]},
			{"name": "staff", "label": "Friendly staff", "type": "radio", "answered": 4, "options": [
				{"value": "poor", "label": "Poor", "count": 1}, {"value": "fair", "label": "Fair", "count": 0}, {"value": "good", "label": "Good", "count": 3}]}]`,
			mustJSON(t, matrix["rows"]))
		require.EqualValues(t, 4, matrix["answered"])
		require.JSONEq(t, `[{"value": "cost", "label": "Cost", "count": 1, "average_rank": 2.25},
			{"value": "time", "label": "Time", "count": 1, "average_rank": 2.25},
			{"value": "care", "label": "Care", "count": 2, "average_rank": 1.5}]`, mustJSON(t, ranking["options"]))
		require.EqualValues(t, 1, when["answered"])

		page := b.request(t, "GET", forms.SummaryPathDefault+"/"+slug, "", "", nil)
		require.Equal(t, 200, page.status, page.body)
		require.Contains(t, page.body, `<tr><th scope="row">Care</th><td class="num">1.5</td><td class="num">2</td></tr>`)
		require.Contains(t, page.body, `<tr><th scope="row">Price</th><td class="num">1</td><td class="num">3</td><td class="num">0</td></tr>`)
		if d == store.SQLite {
			b.summaryInBrowser(t, slug, "the summary of a matrix and a ranking", "form-summary-matrix")
		}
	})
}

// The survey on the page, by keyboard alone and without JavaScript's
// help: the statement read, sent unanswered, the matrix and the ranking
// said at the top and at their groups; then each row's choice by the
// arrow keys, each item's place chosen in its list, a date and time
// typed, and the form sent; the answers kept. A ranking given the same
// place twice is said and its places kept. axe-core finds nothing in
// any state, light and dark; at 320 px nothing overflows.
func TestBrowserQuestions(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	b := setup(t)
	slug := b.surveyForm(t)
	shots := os.Getenv(browsertest.EnvScreenshots)

	browsertest.Do(t, ctx, chromedp.EmulateViewport(320, 900), chromedp.Navigate(b.server.URL+"/forms/"+slug), chromedp.WaitVisible(chromedp.ID("f-rate")))
	require.Contains(t, browsertest.Text(t, ctx, ".statement"), "About your visit")
	require.Contains(t, browsertest.Text(t, ctx, ".statement"), "Three questions, one minute.")
	require.Contains(t, browsertest.Text(t, ctx, "main"), "Give each a different place: 1 is your first choice.")
	browsertest.NoViolations(t, ctx, "the survey, unanswered")
	browsertest.Screenshots(t, ctx, shots, "form-questions")
	b.clock.Advance(time.Minute)
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	summary := browsertest.Text(t, ctx, ".error-summary")
	require.Contains(t, summary, "Choose an answer in each row of “Rate our service”")
	require.Contains(t, summary, "Give each item of “What matters most” a place")
	require.Contains(t, browsertest.Text(t, ctx, "#f-rate-error"), "Choose an answer in each row", "and at the group")
	browsertest.NoViolations(t, ctx, "the survey, unanswered and sent")
	browsertest.Screenshots(t, ctx, shots, "form-questions-errors")

	// Speed: Good (two to the right), Price: Fair (one), staff: Good.
	for row, right := range map[string]int{"#f-rate": 2, "#f-rate-p1": 1, "#f-rate-p2": 2} {
		browsertest.TabTo(t, ctx, row)
		browsertest.Press(t, ctx, " ", false)
		for range right {
			browsertest.Press(t, ctx, kb.ArrowRight, false)
		}
	}
	// Care first, Cost second, Time second too: a mistake.
	for sel, down := range map[string]int{"#f-rank-p2": 1, "#f-rank": 2, "#f-rank-p1": 2} {
		browsertest.TabTo(t, ctx, sel)
		for range down {
			browsertest.Press(t, ctx, kb.ArrowDown, false)
		}
	}
	browsertest.TabTo(t, ctx, "#f-call")
	browsertest.Do(t, ctx, chromedp.SetValue("#f-call", "2026-12-10T10:30"))
	checked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("input:checked")].map(i => i.name + "=" + i.value).join(" ")`))
	require.NoError(t, err)
	require.Equal(t, "rate.speed=good rate.Price=fair rate.staff=good", checked)
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".error-summary"), "Give each of the 3 items of “What matters most” a different place, from 1 to 3")
	places, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("select")].map(s => s.name + "=" + s.value).join(" ")`))
	require.NoError(t, err)
	require.Equal(t, "rank.cost=2 rank.time=2 rank.care=1", places, "the places given, kept")
	checked, err = chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("input:checked")].map(i => i.name + "=" + i.value).join(" ")`))
	require.NoError(t, err)
	require.Equal(t, "rate.speed=good rate.Price=fair rate.staff=good", checked, "the matrix's answers, kept")
	browsertest.NoViolations(t, ctx, "the survey, a ranking mistaken")

	browsertest.TabTo(t, ctx, "#f-rank-p1")
	browsertest.Press(t, ctx, kb.ArrowDown, false) // Time third
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
	require.NoError(t, err)
	require.False(t, overflow, "nothing wider than 320 px")
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "Thank you!")

	r := b.api(t, "GET", "/"+slug+"/submissions", nil)
	require.Equal(t, 200, r.status, r.body)
	kept := map[string]string{}
	for _, v := range r.json(t)["data"].([]any)[0].(map[string]any)["values"].([]any) {
		v := v.(map[string]any)
		kept[v["field_name"].(string)] = v["display_value"].(string)
	}
	require.Equal(t, map[string]string{"rate": "Speed: Good; Price: Fair; Friendly staff: Good", "rank": "1. Care; 2. Cost; 3. Time",
		"call": "2026-12-10 10:30"}, kept)
}
