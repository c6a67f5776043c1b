package forms_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

var (
	accessLinkIn = regexp.MustCompile(`http://[^\s]+\?access=[A-Za-z0-9._-]+`)
	accessInput  = regexp.MustCompile(`name="` + forms.AccessField + `" value="([^"]+)"`)
)

// A form that takes one response a person by email: the page asks for an
// address and mails a link to it; the link opens the form once; a
// second response, a forged, another form's or an expired link is
// refused in words; the API asks for a link as the page does. Both
// databases.
func TestAccessByEmail(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, withQueue, func(o *setupOptions) { o.dialect = d })
		slug := b.contactForm(t)
		r := b.api(t, "PATCH", "/"+slug, map[string]any{"one_per_person": true, "identify_by": "email"})
		require.Equal(t, 200, r.status, r.body)
		require.Equal(t, "email", r.data(t)["identify_by"])
		require.Equal(t, 422, b.api(t, "PATCH", "/"+slug, map[string]any{"identify_by": "phone"}).status)

		// Without a link: the API refuses, the page asks for an address.
		r = b.submit(t, slug, valid()...)
		require.Equal(t, 403, r.status, r.body)
		require.Contains(t, r.body, "enter your email address and open the form from the link we send you")
		page := b.request(t, "GET", "/forms/"+slug, "", "", nil)
		require.Equal(t, 200, page.status)
		require.Contains(t, page.body, `action="/forms/`+slug+`/access"`)
		require.Contains(t, page.body, "Email me a link")
		require.NotContains(t, page.body, forms.FormTokenField, "no form to fill yet")
		def := b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/render", "", "", nil)
		require.Equal(t, false, def.data(t)["accepting"])

		ask := func(address string) reply {
			return b.request(t, "POST", "/forms/"+slug+"/access", "", "application/x-www-form-urlencoded",
				strings.NewReader(url.Values{"email": {address}}.Encode()))
		}
		r = ask("not an address")
		require.Equal(t, 422, r.status)
		require.Contains(t, r.body, "Error: Contact")
		require.Contains(t, r.body, `href="#email"`, "the summary links to the input")
		r = ask("Ann@Example.test")
		require.Equal(t, 303, r.status, r.body)
		require.Equal(t, "/forms/"+slug, r.header.Get("Location"))
		page = b.request(t, "GET", "/forms/"+slug, "", "", nil, "Cookie", r.header.Get("Set-Cookie"))
		require.Contains(t, page.body, "We have emailed a link to Ann@Example.test.")

		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		msgs, err := b.outbox.Wait(ctx, 1)
		require.NoError(t, err)
		require.Equal(t, []string{"ann@example.test"}, msgs[0].To, "one address whatever its case")
		require.Equal(t, "Your link to Contact", msgs[0].Subject)
		link := accessLinkIn.FindString(msgs[0].Text)
		require.True(t, strings.HasPrefix(link, b.server.URL+"/forms/"+slug+"?access="), msgs[0].Text)
		require.Contains(t, msgs[0].Text, "It works until 24 November 2026")

		// The link opens the form, which carries it; sent, it is used up.
		path := strings.TrimPrefix(link, b.server.URL)
		page = b.request(t, "GET", path, "", "", nil)
		require.Contains(t, page.body, forms.FormTokenField)
		access := accessInput.FindStringSubmatch(page.body)
		require.NotNil(t, access, "the page carries the link's token")
		require.Equal(t, strings.TrimPrefix(path, "/forms/"+slug+"?access="), access[1])
		def = b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/render?access="+access[1], "", "", nil)
		require.Equal(t, true, def.data(t)["accepting"])
		token := formTokenOf(t, page.body)
		b.clock.Advance(forms.MinFillTime)
		post := func(access string) reply {
			form := url.Values{"name": {"Ann"}, "email": {"ann@example.test"}, "message": {"Hi"}, forms.FormTokenField: {token},
				forms.AccessField: {access}}
			return b.request(t, "POST", "/forms/"+slug, "", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
		}
		require.Equal(t, 303, post(access[1]).status)
		page = b.request(t, "GET", path, "", "", nil)
		require.Contains(t, page.body, "You have responded to this form already")
		r = b.submit(t, slug, valid(part{name: forms.AccessField, content: access[1]})...)
		require.Equal(t, 409, r.status, r.body)

		// A forged link, one of another form, one mangled: asked again.
		forged := access[1][:len(access[1])-2] + "AA"
		for _, bad := range []string{forged, "1.e.9999999999.YQ.AAAA", "x"} {
			r = b.submit(t, slug, valid(part{name: forms.AccessField, content: bad})...)
			require.Equal(t, 403, r.status, "%s: %s", bad, r.body)
		}
		page = b.request(t, "POST", "/forms/"+slug, "", "application/x-www-form-urlencoded",
			strings.NewReader(url.Values{"name": {"Ann"}, forms.AccessField: {forged}}.Encode()))
		require.Equal(t, 403, page.status)
		require.Contains(t, page.body, "Email me a link")

		// Through the API, for another address; its link, after two days,
		// has expired.
		r = b.request(t, "POST", forms.PrefixDefault+"/"+slug+"/access", "", "application/json", strings.NewReader(`{"email":"bo@example.test"}`))
		require.Equal(t, 202, r.status, r.body)
		for body, field := range map[string]string{`{"email":"bo"}`: "email", `{}`: "email", `{"email":"bo@example.test","name":"Bo"}`: "name"} {
			r = b.request(t, "POST", forms.PrefixDefault+"/"+slug+"/access", "", "application/json", strings.NewReader(body))
			require.Equal(t, 422, r.status, body)
			require.Contains(t, r.errors(t).Errors, field, body)
		}
		msgs, err = b.outbox.Wait(ctx, 2)
		require.NoError(t, err)
		bo := strings.TrimPrefix(accessLinkIn.FindString(msgs[1].Text), b.server.URL)
		require.NotEmpty(t, bo)
		b.clock.Advance(forms.AccessLinkMaxAge)
		page = b.request(t, "GET", bo, "", "", nil)
		require.Contains(t, page.body, "This link has expired. Enter your email address to get a new one.")
		require.Contains(t, page.body, "Email me a link")
		r = b.submit(t, slug, valid(part{name: forms.AccessField, content: strings.SplitN(bo, "access=", 2)[1]})...)
		require.Equal(t, 403, r.status)
		require.Contains(t, r.body, "This link has expired")

		// Asking again and again sends AccessMailsPerAddress links an hour.
		for range forms.AccessMailsPerAddress + 2 {
			require.Equal(t, 303, ask("cy@example.test").status)
		}
		_, err = b.outbox.Wait(ctx, 2+forms.AccessMailsPerAddress)
		require.NoError(t, err)
		time.Sleep(300 * time.Millisecond)
		require.Len(t, b.outbox.Messages(), 2+forms.AccessMailsPerAddress)

		// A form that does not know people by email mails nothing.
		b.createForm(t, map[string]any{"name": "Open"})
		r = b.request(t, "POST", "/forms/open/access", "", "application/x-www-form-urlencoded", strings.NewReader("email=bo%40example.test"))
		require.Equal(t, 303, r.status, "back to its page")
		require.Equal(t, "/forms/open", r.header.Get("Location"))
		r = b.request(t, "POST", forms.PrefixDefault+"/open/access", "", "application/json", strings.NewReader(`{"email":"bo@example.test"}`))
		require.Equal(t, 409, r.status, r.body)
	})
}

