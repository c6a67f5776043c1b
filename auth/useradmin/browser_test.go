package useradmin_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth/useradmin"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
)

// An administrator, by keyboard: signs in, searches the users, opens
// one, disables them and enables them again. No axe violations on the
// list, the user's page (with its flash), or the missing user's page;
// screenshots light and dark.
func TestBrowserUsersPage(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	s := newSite(t, store.SQLite, nil)
	s.user(t, "Ada Admin", "ada@example.com", useradmin.Capability)
	bo := s.user(t, "Bo Brown", "bo@example.com")
	s.user(t, "Cy Chen", "cy@example.org")
	shots := os.Getenv(browsertest.EnvScreenshots)

	browsertest.Do(t, ctx, chromedp.Navigate(s.srv.URL+"/login"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), "ada@example.com"), chromedp.SendKeys(chromedp.ID("f-password"), "correct horse battery"))
	browsertest.Press(t, ctx, "\r", true)
	browsertest.Do(t, ctx, chromedp.Navigate(s.srv.URL+useradmin.PagePath), chromedp.WaitVisible(chromedp.CSS("table.stack")))
	browsertest.NoViolations(t, ctx, "the users")
	browsertest.Screenshots(t, ctx, shots, "useradmin-users")

	browsertest.TabTo(t, ctx, "#f-q")
	browsertest.Do(t, ctx, chromedp.SendKeys(chromedp.ID("f-q"), "bo"))
	browsertest.Press(t, ctx, "\r", true)
	browsertest.Eventually(t, ctx, `document.querySelectorAll("table.stack tbody tr").length === 1`, "one user found")
	browsertest.TabTo(t, ctx, `a[href="/admin/users/`+strconv.FormatInt(bo.ID, 10)+`"]`)
	browsertest.Press(t, ctx, "\r", true)
	browsertest.Do(t, ctx, chromedp.WaitVisible(chromedp.CSS("dl.details")))
	require.Equal(t, "Bo Brown", browsertest.Text(t, ctx, "h1"))
	browsertest.NoViolations(t, ctx, "a user's page")

	browsertest.TabTo(t, ctx, `form[action$="/disable"] button`)
	browsertest.Press(t, ctx, "\r", true)
	browsertest.Eventually(t, ctx, `!!document.querySelector('form[action$="/enable"]')`, "disabled")
	require.Contains(t, browsertest.Text(t, ctx, "main"), "Disabled: they are signed out everywhere")
	browsertest.NoViolations(t, ctx, "a disabled user's page, its flash")
	browsertest.Screenshots(t, ctx, shots, "useradmin-user")
	browsertest.TabTo(t, ctx, `form[action$="/enable"] button`)
	browsertest.Press(t, ctx, "\r", true)
	browsertest.Eventually(t, ctx, `!!document.querySelector('form[action$="/disable"]')`, "enabled again")
	u, err := s.users.User(t.Context(), bo.ID)
	require.NoError(t, err)
	require.Nil(t, u.DisabledAt)

	browsertest.Do(t, ctx, chromedp.Navigate(s.srv.URL+useradmin.PagePath+"/999999"), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "Page not found", browsertest.Text(t, ctx, "h1"))
	browsertest.NoViolations(t, ctx, "a missing user")
}
