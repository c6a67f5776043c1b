package forms

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"github.com/groundwork-go/groundwork/internal/api"
)

// Several languages: a form has its own language (FormSettings.Language,
// English when empty) and may carry translations of its texts into others
// (FormSettings.Translations). A page or render definition is drawn in
// the language asked for by ?lang=, else the best match of the request's
// Accept-Language, else the form's own; a submission's messages are said
// in the language it was sent in (LanguageField). Validation messages
// come from a catalogue: English and French ship, and AddMessages adds
// others.

// LanguageField carries the language a submission was sent in (the
// page's hidden input); LanguageQuery is the page's and the render
// route's parameter that picks one.
const (
	LanguageField = "_lang"
	LanguageQuery = "lang"
	// TranslationsMaxBytes caps a form's translations, as JSON.
	TranslationsMaxBytes = 256 << 10
)

// Translation is a form's texts in another language; an empty text keeps
// the form's own.
type Translation struct {
	Name             string `json:"name,omitempty"`
	Description      string `json:"description,omitempty"`
	SubmitButtonText string `json:"submit_button_text,omitempty"`
	SuccessMessage   string `json:"success_message,omitempty"`
	ClosedMessage    string `json:"closed_message,omitempty"`
	// Fields by field name, Steps by step id, Notifications by
	// notification id.
	Fields        map[string]FieldTranslation        `json:"fields,omitempty"`
	Steps         map[string]StepTranslation         `json:"steps,omitempty"`
	Notifications map[string]NotificationTranslation `json:"notifications,omitempty"`
}

// FieldTranslation is a field's texts in another language: Options maps
// an option's value to its label; Content replaces an HTML field's.
type FieldTranslation struct {
	Label       string            `json:"label,omitempty"`
	Placeholder string            `json:"placeholder,omitempty"`
	HelpText    string            `json:"help_text,omitempty"`
	Options     map[string]string `json:"options,omitempty"`
	Content     string            `json:"content,omitempty"`
}

// StepTranslation is a step's texts in another language.
type StepTranslation struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
}

// NotificationTranslation is a notification's subject and message in
// another language, sent for submissions made in it.
type NotificationTranslation struct {
	Subject string `json:"subject,omitempty"`
	Message string `json:"message,omitempty"`
}

// languageOf is form's own language: its Language, else "en".
func languageOf(form *Form) string {
	if form.Language == "" {
		return "en"
	}
	return form.Language
}

// languages are those form is drawn in: its own first, then those of its
// translations, sorted.
func languages(form *Form) []string {
	return append([]string{languageOf(form)}, slices.Sorted(maps.Keys(form.Translations))...)
}

// chooseLanguage is the language to draw form in when asked for one
// (?lang=) with an Accept-Language header: asked when the form has it,
// else the header's best match, else the form's own.
func chooseLanguage(form *Form, asked, accept string) string {
	langs := languages(form)
	if len(langs) == 1 {
		return langs[0]
	}
	if tag, err := language.Parse(asked); err == nil && slices.Contains(langs, tag.String()) {
		return tag.String()
	}
	if accept == "" {
		return langs[0]
	}
	tags := make([]language.Tag, len(langs))
	for i, l := range langs {
		tags[i] = language.Make(l)
	}
	_, i := language.MatchStrings(language.NewMatcher(tags), accept)
	return langs[i]
}

// validateLanguages checks a form's language and translations.
func validateLanguages(v *api.Validator, f *Form) {
	if f.Language != "" {
		tag, err := language.Parse(f.Language)
		if err != nil || len(f.Language) > 35 {
			v.Add("language", "The language field must be a language tag such as en or pt-BR.")
		} else {
			f.Language = tag.String()
		}
	}
	if len(f.Translations) == 0 {
		f.Translations = nil
		return
	}
	out := make(map[string]Translation, len(f.Translations))
	for lang, t := range f.Translations {
		tag, err := language.Parse(lang)
		switch {
		case err != nil || len(lang) > 35:
			v.Add("translations", "The translations field must be keyed by language tags such as fr or pt-BR; "+strconv.Quote(lang)+" is not one.")
		case tag.String() == languageOf(f):
			v.Add("translations", "The translations field must not hold the form's own language ("+languageOf(f)+").")
		default:
			out[tag.String()] = t
		}
	}
	f.Translations = out
	if raw, _ := json.Marshal(out); len(raw) > TranslationsMaxBytes {
		v.Add("translations", fmt.Sprintf("The translations field must not be greater than %d kilobytes.", TranslationsMaxBytes>>10))
	}
}

