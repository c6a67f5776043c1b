package main

import (
	"embed"
	"log/slog"
	"net/http"

	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/webhooks"
)

//go:embed pages
var pagesFS embed.FS

// feature is one thing the dashboard lists, with the ability it needs.
type feature struct {
	Name, Ability string
	Allowed       bool
}

// features are what the reference server offers to token holders.
var features = []feature{
	{Name: "Forms API (/api/v1/forms)", Ability: forms.AbilityViewAny},
	{Name: "Webhook subscriptions (/api/ecommerce/v1/admin/webhook-subscriptions)", Ability: webhooks.AbilityViewAny},
	{Name: "AI colour reviews (/api/v1/a11y/ai)", Ability: a11y.AIAbilityDefault},
	{Name: "Bookings admin (/api/bookings/admin)", Ability: bookings.AbilityView},
}

type dashboardPage struct {
	User         auth.User
	Capabilities []string
	Features     []feature
	Verified     bool
}

// newDashboard is GET /dashboard: who you are, and what you may use. Put
// it behind the sign-in middleware (auth.WebOptions.Home does).
func newDashboard(logger *slog.Logger) (http.Handler, error) {
	r, err := web.New(web.Options{Pages: pagesFS, AssetPrefix: auth.AssetPrefix, Logger: logger})
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		u, ok := auth.UserFrom(req.Context())
		if !ok {
			http.Error(w, "not signed in", http.StatusUnauthorized)
			return
		}
		page := &dashboardPage{User: u, Capabilities: u.Capabilities, Verified: req.URL.Query().Get("verified") == "1"}
		for _, f := range features {
			f.Allowed = u.Can(f.Ability)
			page.Features = append(page.Features, f)
		}
		r.Render(w, req, http.StatusOK, "pages/dashboard.html", &web.Page{Title: "Dashboard", Data: page, Viewer: u,
			SignOutURL: "/logout", CSRF: web.CSRFToken(w, req)})
	}), nil
}
