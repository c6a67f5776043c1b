package forms_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/browsertest"
)

// The inbox over HTTP: newest first, spam apart, filters by answer (a bad
// one in words), the CSV, a missing answer's 404, and a POST from another
// origin refused.
func TestAnswersInbox(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slug := b.seedSurvey(t)
	list := forms.SummaryPathDefault + "/" + slug + "/submissions/"
	r := b.request(t, "GET", list, "", "", nil)
	require.Equal(t, 200, r.status, r.body)
	require.Equal(t, 5, strings.Count(r.body, `<li class="unread">`), "five answers, unread, spam left out")
	require.NotContains(t, r.body, "BUY PILLS")
	require.Less(t, strings.Index(r.body, "Fine"), strings.Index(r.body, "Quiet rooms"), "newest first")
	require.Contains(t, r.body, "1–5 of 5")
	spam := b.request(t, "GET", list+"?filter=spam", "", "", nil)
	require.Contains(t, spam.body, "BUY PILLS")
	food := b.request(t, "GET", list+"?field[topic]=food", "", "", nil)
	require.Equal(t, 3, strings.Count(food.body, `<li class="unread">`), food.body)
	require.Contains(t, food.body, "Only answers where topic is “food”.")
	bad := b.request(t, "GET", list+"?field[nope]=x", "", "", nil)
	require.Equal(t, 422, bad.status)
	require.Contains(t, bad.body, "The form has no field")

	// A search: of the answers, either case, with the filters; a row's
	// link carries the list and its place in it; times in the zone asked.
	quiet := b.request(t, "GET", list+"?q=QUIET&tz=Asia/Tokyo", "", "", nil)
	require.Equal(t, 200, quiet.status, quiet.body)
	require.Equal(t, 1, strings.Count(quiet.body, `<li class="unread">`), quiet.body)
	require.Contains(t, quiet.body, "1–1 of 1 matching “QUIET”")
	require.Contains(t, quiet.body, `value="QUIET"`, "the search box keeps it")
	require.Contains(t, quiet.body, "Times are in Tokyo time")
	require.Regexp(t, `href="[^"]+/submissions/\d+\?n=0&amp;q=QUIET&amp;tz=Asia%2FTokyo"`, quiet.body)
	none := b.request(t, "GET", list+"?q=nobody+wrote+this", "", "", nil)
	require.Contains(t, none.body, "No answers here match “nobody wrote this”.")
	long := b.request(t, "GET", list+"?q="+strings.Repeat("x", 201), "", "", nil)
	require.Equal(t, 422, long.status)
	require.Contains(t, long.body, "That search is too long")
	api := b.api(t, "GET", "/"+slug+"/submissions?search=quiet", nil)
	require.Equal(t, 200, api.status, api.body)
	require.Contains(t, api.body, `"total":1`)
	api = b.api(t, "GET", "/"+slug+"/submissions?search="+strings.Repeat("x", 201), nil)
	require.Equal(t, 422, api.status)
	require.Contains(t, api.body, "The search field must not be greater than 200 characters.")

	csv := b.request(t, "GET", list+"export.csv", "", "", nil)
	require.Equal(t, 200, csv.status)
	require.Equal(t, "text/csv; charset=utf-8", csv.header.Get("Content-Type"))
	require.Contains(t, csv.header.Get("Content-Disposition"), `attachment; filename=survey-`)
	require.Contains(t, csv.body, "Quiet rooms")

	// Answers read as people chose them: a choice's label, a box ticked
	// as Yes, in the list and on an answer's page.
	require.Contains(t, r.body, "Food", "the choice's label in the preview")
	require.NotContains(t, r.body, "food ·")
	subs, _, err := b.svc.ListSubmissions(context.Background(), forms.SubmissionQuery{FormID: 1, Limit: 100})
	require.NoError(t, err)
	agreed := slices.IndexFunc(subs, func(s forms.Submission) bool {
		return slices.ContainsFunc(s.Values, func(v forms.Value) bool { return v.FieldName == "agree" && v.Value != nil && *v.Value == "1" })
	})
	require.GreaterOrEqual(t, agreed, 0)
	one := b.request(t, "GET", list+strconv.FormatInt(subs[agreed].ID, 10), "", "", nil)
	require.Equal(t, 200, one.status, one.body)
	require.Contains(t, one.body, `<dt>Topic</dt><dd class="answer">Food</dd>`)
	require.Contains(t, one.body, `<dt>Agree</dt><dd class="answer">Yes</dd>`)

	require.Equal(t, 404, b.request(t, "GET", list+"999999", "", "", nil).status)
	refused := b.request(t, "POST", list, "", "application/x-www-form-urlencoded", strings.NewReader("action=delete&ids=1"),
		"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
	require.Equal(t, 403, refused.status, "another origin cannot act on the answers")
	left, _, err := b.svc.ListSubmissions(context.Background(), forms.SubmissionQuery{FormID: 1, Limit: 100})
	require.NoError(t, err)
	require.Len(t, left, 6)
}

// The inbox in Chromium, by keyboard: open an answer (it becomes read),
// star it and write a note, tick two and move them to spam; axe on every
// page and state.
func TestBrowserAnswersInbox(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slug := b.seedSurvey(t)
	ctx := browsertest.New(t, 120*time.Second)
	shots := os.Getenv(browsertest.EnvScreenshots)
	list := b.server.URL + forms.SummaryPathDefault + "/" + slug + "/submissions/"
	browsertest.Do(t, ctx, chromedp.Navigate(b.server.URL+forms.SummaryPathDefault+"/"), chromedp.WaitVisible(chromedp.CSS("table")))
	browsertest.TabTo(t, ctx, `a[href$="/survey/submissions/"]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "Answers to Survey", browsertest.Text(t, ctx, "h1"))
	axeEverywhere(t, ctx, "the inbox")
	browsertest.Screenshots(t, ctx, shots, "form-inbox")
	browsertest.Announced(t, ctx, "ul.inbox li input", "checkbox", "Tick: sun")

	// The newest: opened, it is read.
	browsertest.TabTo(t, ctx, "ul.inbox li a")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "h1"), "Survey: answer")
	require.Contains(t, browsertest.Text(t, ctx, "dl.details"), "sun")
	axeEverywhere(t, ctx, "an answer")
	browsertest.Screenshots(t, ctx, shots, "form-answer")
	browsertest.TabTo(t, ctx, `button[value=star]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "Starred.")
	browsertest.TabTo(t, ctx, "#f-admin_notes")
	browsertest.Do(t, ctx, chromedp.KeyEvent("Called back on Monday"))
	browsertest.TabTo(t, ctx, `button[value=notes]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "Notes saved.")
	axeEverywhere(t, ctx, "an answer starred, with a note")

	// The next one, and back to the newer, by the list's order.
	first := browsertest.Text(t, ctx, "h1")
	noNewer, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector(".answer-nav a[rel=prev]") === null`))
	require.NoError(t, err)
	require.True(t, noNewer, "nothing newer than the newest")
	browsertest.TabTo(t, ctx, ".answer-nav a[rel=next]")
	browsertest.Press(t, ctx, "\r", true)
	require.NotEqual(t, first, browsertest.Text(t, ctx, "h1"))
	axeEverywhere(t, ctx, "an answer with newer and older")
	browsertest.TabTo(t, ctx, ".answer-nav a[rel=prev]")
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, first, browsertest.Text(t, ctx, "h1"))

	browsertest.TabTo(t, ctx, ".answer-nav a")
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, 3, strings.Count(browsertest.Text(t, ctx, "ul.inbox"), "Unread"), "the two opened are read")
	// Tick the two oldest, and move them to spam.
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("ul.inbox input")].slice(-2).map(e => "#" + e.id)`))
	require.NoError(t, err)
	for _, id := range ids {
		browsertest.TabTo(t, ctx, id)
		browsertest.Press(t, ctx, " ", false)
	}
	browsertest.Do(t, ctx, chromedp.SetValue(chromedp.ID("bulk-action"), string(forms.BulkMarkSpam)))
	browsertest.TabTo(t, ctx, ".bulk button")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "2 answers moved to spam.")
	require.Equal(t, 3, strings.Count(browsertest.Text(t, ctx, "ul.inbox"), "2026"), "three left in the inbox")
	axeEverywhere(t, ctx, "the inbox after a bulk action")
	browsertest.Do(t, ctx, chromedp.Navigate(list+"?filter=starred"), chromedp.WaitVisible(chromedp.CSS("ul.inbox")))
	starred := browsertest.Text(t, ctx, "ul.inbox")
	require.Contains(t, starred, "Starred:")
	require.Contains(t, starred, "sun")
	browsertest.Do(t, ctx, chromedp.Navigate(list+"?filter=unread&field[topic]=staff"), chromedp.WaitVisible(chromedp.CSS("main p")))
	require.Contains(t, browsertest.Text(t, ctx, "main"), "Nothing unread.")
	axeEverywhere(t, ctx, "an empty filtered inbox")

	// Delete one by keyboard: a step asks first, naming what goes.
	browsertest.Do(t, ctx, chromedp.Navigate(list), chromedp.WaitVisible(chromedp.CSS("ul.inbox")))
	browsertest.TabTo(t, ctx, "ul.inbox li input")
	browsertest.Press(t, ctx, " ", false)
	browsertest.Do(t, ctx, chromedp.SetValue(chromedp.ID("bulk-action"), string(forms.BulkDelete)))
	browsertest.TabTo(t, ctx, ".bulk button")
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "Delete 1 answer?", browsertest.Text(t, ctx, "h1"))
	axeEverywhere(t, ctx, "the step before deleting")
	browsertest.Screenshots(t, ctx, shots, "form-answers-delete")
	browsertest.TabTo(t, ctx, "button.danger")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "1 answer deleted.")

	// Search by keyboard; the list keeps the search, and an answer opened
	// from it goes back to it.
	browsertest.TabTo(t, ctx, "#f-q")
	browsertest.Do(t, ctx, chromedp.KeyEvent("rooms"))
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, 1, strings.Count(browsertest.Text(t, ctx, "ul.inbox"), "2026"), "only the answer about rooms")
	require.Contains(t, browsertest.Text(t, ctx, "main"), "matching “rooms”")
	axeEverywhere(t, ctx, "the inbox searched")
	browsertest.Screenshots(t, ctx, shots, "form-inbox-search")
	browsertest.TabTo(t, ctx, "ul.inbox li a")
	browsertest.Press(t, ctx, "\r", true)
	browsertest.TabTo(t, ctx, ".answer-nav a")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "main"), "matching “rooms”", "back to the list it came from")
}

// An answer's files on its page, downloaded as attachments with their
// own names and bytes, never shown in the site's origin.
func TestInboxUploads(t *testing.T) {
	t.Parallel()
	b := setup(t)
	form := b.contactForm(t)
	pdf := "%PDF-1.4\n<script>alert(1)</script>"
	r := b.submit(t, form, valid(part{name: "files[cv]", filename: "My CV.pdf", content: pdf})...)
	require.Equal(t, 201, r.status, r.body)
	list := forms.SummaryPathDefault + "/" + form + "/submissions/"
	inbox := b.request(t, "GET", list, "", "", nil)
	require.Contains(t, inbox.body, "ann@example.test", "the sender's address names the row")
	page := b.request(t, "GET", list+"1", "", "", nil)
	require.Equal(t, 200, page.status, page.body)
	require.Contains(t, page.body, "My CV.pdf")
	link := regexp.MustCompile(`href="([^"]+/uploads/\d+)"`).FindStringSubmatch(page.body)
	require.NotNil(t, link, page.body)
	file := b.request(t, "GET", link[1], "", "", nil)
	require.Equal(t, 200, file.status)
	require.Equal(t, pdf, file.body)
	require.Equal(t, "application/octet-stream", file.header.Get("Content-Type"))
	require.Equal(t, `attachment; filename="My CV.pdf"`, file.header.Get("Content-Disposition"))
	require.Equal(t, 404, b.request(t, "GET", list+"1/uploads/999", "", "", nil).status)
	after := b.request(t, "GET", list, "", "", nil)
	require.NotContains(t, after.body, `<li class="unread">`, "opened, it is read")
}

