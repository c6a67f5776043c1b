package auth

import (
	"cmp"
	"errors"
	"html/template"
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

// tokenExpiryDefaultDays is the expiry the form offers first: a token
// that is forgotten stops working by itself.
const tokenExpiryDefaultDays = 90

// tokensPage is the data of /settings/tokens.
type tokensPage struct {
	// Created is the new token's plaintext, shown this once (after the
	// redirect that follows creating it).
	Created string
	Tokens  []Token
	Form    formPage
	// Groups are the abilities offered, by domain; none when the user has
	// no capabilities, and then AdminContact says who grants them.
	Groups       []abilityGroup
	AbilityError []string
	AdminContact string
	Now          time.Time
}

// abilityGroup is one domain's abilities on the token form.
type abilityGroup struct {
	Name    string
	Options []abilityOption
}

// abilityOption is one checkbox: the ability's wire name and what it
// allows, in a sentence.
type abilityOption struct {
	ID, Value, Sentence string
	Checked             bool
}

// Code is the ability's name with a line-break opportunity after each
// ":" and ".", so a narrow screen breaks it between its words, never
// inside one.
func (o abilityOption) Code() template.HTML {
	var b strings.Builder
	for _, r := range o.Value {
		b.WriteString(template.HTMLEscapeString(string(r)))
		if r == ':' || r == '.' {
			b.WriteString("<wbr>")
		}
	}
	return template.HTML(b.String())
}

// domainNames are the abilities' domains as the token form heads them.
var domainNames = map[string]string{"forms": "Forms", "webhooks": "Webhooks", "a11y": "Colour accessibility", "bookings": "Bookings",
	"emaillist": "Email lists", "reporting": "Reports"}

// abilityGroups sorts the offered abilities into their domains, in the
// order of the shared table, each with its sentence: "*" is "Everything",
// "forms:*" everything of forms, an ability no table knows its own name.
func abilityGroups(offered, chosen []string) []abilityGroup {
	var groups []abilityGroup
	index := map[string]int{}
	add := func(group string, o abilityOption) {
		i, ok := index[group]
		if !ok {
			i, index[group] = len(groups), len(groups)
			groups = append(groups, abilityGroup{Name: group})
		}
		o.ID = "f-abilities-" + strconv.Itoa(i+1) + "-" + strconv.Itoa(len(groups[i].Options))
		o.Checked = slices.Contains(chosen, o.Value)
		groups[i].Options = append(groups[i].Options, o)
	}
	known := map[string]groundwork.Ability{}
	for _, a := range slices.Concat(groundwork.Abilities, groundwork.Capabilities) {
		known[a.Name] = a
	}
	for _, a := range offered {
		switch k, ok := known[a]; {
		case a == "*":
			add("Everything", abilityOption{Value: a, Sentence: "Everything: every ability below, and any added later."})
		case ok:
			add(cmp.Or(domainNames[k.Domain], k.Domain), abilityOption{Value: a, Sentence: k.Description})
		case strings.HasSuffix(a, "*"):
			domain := wildcardDomain(strings.TrimSuffix(a, "*"))
			add(cmp.Or(domainNames[domain], "Other"), abilityOption{Value: a, Sentence: "Everything in " + strings.ToLower(cmp.Or(domainNames[domain], a)) + "."})
		default:
			add("Other", abilityOption{Value: a})
		}
	}
	return groups
}

// wildcardDomain is the domain whose abilities start with prefix.
func wildcardDomain(prefix string) string {
	for _, a := range groundwork.Abilities {
		if strings.HasPrefix(a.Name, prefix) {
			return a.Domain
		}
	}
	return ""
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

func (w *Web) tokenForm(r *http.Request) formPage {
	expiry := field(web.TypeSelect, "expires_in_days", "Expires", "", "", false)
	expiry.Placeholder = "Never"
	chosen := r.PostFormValue("expires_in_days")
	if r.Method != http.MethodPost {
		chosen = strconv.Itoa(tokenExpiryDefaultDays)
	}
	for _, d := range tokenExpiryDays[1:] {
		v := strconv.Itoa(d)
		expiry.Options = append(expiry.Options, web.Option{Value: v, Label: "In " + v + " days", Selected: chosen == v})
	}
	name := field("text", "name", "Token name", r.PostFormValue("name"), "off", true)
	name.Help = "Say where it will be used, e.g. “Deploy script”."
	return formPage{Heading: "Create a token", Action: "/settings/tokens", Submit: "Create token",
		Fields: []web.Field{name, expiry}}
}

// newTokenCookie carries a new token's plaintext across the redirect
// after it is made, sealed (AES-GCM) for the user, for a minute.
const newTokenCookie = "gw_new_token"

func (w *Web) showTokens(rw http.ResponseWriter, r *http.Request, status int, u User, created string, form formPage, errs []string) error {
	tokens, err := w.svc.UserTokens(r.Context(), u.ID)
	if err != nil {
		return err
	}
	slices.Reverse(tokens)
	page := &tokensPage{Created: created, Tokens: tokens, Form: form, Now: w.svc.now(), AbilityError: errs, AdminContact: w.o.AdminContact,
		Groups: abilityGroups(w.offeredAbilities(u), r.PostForm["abilities"])}
	if len(errs) > 0 && len(page.Groups) > 0 {
		// The summary's link leads to the first checkbox.
		page.Form.Summary = append(page.Form.Summary, web.SummaryItem{Target: page.Groups[0].Options[0].ID, Message: strings.Join(errs, " ")})
	}
	w.page(rw, r, status, TokensTemplate, "API tokens", page)
	return nil
}

func (w *Web) tokensPage(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	created := ""
	if c, err := r.Cookie(newTokenCookie); err == nil {
		http.SetCookie(rw, &http.Cookie{Name: newTokenCookie, Path: "/settings/tokens", MaxAge: -1, HttpOnly: true, Secure: w.secure(r),
			SameSite: http.SameSiteStrictMode})
		if plain, err := w.tokenSeal.Open(c.Value, []byte(strconv.FormatInt(u.ID, 10))); err == nil {
			if at, token, ok := strings.Cut(plain, "|"); ok {
				if t, err := strconv.ParseInt(at, 10, 64); err == nil && w.svc.now().Sub(time.Unix(t, 0)) < time.Minute {
					created = token
				}
			}
		}
	}
	return w.showTokens(rw, r, http.StatusOK, u, created, w.tokenForm(r), nil)
}

// createToken makes the token and redirects to the page, which shows it
// once (Post/Redirect/Get: reloading that page makes no second token).
func (w *Web) createToken(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	form := w.tokenForm(r)
	nt := NewToken{Name: r.PostFormValue("name"), Abilities: r.PostForm["abilities"], UserID: u.ID}
	if d := r.PostFormValue("expires_in_days"); d != "" {
		days, err := strconv.Atoi(d)
		if err != nil || !slices.Contains(tokenExpiryDays[1:], days) {
			withErrors(&form, api.Invalid("expires_in_days", api.MsgSelected("expires_in_days")))
			return w.showTokens(rw, r, http.StatusUnprocessableEntity, u, "", form, nil)
		}
		nt.ExpiresAt = w.svc.now().Add(time.Duration(days) * 24 * time.Hour)
	}
	plaintext, _, err := w.svc.CreateUserToken(r.Context(), u, nt)
	var ve *ValidationError
	if errors.As(err, &ve) {
		var abilityErrs []string
		rest := &ValidationError{}
		for _, name := range ve.FieldNames() {
			switch {
			case name == "abilities":
				for _, m := range ve.Fields()[name] {
					if m == api.MsgRequired("abilities") {
						m = "Choose at least one thing the token may do."
					}
					abilityErrs = append(abilityErrs, m)
				}
			case strings.HasPrefix(name, "abilities."):
				if msg := "One of the chosen abilities is beyond what your account may do."; !slices.Contains(abilityErrs, msg) {
					abilityErrs = append(abilityErrs, msg)
				}
			default:
				for _, m := range ve.Fields()[name] {
					rest.Add(name, m)
				}
			}
		}
		if len(rest.FieldNames()) > 0 {
			withErrors(&form, rest)
		}
		return w.showTokens(rw, r, http.StatusUnprocessableEntity, u, "", form, abilityErrs)
	}
	if err != nil {
		return err
	}
	sealed := w.tokenSeal.Seal(strconv.FormatInt(w.svc.now().Unix(), 10)+"|"+plaintext, []byte(strconv.FormatInt(u.ID, 10)))
	http.SetCookie(rw, &http.Cookie{Name: newTokenCookie, Value: sealed, Path: "/settings/tokens", MaxAge: 60, HttpOnly: true,
		Secure: w.secure(r), SameSite: http.SameSiteStrictMode})
	web.SeeOther(rw, r, "/settings/tokens")
	return nil
}

// revokeConfirm is the data of the page that asks before revoking.
type revokeConfirm struct {
	Token Token
}

// confirmRevoke asks before revoking: GET /settings/tokens/{id}/revoke.
func (w *Web) confirmRevoke(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	t, err := w.ownToken(r, u)
	if err != nil {
		return err
	}
	w.page(rw, r, http.StatusOK, RevokeTemplate, "Revoke "+t.Name, &revokeConfirm{Token: t})
	return nil
}

// ownToken is the user's token named by the path's id; a 404 Problem
// when they have no such token.
func (w *Web) ownToken(r *http.Request, u User) (Token, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var t Token
	if err == nil {
		t, err = w.svc.Token(r.Context(), id)
	}
	if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, strconv.ErrSyntax) && !errors.Is(err, strconv.ErrRange) {
		return t, err
	}
	if err != nil || t.UserID == nil || *t.UserID != u.ID {
		return t, &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "Token not found",
			Message: "You have no token with that number.", Link: "/settings/tokens", LinkText: "Back to your tokens"}}
	}
	return t, nil
}

func (w *Web) revokeToken(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	t, err := w.ownToken(r, u)
	if err != nil {
		return err
	}
	if err := w.svc.RevokeToken(r.Context(), t.ID); err != nil {
		return err
	}
	w.render.SetFlash(rw, r, "/settings/tokens", web.Flash{Kind: "success", Message: "The token “" + t.Name + "” was revoked: it no longer works."})
	web.SeeOther(rw, r, "/settings/tokens")
	return nil
}