// Invitations: minted in bulk by the admin API, each good for one
// response until it expires; without one the page says the form is by
// invitation.
func TestInvitations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slug := b.contactForm(t)
	r := b.api(t, "POST", "/"+slug+"/invitations", map[string]any{"count": 2})
	require.Equal(t, 422, r.status, "the form does not take invitations yet")
	require.Contains(t, r.errors(t).Errors, "form")
	require.Equal(t, 200, b.api(t, "PATCH", "/"+slug, map[string]any{"one_per_person": true, "identify_by": "invitation"}).status)
	for body, field := range map[string]string{`{"count":0}`: "count", `{"count":1001}`: "count", `{}`: "count", `{"count":null}`: "count",
		`{"count":2,"expires_at":"2020-01-01T00:00:00Z"}`: "expires_at", `{"count":2,"uses":1}`: "uses"} {
		r = b.api(t, "POST", "/"+slug+"/invitations", body)
		require.Equal(t, 422, r.status, body)
		require.Contains(t, r.errors(t).Errors, field, body)
	}
	require.Equal(t, 403, b.api(t, "POST", "/"+slug+"/invitations", map[string]any{"count": 1}, "viewer").status)

	r = b.api(t, "POST", "/"+slug+"/invitations", map[string]any{"count": 3})
	require.Equal(t, 201, r.status, r.body)
	var minted struct {
		Data []forms.Invitation `json:"data"`
	}
	require.NoError(t, jsonUnmarshal(r.body, &minted))
	require.Len(t, minted.Data, 3)
	for _, inv := range minted.Data {
		require.Equal(t, b.clock.Now().Add(90*24*time.Hour).Truncate(time.Second), inv.ExpiresAt)
		require.Equal(t, b.server.URL+"/forms/"+slug+"?access="+inv.Token, inv.URL)
	}
	require.NotEqual(t, minted.Data[0].Token, minted.Data[1].Token)

	page := b.request(t, "GET", "/forms/"+slug, "", "", nil)
	require.Contains(t, page.body, "This form takes responses by invitation: open it from the link in your invitation.")
	require.NotContains(t, page.body, "<form")
	r = b.submit(t, slug, valid()...)
	require.Equal(t, 403, r.status)

	first := strings.TrimPrefix(minted.Data[0].URL, b.server.URL)
	page = b.request(t, "GET", first, "", "", nil)
	require.Contains(t, page.body, forms.FormTokenField)
	require.Equal(t, 201, b.submit(t, slug, valid(part{name: forms.AccessField, content: minted.Data[0].Token})...).status)
	r = b.submit(t, slug, valid(part{name: forms.AccessField, content: minted.Data[0].Token})...)
	require.Equal(t, 409, r.status, "an invitation is good once")
	page = b.request(t, "GET", first, "", "", nil)
	require.Contains(t, page.body, "You have responded to this form already")
	require.Equal(t, 201, b.submit(t, slug, valid(part{name: forms.AccessField, content: minted.Data[1].Token})...).status)

	// An invitation to another form opens nothing here; one with an end
	// is refused after it.
	b.createForm(t, map[string]any{"name": "Party", "one_per_person": true, "identify_by": "invitation"})
	r = b.api(t, "POST", "/party/invitations", map[string]any{"count": 1, "expires_at": b.clock.Now().Add(time.Hour).Format(time.RFC3339)})
	require.Equal(t, 201, r.status, r.body)
	require.NoError(t, jsonUnmarshal(r.body, &minted))
	r = b.submit(t, slug, valid(part{name: forms.AccessField, content: minted.Data[0].Token})...)
	require.Equal(t, 403, r.status)
	b.clock.Advance(2 * time.Hour)
	page = b.request(t, "GET", "/forms/party?access="+minted.Data[0].Token, "", "", nil)
	require.Contains(t, page.body, "This invitation has expired. Ask whoever sent it for a new one.")
	require.Equal(t, http.StatusOK, page.status)
}

