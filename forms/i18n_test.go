package forms_test

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/browsertest"
)

// frenchContact gives the contact form a French translation, with its
// admin notification's, and returns the notification's id.
func (b *bundle) frenchContact(t *testing.T, slug string) string {
	t.Helper()
	r := b.api(t, "POST", "/"+slug+"/notifications", map[string]any{"type": "autoresponder", "recipients": "{{field:email}}",
		"subject": "Thanks", "message": "We got it."})
	require.Equal(t, 201, r.status, r.body)
	id := num(r.data(t)["id"])
	r = b.api(t, "PATCH", "/"+slug, map[string]any{"language": "en", "translations": map[string]any{"fr": map[string]any{
		"name": "Contact (FR)", "description": "Écrivez-nous.", "submit_button_text": "Envoyer", "success_message": "Merci, c'est reçu.",
		"fields": map[string]any{
			"name":  map[string]any{"label": "Nom"},
			"email": map[string]any{"label": "Adresse e-mail", "help_text": "Nous vous répondrons ici."},
			"topic": map[string]any{"label": "Sujet", "options": map[string]any{"sales": "Ventes", "support": "Assistance"}},
		},
		"notifications": map[string]any{id: map[string]any{"subject": "Merci", "message": "C'est reçu."}},
	}}})
	require.Equal(t, 200, r.status, r.body)
	return id
}