// Localized returns copies of form, its fields and steps with their texts
// in lang, where the form has a translation into it (else the originals).
func Localized(form *Form, fields []Field, steps []Step, lang string) (*Form, []Field, []Step) {
	t, ok := form.Translations[lang]
	if !ok {
		return form, fields, steps
	}
	f := *form
	f.Name = or(t.Name, f.Name)
	f.Description = or(t.Description, f.Description)
	f.SubmitButtonText = or(t.SubmitButtonText, f.SubmitButtonText)
	f.SuccessMessage = or(t.SuccessMessage, f.SuccessMessage)
	f.ClosedMessage = or(t.ClosedMessage, f.ClosedMessage)
	outFields := slices.Clone(fields)
	for i := range outFields {
		ft, ok := t.Fields[outFields[i].Name]
		if !ok {
			continue
		}
		fl := &outFields[i]
		fl.Label, fl.Placeholder, fl.HelpText = or(ft.Label, fl.Label), or(ft.Placeholder, fl.Placeholder), or(ft.HelpText, fl.HelpText)
		if len(ft.Options) > 0 || ft.Content != "" {
			config := maps.Clone(fl.FieldConfig)
			if ft.Content != "" {
				config["content"] = ft.Content
			}
			if list, isList := config["options"].([]any); isList && len(ft.Options) > 0 {
				options := make([]any, len(list))
				for j, it := range list {
					switch o := it.(type) {
					case string:
						if label := ft.Options[o]; label != "" {
							it = map[string]any{"value": o, "label": label}
						}
					case map[string]any:
						if label := ft.Options[scalarString(o["value"])]; label != "" {
							o = maps.Clone(o)
							o["label"] = label
							it = o
						}
					}
					options[j] = it
				}
				config["options"] = options
			}
			fl.FieldConfig = config
		}
	}
	outSteps := slices.Clone(steps)
	for i := range outSteps {
		if st, ok := t.Steps[strconv.FormatInt(outSteps[i].ID, 10)]; ok {
			outSteps[i].Title, outSteps[i].Description = or(st.Title, outSteps[i].Title), or(st.Description, outSteps[i].Description)
		}
	}
	return &f, outFields, outSteps
}

// or is s, else fallback.
func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// The catalogue of the messages people read, by their English text
// (a fmt format).
var (
	messagesMu sync.RWMutex
	messages   = catalog.NewBuilder(catalog.Fallback(language.English))
	// messageLangs are the languages the catalogue has.
	messageLangs = map[string]bool{"en": true}
)

// AddMessages adds (or replaces) the messages of lang: each English text
// of MessageKeys (a fmt format, its verbs kept in order) mapped to its
// translation. French ships with the package.
func AddMessages(lang string, table map[string]string) error {
	tag, err := language.Parse(lang)
	if err != nil {
		return fmt.Errorf("forms: add messages: %w", err)
	}
	messagesMu.Lock()
	defer messagesMu.Unlock()
	for key, text := range table {
		if !slices.Contains(messageKeys, key) {
			return fmt.Errorf("forms: add messages: %q is not a message of the package", key)
		}
		if err := messages.SetString(tag, key, text); err != nil {
			return fmt.Errorf("forms: add messages: %w", err)
		}
	}
	messageLangs[tag.String()] = true
	return nil
}

// MessageKeys are the English texts of the messages people read (fmt
// formats), for AddMessages.
func MessageKeys() []string { return slices.Clone(messageKeys) }

func init() {
	if err := AddMessages("fr", french); err != nil {
		panic(err)
	}
}

// speaker says a submission's messages in its language, naming fields by
// their labels in it. A nil speaker speaks English.
type speaker struct {
	printer *message.Printer
	labels  map[string]string
}

// speakerFor is the speaker of lang for form and its fields.
func speakerFor(form *Form, fields []Field, lang string) *speaker {
	sp := &speaker{}
	messagesMu.RLock()
	known := messageLangs[lang]
	messagesMu.RUnlock()
	if known && lang != "en" {
		sp.printer = message.NewPrinter(language.Make(lang), message.Catalog(messages))
	}
	if t, ok := form.Translations[lang]; ok {
		sp.labels = map[string]string{}
		for i := range fields {
			if l := t.Fields[fields[i].Name].Label; l != "" {
				sp.labels[fields[i].Name] = l
			}
		}
	}
	return sp
}

// english reports whether the speaker speaks English (the catalogue's
// source language).
func (sp *speaker) english() bool { return sp == nil || sp.printer == nil }

// say formats a message, in the speaker's language when the catalogue
// has it.
func (sp *speaker) say(format string, args ...any) string {
	if sp == nil || sp.printer == nil {
		return fmt.Sprintf(format, args...)
	}
	messagesMu.RLock()
	defer messagesMu.RUnlock()
	return sp.printer.Sprintf(format, args...)
}

// phrase is text in the speaker's language when it is one of the
// catalogue's fixed messages, else text as it is.
func (sp *speaker) phrase(text string) string {
	if sp == nil || sp.printer == nil || !slices.Contains(messageKeys, text) {
		return text
	}
	messagesMu.RLock()
	defer messagesMu.RUnlock()
	return sp.printer.Sprintf(message.Key(text, text))
}

// quotaLabel is the label of a quota's option in lang.
func quotaLabel(form *Form, q Quota, lang string) string {
	if l := form.Translations[lang].Fields[q.Field].Options[q.Value]; l != "" {
		return l
	}
	return q.Label
}

// label names f in messages.
func (sp *speaker) label(f *Field) string {
	if sp != nil {
		if l := sp.labels[f.Name]; l != "" {
			return recall(l, noAnswer)
		}
	}
	return label(f)
}

// localizedSteps is steps (each with its fields) with their texts in lang.
func localizedSteps(form *Form, steps []StepWithFields, lang string) []StepWithFields {
	if _, ok := form.Translations[lang]; !ok {
		return steps
	}
	out := make([]StepWithFields, len(steps))
	for i, st := range steps {
		_, fields, one := Localized(form, st.Fields, []Step{st.Step}, lang)
		out[i] = StepWithFields{Step: one[0], Fields: fields}
	}
	return out
}
