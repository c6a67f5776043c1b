package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/forms"
)

func TestHooks(t *testing.T) {
	got := make(chan forms.SubmissionEvent, 1)
	h, err := newHost(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "hooks.db"), func(e forms.SubmissionEvent) { got <- e })
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	post := func(path, contentType, body string) (int, string) {
		res, err := client.Post(srv.URL+path, contentType, strings.NewReader(body))
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	// 4.54:1 passes WCAG AA, not the house rule of 7:1.
	require.True(t, a11y.CheckContrastColor("#767676", "#FFFFFF"), "without the hook it passes")
	code, body := post("/api/a11y/contrast-check", "application/json", `{"foreground":"#767676","background":"#FFFFFF"}`)
	require.Equal(t, 200, code)
	require.JSONEq(t, `{"ratio":4.542224959605253,"is_accessible":false}`, body)
	_, body = post("/api/a11y/contrast-check", "application/json", `{"foreground":"#000000","background":"#FFFFFF"}`)
	require.Contains(t, body, `"is_accessible":true`)

	// A person opens the page, takes a while, and sends it: the
	// submission reaches the host's code.
	res, err := client.Get(srv.URL + "/forms/feedback")
	require.NoError(t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`name="` + forms.FormTokenField + `" value="([^"]+)"`).FindSubmatch(page)
	require.NotNil(t, m, "the page carries a form-load token")
	time.Sleep(forms.MinFillTime)
	code, _ = post("/forms/feedback", "application/x-www-form-urlencoded",
		url.Values{"what_could_be_better": {"More colour"}, forms.FormTokenField: {string(m[1])}}.Encode())
	require.Equal(t, http.StatusSeeOther, code)
	var e forms.SubmissionEvent
	select {
	case e = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the submission never reached the hook")
	}
	require.Equal(t, "feedback", e.Form.Slug)
	require.Equal(t, "More colour", *e.Submission.Values[0].Value)

	// A bot that fills the honeypot, or posts without the page's token,
	// is stored as spam, silently, and never reaches the hook.
	code, _ = post("/forms/feedback", "application/x-www-form-urlencoded", url.Values{"what_could_be_better": {"Buy now"}, "website_url": {"spam.example"}}.Encode())
	require.Equal(t, http.StatusSeeOther, code)
	code, _ = post("/forms/feedback", "application/x-www-form-urlencoded", url.Values{"what_could_be_better": {"Buy now"}}.Encode())
	require.Equal(t, http.StatusSeeOther, code)
	select {
	case e := <-got:
		t.Fatalf("spam reached the hook: %v", e.Submission.ID)
	default:
	}
}
