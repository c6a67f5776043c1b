package auth

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/web"
)

// Token expiry choices on the settings page, in days (0 for never).
var tokenExpiryDays = []int{0, 30, 90, 365}

// tokensPage is the data of /settings/tokens.
type tokensPage struct {
	// Created is the new token's plaintext, shown this once.
	Created string
	Tokens  []Token
	Form    formPage
	Now     time.Time
}

// offeredAbilities are the abilities u may give a token.
func (w *Web) offeredAbilities(u User) []string {
	offer := w.o.TokenAbilities
	if len(offer) == 0 {
		offer = u.Capabilities
	}
	var out []string
	for _, a := range offer {
		if covers(u.Capabilities, a) && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// covers reports whether granted covers every ability that requested
// (which may itself end in a wildcard) names.
func covers(granted []string, requested string) bool {
	if requested == "*" {
		return slices.Contains(granted, "*")
	}
	if base, ok := strings.CutSuffix(requested, "*"); ok {
		// "forms:*" is covered by "*", "forms:*", or a wider wildcard.
		return groundwork.Can(granted, base+"\x00any")
	}
	return groundwork.Can(granted, requested)
}

func (w *Web) tokenForm(r *http.Request, u User) formPage {
	chosen := r.PostForm["abilities"]
	abilities := field(web.TypeCheckboxes, "abilities", "Abilities", "", "", true)
	abilities.ID = "f-abilities"
	abilities.Help = "What the token may do; never more than your account may."
	for _, a := range w.offeredAbilities(u) {
		abilities.Options = append(abilities.Options, web.Option{Value: a, Label: a, Selected: slices.Contains(chosen, a)})
	}
	expiry := field(web.TypeSelect, "expires_in_days", "Expires", "", "", false)
	expiry.Placeholder = "Never"
	for _, d := range tokenExpiryDays[1:] {
		v := strconv.Itoa(d)
		expiry.Options = append(expiry.Options, web.Option{Value: v, Label: "In " + v + " days", Selected: r.PostFormValue("expires_in_days") == v})
	}
	return formPage{Heading: "Create a token", Action: "/settings/tokens", Submit: "Create token",
		Fields: []web.Field{field("text", "name", "Token name", r.PostFormValue("name"), "off", true), abilities, expiry}}
}

func (w *Web) showTokens(rw http.ResponseWriter, r *http.Request, status int, u User, created string, form formPage) error {
	tokens, err := w.svc.UserTokens(r.Context(), u.ID)
	if err != nil {
		return err
	}
	slices.Reverse(tokens)
	w.page(rw, r, status, TokensTemplate, "API tokens", &tokensPage{Created: created, Tokens: tokens, Form: form, Now: w.svc.now()})
	return nil
}

func (w *Web) tokensPage(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	return w.showTokens(rw, r, http.StatusOK, u, "", w.tokenForm(r, u))
}

func (w *Web) createToken(rw http.ResponseWriter, r *http.Request) error {
	if !w.form(rw, r) {
		return nil
	}
	u, _ := UserFrom(r.Context())
	form := w.tokenForm(r, u)
	nt := NewToken{Name: r.PostFormValue("name"), Abilities: r.PostForm["abilities"], UserID: u.ID}
	if d := r.PostFormValue("expires_in_days"); d != "" {
		days, err := strconv.Atoi(d)
		if err != nil || !slices.Contains(tokenExpiryDays[1:], days) {
			withErrors(&form, api.Invalid("expires_in_days", api.MsgSelected("expires_in_days")))
			return w.showTokens(rw, r, http.StatusUnprocessableEntity, u, "", form)
		}
		nt.ExpiresAt = w.svc.now().Add(time.Duration(days) * 24 * time.Hour)
	}
	plaintext, _, err := w.svc.CreateUserToken(r.Context(), u, nt)
	var ve *ValidationError
	if errors.As(err, &ve) {
		withErrors(&form, ve)
		return w.showTokens(rw, r, http.StatusUnprocessableEntity, u, "", form)
	}
	if err != nil {
		return err
	}
	// Shown once, on this answer; a fresh form below it.
	r.PostForm = nil
	return w.showTokens(rw, r, http.StatusCreated, u, plaintext, w.tokenForm(r, u))
}

func (w *Web) revokeToken(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var t Token
	if err == nil {
		t, err = w.svc.Token(r.Context(), id)
	}
	if err != nil || t.UserID == nil || *t.UserID != u.ID {
		if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, strconv.ErrSyntax) && !errors.Is(err, strconv.ErrRange) {
			return err
		}
		w.render.Error(rw, r, http.StatusNotFound, web.ErrorPage{Heading: "Token not found", Message: "You have no token with that number.",
			Link: "/settings/tokens", LinkText: "Back to your tokens"})
		return nil
	}
	if err := w.svc.RevokeToken(r.Context(), id); err != nil {
		return err
	}
	w.render.SetFlash(rw, r, "/settings/tokens", web.Flash{Kind: "success", Message: "The token “" + t.Name + "” was revoked."})
	web.SeeOther(rw, r, "/settings/tokens")
	return nil
}

// CreateUserToken issues a token that belongs to u, whose abilities may
// not exceed u's capabilities (an ability they do not cover is a
// *ValidationError on "abilities.N").
func (s *Service) CreateUserToken(ctx context.Context, u User, nt NewToken) (string, Token, error) {
	v := &api.Validator{}
	for i, a := range nt.Abilities {
		if ValidAbility(a) && !covers(u.Capabilities, a) {
			v.Add("abilities."+strconv.Itoa(i), "The abilities."+strconv.Itoa(i)+" field names an ability your account does not have.")
		}
	}
	if err := v.Err(); err != nil {
		return "", Token{}, err
	}
	nt.UserID = u.ID
	return s.CreateToken(ctx, nt)
}
