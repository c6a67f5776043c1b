package forms_test

import (
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// A date range on the submit API: a start and an end, as two values or
// one "start/end"; each a date, the end not before the start, both
// within the field's bounds, said otherwise; kept as "start/end", shown
// "start – end" (the CSV's cell), and found by a filter on it. Both
// databases.
func TestDateRange(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		b.createForm(t, map[string]any{"name": "Stay"})
		b.addField(t, "stay", map[string]any{"type": "date_range", "label": "Your stay", "is_required": true,
			"validation_rules": map[string]any{"min_date": "2026-12-01", "max_date": "2027-03-31"}})
		for _, c := range []struct {
			values []string
			error  string
		}{
			{[]string{"2026-12-10"}, "The Your stay field must be a start date and an end date."},
			{[]string{"2026-12-10", ""}, "The Your stay field must be a start date and an end date."},
			{[]string{"2026-12-10", "soon"}, "The Your stay field must be a start date and an end date."},
			{[]string{"2026-12-10/2026-12-12/2026-12-14"}, "The Your stay field must be a start date and an end date."},
			{[]string{"2026-12-10", "2026-12-09"}, "The Your stay field must end on or after its start."},
			{[]string{"2026-11-30", "2026-12-02"}, "The Your stay field must be a date after or equal to 2026-12-01."},
			{[]string{"2027-03-30", "2027-04-02"}, "The Your stay field must be a date before or equal to 2027-03-31."},
			{nil, "The Your stay field is required."},
		} {
			var parts []part
			for _, v := range c.values {
				parts = append(parts, part{name: "your_stay", content: v})
			}
			r := b.submit(t, "stay", parts...)
			require.Equal(t, 422, r.status, "%v: %s", c.values, r.body)
			require.Equal(t, []string{c.error}, r.errors(t).Errors["your_stay"], "%v", c.values)
		}
		r := b.submit(t, "stay", part{name: "your_stay", content: "2026-12-10"}, part{name: "your_stay", content: "2026-12-14"})
		require.Equal(t, 201, r.status, r.body)
		r = b.submit(t, "stay", part{name: "your_stay", content: "2027-01-02/2027-01-02"})
		require.Equal(t, 201, r.status, "one day, as one value: %s", r.body)

		r = b.api(t, "GET", "/stay/submissions?"+url.Values{"field[your_stay]": {"2026-12-10/2026-12-14"}}.Encode(), nil)
		require.Equal(t, 200, r.status, r.body)
		data := r.json(t)["data"].([]any)
		require.Len(t, data, 1)
		v := data[0].(map[string]any)["values"].([]any)[0].(map[string]any)
		require.Equal(t, "2026-12-10/2026-12-14", v["value"])
		require.Equal(t, "2026-12-10 – 2026-12-14", v["display_value"])
		csv := b.request(t, "GET", "/api/v1/forms/stay/submissions/export", "reader", "", nil)
		require.Equal(t, 200, csv.status)
		require.Contains(t, csv.body, ",2026-12-10 – 2026-12-14,")
		require.Contains(t, csv.body, ",2027-01-02 – 2027-01-02,")
	})
}

// A date range on the page, by keyboard: its two dates in one fieldset,
// a start after the end said at the top and at the group with both dates
// kept, then mended and sent. axe-core finds nothing, error state
// included.
func TestBrowserDateRange(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t)
	b.createForm(t, map[string]any{"name": "Stay", "success_message": "See you soon."})
	b.addField(t, "stay", map[string]any{"type": "date_range", "label": "Your stay", "is_required": true})
	shots := os.Getenv(browsertest.EnvScreenshots)
	browsertest.Do(t, ctx, chromedp.Navigate(b.server.URL+"/forms/stay"), chromedp.WaitVisible(chromedp.ID("f-your_stay")))
	require.Equal(t, "Your stay *\nFrom\nTo", strings.TrimSpace(browsertest.Text(t, ctx, "fieldset.range")))
	browsertest.NoViolations(t, ctx, "a date range")
	browsertest.Screenshots(t, ctx, shots, "form-date-range")
	// A date input takes its parts by keyboard: month, day, year here.
	browsertest.TabTo(t, ctx, "#f-your_stay")
	browsertest.Do(t, ctx, chromedp.SendKeys(chromedp.ID("f-your_stay"), "12142026"))
	browsertest.TabTo(t, ctx, "#f-your_stay-to")
	browsertest.Do(t, ctx, chromedp.SendKeys(chromedp.ID("f-your_stay-to"), "12102026"))
	b.clock.Advance(time.Minute)
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".error-summary"), "Your stay must end on or after its start")
	require.Contains(t, browsertest.Text(t, ctx, "#f-your_stay-error"), "Your stay must end on or after its start")
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f-your_stay").value + " " + document.getElementById("f-your_stay-to").value`))
	require.NoError(t, err)
	require.Equal(t, "2026-12-14 2026-12-10", kept, "both dates kept")
	browsertest.NoViolations(t, ctx, "a date range ending before it starts")
	browsertest.Screenshots(t, ctx, shots, "form-date-range-errors")
	browsertest.TabTo(t, ctx, "#f-your_stay-to")
	browsertest.Do(t, ctx, chromedp.SendKeys(chromedp.ID("f-your_stay-to"), "12182026"))
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "See you soon.")
	r := b.api(t, "GET", "/stay/submissions", nil)
	require.Equal(t, 200, r.status, r.body)
	require.Equal(t, "2026-12-14/2026-12-18", r.json(t)["data"].([]any)[0].(map[string]any)["values"].([]any)[0].(map[string]any)["value"])
}
