package openid

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/web"
)

// The flow's failures, each a page that says what happened and what to
// do; the cause is logged, never shown.
var (
	errNoProvider      = errors.New("openid: no such provider")
	errState           = errors.New("openid: the callback is not of this browser's flow")
	errCancelled       = errors.New("openid: the provider sent no sign-in")
	errProvider        = errors.New("openid: the provider cannot be reached")
	errRefused         = errors.New("openid: the provider's answer is not valid")
	errNoEmail         = errors.New("openid: the provider gave no address")
	errUnverified      = errors.New("openid: the provider has not verified the address, which a user has")
	errNoAccount       = errors.New("openid: no user has the address, and registration is off")
	errLinkedElsewhere = errors.New("openid: the account is linked to another user")
)

func explain(err error) *web.Problem {
	again := web.ErrorPage{Link: "/login", LinkText: "Back to sign in"}
	page := func(status int, heading, message string) *web.Problem {
		p := again
		p.Heading, p.Message = heading, message
		return &web.Problem{Status: status, Err: err, ErrorPage: p}
	}
	switch {
	case errors.Is(err, errNoProvider), errors.Is(err, ErrNotFound):
		return page(http.StatusNotFound, "Page not found", "There is no such way to sign in here.")
	case errors.Is(err, errState):
		return page(http.StatusBadRequest, "This sign-in did not start here",
			"The answer that brought you here is not of a sign-in this browser began, or it has been used or has expired (a sign-in has 10 minutes). Start again from the sign-in page.")
	case errors.Is(err, errCancelled):
		return page(http.StatusBadRequest, "Sign-in cancelled", "The provider did not sign you in. Start again from the sign-in page, or sign in another way.")
	case errors.Is(err, errProvider):
		return page(http.StatusBadGateway, "The provider cannot be reached", "Please try again in a moment, or sign in another way.")
	case errors.Is(err, errRefused):
		return page(http.StatusBadRequest, "The sign-in could not be confirmed",
			"The provider's answer did not prove who you are, so you are not signed in. Start again from the sign-in page.")
	case errors.Is(err, errNoEmail):
		return page(http.StatusForbidden, "No email address", "The provider did not tell us your email address, which your account here needs. Allow it at the provider, or sign in another way.")
	case errors.Is(err, errUnverified):
		return page(http.StatusForbidden, "Sign in with your password first",
			"An account here has that address, but the provider has not verified it is yours. Sign in with your password or a mailed link, then link the provider on your account page.")
	case errors.Is(err, errNoAccount):
		return page(http.StatusForbidden, "No account has that address", "New accounts are not made here. Ask whoever runs this site for one.")
	case errors.Is(err, auth.ErrDisabled):
		return page(http.StatusForbidden, "This account is disabled", "Your account here is disabled, so it cannot sign in. Ask whoever runs this site to enable it again.")
	case errors.Is(err, errLinkedElsewhere):
		p := page(http.StatusConflict, "Linked to another account", "That account is linked to another account here. Sign in with it and remove it there first.")
		p.Link, p.LinkText = PagePath, "Back to your linked accounts"
		return p
	}
	return nil
}

// accountsPage is what the page shows: the user's linked accounts and
// the providers they may link.
type accountsPage struct {
	Action     string
	Identities []linked
	Providers  []Provider
}

type linked struct {
	Identity
	Label string
}

// signedIn is the request's user; a guest finds no page.
func signedIn(r *http.Request) (auth.User, error) {
	u, ok := auth.UserFrom(r.Context())
	if !ok {
		return auth.User{}, ErrNotFound
	}
	return u, nil
}

func (h *Handler) page(w http.ResponseWriter, r *http.Request) error {
	u, err := signedIn(r)
	if err != nil {
		return err
	}
	ids, err := h.st.Identities(r.Context(), u.ID)
	if err != nil {
		return err
	}
	data := &accountsPage{Action: PagePath}
	for _, id := range ids {
		l := linked{Identity: id, Label: id.Provider}
		if p := h.provider(id.Provider); p != nil {
			l.Label = p.Label
		}
		data.Identities = append(data.Identities, l)
	}
	// The link buttons post here and are redirected to the providers,
	// which the page's form-action must allow.
	var origins []string
	for _, p := range h.providers {
		data.Providers = append(data.Providers, p.Provider)
		if d, _, err := h.discover(r.Context(), p); err == nil {
			if u, err := url.Parse(endpoint(p, d).AuthURL); err == nil && !slices.Contains(origins, u.Scheme+"://"+u.Host) {
				origins = append(origins, u.Scheme+"://"+u.Host)
			}
		}
	}
	h.base.Render.Render(w, r, http.StatusOK, Template, &web.Page{Title: "Accounts you sign in with", Data: data, CSRF: web.CSRFToken(w, r),
		Flash: h.base.Render.TakeFlash(w, r, PagePath), FormAction: origins})
	return nil
}

func (h *Handler) startLink(w http.ResponseWriter, r *http.Request) error {
	u, err := signedIn(r)
	if err != nil {
		return err
	}
	return h.begin(w, r, u.ID)
}

func (h *Handler) remove(w http.ResponseWriter, r *http.Request) error {
	u, err := signedIn(r)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return ErrNotFound
	}
	if err := h.st.UnlinkIdentity(r.Context(), u.ID, id); err != nil {
		return err
	}
	h.base.Render.SetFlash(w, r, PagePath, web.Flash{Kind: "success", Message: "The account is removed: it no longer signs you in here."})
	web.SeeOther(w, r, PagePath)
	return nil
}