// A form in two languages: the page and the render definition in the one
// asked for (?lang=, else Accept-Language), the page's lang attribute set;
// messages, the thanks and the notification in the language sent in; bad
// languages refused by name.
func TestFormLanguages(t *testing.T) {
	t.Parallel()
	b := setup(t, withQueue)
	slug := b.contactForm(t)
	for _, bad := range []map[string]any{
		{"language": "not a language"},
		{"translations": map[string]any{"xx-!!": map[string]any{}}},
		{"translations": map[string]any{"en": map[string]any{"name": "Same"}}},
		{"translations": map[string]any{"fr": map[string]any{"name": strings.Repeat("x", forms.TranslationsMaxBytes)}}},
	} {
		r := b.api(t, "PATCH", "/"+slug, bad)
		require.Equal(t, 422, r.status, "%v: %s", bad, r.body)
	}
	b.frenchContact(t, slug)

	page := b.request(t, "GET", "/forms/"+slug+"?lang=fr", "", "", nil)
	require.Equal(t, 200, page.status)
	require.Contains(t, page.body, `<html lang="fr">`)
	for _, text := range []string{"<h1>Contact (FR)</h1>", "Écrivez-nous.", ">Nom", ">Adresse e-mail", "Nous vous répondrons ici.", ">Ventes<", ">Envoyer<",
		`name="_lang" value="fr"`} {
		require.Contains(t, page.body, text)
	}
	page = b.request(t, "GET", "/forms/"+slug, "", "", nil, "Accept-Language", "fr-CA,fr;q=0.9,en;q=0.5")
	require.Contains(t, page.body, `<html lang="fr">`)
	page = b.request(t, "GET", "/forms/"+slug, "", "", nil, "Accept-Language", "de-DE,de;q=0.9")
	require.Contains(t, page.body, `<html lang="en">`)
	require.Contains(t, page.body, "<h1>Contact</h1>")

	def := b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/render?lang=fr", "", "", nil)
	require.Equal(t, 200, def.status, def.body)
	data := def.data(t)
	require.Equal(t, "fr", data["language"])
	require.JSONEq(t, `["en","fr"]`, mustJSON(t, data["languages"]))
	require.Equal(t, "Contact (FR)", data["name"])
	require.Contains(t, def.body, `"label":"Ventes"`)
	def = b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/render", "", "", nil)
	require.Equal(t, "en", def.data(t)["language"])

	// Messages in French, naming the fields by their French labels.
	r := b.request(t, "POST", forms.PrefixDefault+"/"+slug+"/submit", "", "application/json", strings.NewReader(`{"email":"x","_lang":"fr"}`))
	require.Equal(t, 422, r.status)
	require.Equal(t, []string{"Le champ Nom est obligatoire."}, r.errors(t).Errors["name"])
	require.Equal(t, []string{"Le champ Adresse e-mail doit être une adresse e-mail valide."}, r.errors(t).Errors["email"])
	r = b.request(t, "POST", forms.PrefixDefault+"/"+slug+"/submit", "", "application/json", strings.NewReader(`{"email":"x"}`),
		"Accept-Language", "fr")
	require.Equal(t, []string{"Le champ Nom est obligatoire."}, r.errors(t).Errors["name"], "by Accept-Language too")
	r = b.request(t, "POST", forms.PrefixDefault+"/"+slug+"/submit", "", "application/json", strings.NewReader(`{"email":"x"}`))
	require.Equal(t, []string{"The Name field is required."}, r.errors(t).Errors["name"], "English as ever")

	// Sent from the French page: thanked in French, told in French.
	page = b.request(t, "GET", "/forms/"+slug+"?lang=fr", "", "", nil)
	token := formTokenOf(t, page.body)
	b.clock.Advance(forms.MinFillTime)
	form := url.Values{"name": {"Ann"}, "email": {"ann@example.test"}, "topic": {"sales"}, forms.FormTokenField: {token}, forms.LanguageField: {"fr"}}
	sent := b.request(t, "POST", "/forms/"+slug, "", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	require.Equal(t, 303, sent.status, sent.body)
	require.Equal(t, "/forms/"+slug+"?lang=fr", sent.header.Get("Location"))
	thanks := b.request(t, "GET", sent.header.Get("Location"), "", "", nil, "Cookie", sent.header.Get("Set-Cookie"))
	require.Contains(t, thanks.body, "Merci, c&#39;est reçu.")
	require.Contains(t, thanks.body, "Envoyer une autre réponse")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	msgs, err := b.outbox.Wait(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, "Merci", msgs[0].Subject)
	require.Equal(t, "C'est reçu.", msgs[0].Text)
}

// A host adds a language's messages; a text that is not one of the
// package's is refused.
func TestAddMessages(t *testing.T) {
	require.Error(t, forms.AddMessages("de", map[string]string{"Not ours": "Nicht unseres"}))
	require.Error(t, forms.AddMessages("not a tag!", nil))
	require.Contains(t, forms.MessageKeys(), "The %s field is required.")
	require.NoError(t, forms.AddMessages("de", map[string]string{"The %s field is required.": "Das Feld %s ist erforderlich."}))
	b := setup(t)
	b.createForm(t, map[string]any{"name": "Kontakt", "language": "de"})
	b.addField(t, "kontakt", map[string]any{"type": "text", "label": "Name", "is_required": true})
	b.addField(t, "kontakt", map[string]any{"type": "email", "label": "E-Mail"})
	r := b.request(t, "POST", forms.PrefixDefault+"/kontakt/submit", "", "application/json", strings.NewReader(`{"e_mail":"x"}`))
	require.Equal(t, 422, r.status, r.body)
	require.Equal(t, []string{"Das Feld Name ist erforderlich."}, r.errors(t).Errors["name"])
	require.Equal(t, []string{"The E-Mail field must be a valid email address."}, r.errors(t).Errors["e_mail"], "English where the table has no text")
}

// The page in two languages in Chromium, with a mistake each: axe-core
// finds nothing, light and dark, phone and desktop; pictures of both.
func TestBrowserFormLanguages(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t)
	slug := b.contactForm(t)
	b.frenchContact(t, slug)
	for _, lang := range []string{"en", "fr"} {
		browsertest.Do(t, ctx, chromedp.Navigate(b.server.URL+"/forms/"+slug+"?lang="+lang), chromedp.WaitVisible(chromedp.CSS("input[name=name]")))
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.lang`))
		require.NoError(t, err)
		require.Equal(t, lang, got)
		axeEverywhere(t, ctx, "the form in "+lang)
		browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "form-"+lang)
		browsertest.TabTo(t, ctx, "button[type=submit]")
		browsertest.Press(t, ctx, "\r", true)
		summary := browsertest.Text(t, ctx, ".error-summary")
		if lang == "fr" {
			require.Contains(t, summary, "Le champ Nom est obligatoire.")
		} else {
			require.Contains(t, summary, "Enter a name", "English pages speak plainly (the API keeps its words)")
		}
		axeEverywhere(t, ctx, "the form's mistakes in "+lang)
	}
}