// Deleting answers asks first: the bulk Delete and an answer's own
// Delete answer with a step that says how many go and that it cannot be
// undone, keeping them until that step is confirmed.
func TestDeletingAnswersAsksFirst(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slug := b.seedSurvey(t)
	list := forms.SummaryPathDefault + "/" + slug + "/submissions/"
	left := func() int {
		subs, _, err := b.svc.ListSubmissions(context.Background(), forms.SubmissionQuery{FormID: 1, Limit: 100})
		require.NoError(t, err)
		return len(subs)
	}
	post := func(path, form string) reply {
		return b.request(t, "POST", path, "", "application/x-www-form-urlencoded", strings.NewReader(form), "Origin", b.server.URL)
	}
	ask := post(list, "action=delete&ids=1&ids=2&back="+list)
	require.Equal(t, 200, ask.status, ask.body)
	require.Contains(t, ask.body, "<h1>Delete 2 answers?</h1>")
	require.Contains(t, ask.body, "This cannot be undone")
	require.Contains(t, ask.body, `<input type="hidden" name="ids" value="1">`)
	require.Contains(t, ask.body, "Yes, delete 2 answers")
	require.Contains(t, ask.body, "No, keep them")
	require.Equal(t, 6, left(), "nothing deleted before the step is confirmed")
	done := post(list, "action=delete&confirm=yes&ids=1&ids=2&back="+list)
	require.Equal(t, 303, done.status, done.body)
	require.Equal(t, 4, left())

	one := post(list+"3", "action=delete")
	require.Equal(t, 200, one.status, one.body)
	require.Contains(t, one.body, "<h1>Delete this answer?</h1>")
	require.Contains(t, one.body, "No, keep it")
	require.Equal(t, 4, left())
	require.Equal(t, 303, post(list+"3", "action=delete&confirm=yes").status)
	require.Equal(t, 3, left())
}

