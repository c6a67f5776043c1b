package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// TestServeForms walks the forms example of docs/forms.md against the server:
// create a form, add fields, fill it in, list and export.
func TestServeForms(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.SQLite)
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "info", "--uploads", t.TempDir()},
		env{"GROUNDWORK_ADMIN_EMAIL": "team@example.test"}.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)
	c, out, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn}, "token", "create", "--name", "forms", "--ability", "forms:*")
	require.Equal(t, 0, c, stderr)
	token := strings.TrimSpace(out)

	code, body := request(t, "POST", base+"/api/v1/forms", token, `{"name":"Contact us","success_message":"Thanks!"}`)
	require.Equal(t, 201, code, body)
	for _, field := range []string{`{"type":"text","label":"Name","is_required":true}`, `{"type":"email","label":"Email","is_required":true}`,
		`{"type":"textarea","label":"Message"}`} {
		code, body = request(t, "POST", base+"/api/v1/forms/contact-us/fields", token, field)
		require.Equal(t, 201, code, body)
	}
	code, body = request(t, "POST", base+"/api/v1/forms/contact-us/notifications", token, `{"type":"admin"}`)
	require.Equal(t, 201, code, body)

	code, page := get(t, base+"/forms/contact-us", "")
	require.Equal(t, 200, code)
	require.Contains(t, page, `action="/forms/contact-us"`)

	// Each way in carries a form-load token: the page's hidden input, the
	// render definition's config.form_token. A person takes a while.
	pageToken := regexp.MustCompile(`name="_form_token" value="([^"]+)"`).FindStringSubmatch(page)
	require.NotNil(t, pageToken, page)
	apiToken := renderToken(t, base, "contact-us")
	time.Sleep(forms.MinFillTime)

	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range map[string]string{"name": "Ann", "email": "ann@example.test", "message": "Hello", "_form_token": apiToken} {
		require.NoError(t, w.WriteField(k, v))
	}
	require.NoError(t, w.Close())
	res, err := http.Post(base+"/api/v1/forms/contact-us/submit", w.FormDataContentType(), &buf)
	require.NoError(t, err)
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 201, res.StatusCode, string(raw))
	var created map[string]any
	require.NoError(t, json.Unmarshal(raw, &created))
	require.Equal(t, "Thanks!", created["message"])

	// The page posts to itself, and a browser lands on the thanks by a
	// redirect (the flash signed with a key made from the secret key).
	buf.Reset()
	w = multipart.NewWriter(&buf)
	for k, v := range map[string]string{"name": "Bo", "email": "bo@example.test", "_form_token": pageToken[1]} {
		require.NoError(t, w.WriteField(k, v))
	}
	require.NoError(t, w.Close())
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar}
	res, err = browser.Post(base+"/forms/contact-us", w.FormDataContentType(), &buf)
	require.NoError(t, err)
	raw, _ = io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode, string(raw))
	require.Equal(t, "/forms/contact-us", res.Request.URL.Path, "redirected back to the page")
	require.Contains(t, string(raw), "<p>Thanks!</p>")

	code, body = get(t, base+"/api/v1/forms/contact-us/submissions", token)
	require.Equal(t, 200, code)
	require.Contains(t, body, `"total":2`)
	require.NotContains(t, body, `"is_spam":true`)
	code, body = get(t, base+"/api/v1/forms/contact-us/submissions/export", token)
	require.Equal(t, 200, code)
	require.Contains(t, body, "Submission ID,Submission Number,Submitted At,Name,Email,Message,Page URL,Is Read,Is Spam,Is Starred")
	require.Contains(t, body, ",Ann,ann@example.test,Hello,")
	require.Contains(t, body, ",Bo,bo@example.test,,")

	// The notification went out through the queue to the logging outbox.
	logs, _ := servedLogs.Load(t.Name())
	require.Eventually(t, func() bool {
		return strings.Contains(logs.(*syncBuffer).String(), `msg="mail sent to the outbox"`) &&
			strings.Contains(logs.(*syncBuffer).String(), "New submission: Contact us")
	}, 20*time.Second, 50*time.Millisecond, fmt.Sprint(logs))
}

// renderToken is the form-load token of the form's render definition.
func renderToken(t *testing.T, base, slug string) string {
	t.Helper()
	code, body := get(t, base+"/api/v1/forms/"+slug+"/render", "")
	require.Equal(t, 200, code, body)
	var def struct {
		Data struct {
			Config struct {
				FormToken string `json:"form_token"`
			} `json:"config"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &def))
	require.NotEmpty(t, def.Data.Config.FormToken, body)
	return def.Data.Config.FormToken
}