func jsonUnmarshal(body string, v any) error { return json.Unmarshal([]byte(body), v) }

// The walk of a person asked for their address, by keyboard in Chromium:
// a wrong address told at the input, the link sent, opened, the form
// sent. axe-core finds nothing in any state, light and dark, at 320 px
// and on a desktop.
func TestBrowserAccessByEmail(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t, withQueue)
	slug := b.contactForm(t)
	require.Equal(t, 200, b.api(t, "PATCH", "/"+slug, map[string]any{"one_per_person": true, "identify_by": "email"}).status)
	browsertest.Do(t, ctx, chromedp.Navigate(b.server.URL+"/forms/"+slug), chromedp.WaitVisible(chromedp.CSS("input[name=email]")))
	axeEverywhere(t, ctx, "the request for a link")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "form-email-link")
	typeInto(t, ctx, "input[name=email]", "ann at example")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".error-summary"), "valid email address")
	axeEverywhere(t, ctx, "a wrong address")
	browsertest.Do(t, ctx, chromedp.Clear(chromedp.CSS("input[name=email]")))
	typeInto(t, ctx, "input[name=email]", "ann@example.test")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "main"), "We have emailed a link to ann@example.test.")
	axeEverywhere(t, ctx, "the link sent")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "form-email-sent")

	wait, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	msgs, err := b.outbox.Wait(wait, 1)
	require.NoError(t, err)
	browsertest.Do(t, ctx, chromedp.Navigate(accessLinkIn.FindString(msgs[0].Text)), chromedp.WaitVisible(chromedp.CSS("input[name=name]")))
	b.clock.Advance(forms.MinFillTime)
	typeInto(t, ctx, "input[name=name]", "Ann")
	typeInto(t, ctx, "input[name=email]", "ann@example.test")
	browsertest.TabTo(t, ctx, "button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "main"), "Thanks, we got it.")
}

// axeEverywhere checks the page the tab shows with axe-core and the
// layout checks, light and dark, at 320 px and on a desktop.
func axeEverywhere(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	for _, width := range []int64{320, 1280} {
		browsertest.Do(t, ctx, chromedp.EmulateViewport(width, 800))
		for _, scheme := range []string{"light", "dark"} {
			require.NoError(t, browsertest.SetScheme(ctx, scheme))
			browsertest.NoViolations(t, ctx, fmt.Sprintf("%s, %s, %d px", what, scheme, width))
			broken, err := browsertest.Layout(ctx)
			require.NoError(t, err)
			require.Empty(t, broken, what)
		}
	}
	require.NoError(t, browsertest.SetScheme(ctx, "light"))
}

// typeInto tabs to sel and types text, as a keyboard user does.
func typeInto(t *testing.T, ctx context.Context, sel, text string) {
	t.Helper()
	browsertest.TabTo(t, ctx, sel)
	browsertest.Do(t, ctx, chromedp.KeyEvent(text))
}