// The pages are no wider than the API: with Allow, listing the forms
// takes forms:viewAny, reading answers (the summary, the inbox, an
// answer, its files, the CSV) forms:viewSubmissions, and changing them
// forms:update; a user who may read but not change sees no controls.
func TestAnswerPagesCheckTheAPIsAbilities(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slug := b.seedSurvey(t)
	var abilities []string
	summary, err := forms.NewSummaryPage(b.svc, &forms.SummaryPageOptions{Allow: func(r *http.Request, ability string) bool {
		return slices.Contains(abilities, ability)
	}})
	require.NoError(t, err)
	srv := httptest.NewServer(summary)
	t.Cleanup(srv.Close)
	status := func(method, path string) (int, string) {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader("action=delete&confirm=yes&ids=1"))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", srv.URL)
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	base := forms.SummaryPathDefault + "/"
	reads := []string{base + slug, base + slug + "/submissions/", base + slug + "/submissions/1", base + slug + "/submissions/export.csv"}

	abilities = []string{forms.AbilityViewAny}
	code, _ := status("GET", base)
	require.Equal(t, 200, code)
	for _, path := range reads {
		code, body := status("GET", path)
		require.Equal(t, 403, code, path)
		require.Contains(t, body, "Your account may not read these answers.", path)
	}
	abilities = []string{forms.AbilityViewAny, forms.AbilityViewSubmissions}
	for _, path := range reads {
		code, _ := status("GET", path)
		require.Equal(t, 200, code, path)
	}
	_, inbox := status("GET", base+slug+"/submissions/")
	require.NotContains(t, inbox, `name="ids"`, "no ticks and no bulk form for a reader")
	_, answer := status("GET", base+slug+"/submissions/1")
	require.NotContains(t, answer, "Delete this answer")
	for _, path := range []string{base + slug + "/submissions/", base + slug + "/submissions/1"} {
		code, body := status("POST", path)
		require.Equal(t, 403, code, path)
		require.Contains(t, body, "Your account may not change or delete answers.")
	}
	subs, _, err := b.svc.ListSubmissions(context.Background(), forms.SubmissionQuery{FormID: 1, Limit: 100})
	require.NoError(t, err)
	require.Len(t, subs, 6, "nothing deleted")
	abilities = append(abilities, forms.AbilityUpdate)
	code, body := status("POST", base+slug+"/submissions/1")
	require.Equal(t, 303, code, body)
}
