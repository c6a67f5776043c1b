package bookings

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/web"
)

// intakeInputs are the input each intake question type is asked with;
// the choices are drawn apart (see intakeFields).
var intakeInputs = map[string]string{"text": "text", "textarea": web.TypeTextarea, "email": "email", "url": "url", "number": "number",
	"integer": "number", "date": "date", "datetime": "datetime-local", "time": "time"}

// intakeName is the form name of question f: the API's field name, so an
// error on it lands beside it.
func intakeName(f IntakeField) string { return "intake_data." + f.Name }

// intakeFields are a service's intake questions as the booking page asks
// them, each in its kind of input, what was sent kept after a mistake.
func intakeFields(r *http.Request, schema *IntakeSchema) []web.Field {
	if schema == nil {
		return nil
	}
	out := make([]web.Field, 0, len(schema.Fields))
	for _, f := range schema.Fields {
		name := intakeName(f)
		field := web.Field{Name: name, ID: web.FieldID(name), Label: f.Label, Required: f.Required, Value: r.PostFormValue(name)}
		if !f.Required {
			field.Label += " (optional)"
		}
		posted := r.PostForm[name]
		choices := func() []web.Option {
			opts := make([]web.Option, len(f.Options))
			for i, o := range f.Options {
				opts[i] = web.Option{Value: o, Label: o, Selected: slices.Contains(posted, o)}
			}
			return opts
		}
		switch f.Type {
		case "checkbox", "boolean":
			field.Type, field.Value, field.Checked = web.TypeCheckbox, "1", field.Value != ""
		case "select":
			field.Type, field.Options, field.Placeholder = web.TypeSelect, choices(), "Choose one"
		case "radio":
			field.Type, field.Options = web.TypeRadio, choices()
		case "multiselect", "checkboxes":
			field.Type, field.Options = web.TypeCheckboxes, choices()
		default:
			field.Type = intakeInputs[f.Type]
			if field.Type == "" {
				field.Type = "text"
			}
			if f.Type == "integer" {
				field.Help = "A whole number."
			}
		}
		out = append(out, field)
	}
	return out
}

// intakeWords says the API's messages about question f's answer in the
// words the page speaks ("Answer “What brings you here”"), naming the
// question as it is asked; a message it does not know stays.
func intakeWords(f IntakeField, msgs []string) []string {
	q := "“" + f.Label + "”"
	words := map[string]string{
		api.MsgRequired(f.Label): "Answer " + q,
		api.MsgNumber(f.Label):   q + " must be a number, like 42",
		api.MsgInteger(f.Label):  q + " must be a whole number, like 42",
		api.MsgSelected(f.Label): "Choose one of the answers to " + q,
		api.MsgEmail(f.Label):    "Enter an email address in the correct format, like name@example.com, for " + q,
	}
	switch f.Type {
	case "checkbox", "boolean":
		words[api.MsgRequired(f.Label)] = "Tick the box to say " + q
	case "select", "radio", "multiselect", "checkboxes":
		words[api.MsgRequired(f.Label)] = "Choose an answer to " + q
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = cmp.Or(words[m], m)
	}
	return out
}

// intakeAnswers are the answers a booking page posted to a service's
// intake questions, as the API takes them: a box ticked true (unticked,
// false unless the question must be answered), numbers as numbers, a
// choice of several as a list; an empty answer is left out.
func intakeAnswers(r *http.Request, schema *IntakeSchema) map[string]any {
	if schema == nil {
		return nil
	}
	out := map[string]any{}
	for _, f := range schema.Fields {
		name := intakeName(f)
		value := strings.TrimSpace(r.PostFormValue(name))
		switch f.Type {
		case "checkbox", "boolean":
			if value != "" || !f.Required {
				out[f.Name] = value != ""
			}
		case "multiselect", "checkboxes":
			if list := r.PostForm[name]; len(list) > 0 {
				answers := make([]any, len(list))
				for i, v := range list {
					answers[i] = v
				}
				out[f.Name] = answers
			}
		case "number", "integer":
			if n, err := strconv.ParseFloat(value, 64); err == nil {
				out[f.Name] = n
			} else if value != "" {
				out[f.Name] = value // refused by the check, in words
			}
		default:
			if value != "" {
				out[f.Name] = value
			}
		}
	}
	return out
}

// intakeRow is one answer as the owner reads it.
type intakeRow struct{ Label, Answer string }

// intakeRows are a booking's answers in the order of the service's
// questions, each in words (Yes or No for a box, a list joined); answers
// to questions since removed follow under their names.
func intakeRows(schema *IntakeSchema, data map[string]any) []intakeRow {
	var out []intakeRow
	seen := map[string]bool{}
	if schema != nil {
		for _, f := range schema.Fields {
			seen[f.Name] = true
			if v, ok := data[f.Name]; ok {
				out = append(out, intakeRow{Label: f.Label, Answer: answerText(v)})
			}
		}
	}
	var gone []string
	for name := range data {
		if !seen[name] {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	for _, name := range gone {
		out = append(out, intakeRow{Label: name, Answer: answerText(data[name])})
	}
	return out
}

// answerText is an intake answer in words.
func answerText(v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "Yes"
		}
		return "No"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = answerText(e)
		}
		return strings.Join(parts, ", ")
	case nil:
		return "—"
	}
	return fmt.Sprint(v)
}

// pagePrefill is the signed Prefill a booking page request carries (in
// its address, or posted back with the form), its token, and the IDs of
// the providers among offers (the service's) it narrows to; ok is false
// for none (or one not ours, expired, or naming none of offers: the page
// then works as without).
func (s *Service) pagePrefill(r *http.Request, offers []Offer) (p Prefill, token string, ids []int64, ok bool) {
	token = r.PostFormValue(prefillQuery)
	if token == "" {
		token = r.URL.Query().Get(prefillQuery)
	}
	if token == "" {
		return Prefill{}, "", nil, false
	}
	if p, ok = s.readPrefill(token); !ok {
		return Prefill{}, "", nil, false
	}
	ids, any := prefillProviders(p, offers)
	if !any {
		return Prefill{}, "", nil, false
	}
	return p, token, ids, true
}

// fillIn puts p's details and answers in a GET request's form values, so
// the booking page draws them as what was typed (a POST keeps its own).
func fillIn(r *http.Request, p Prefill, schema *IntakeSchema) {
	if r.Method != http.MethodGet {
		return
	}
	v := url.Values{}
	set := func(name, value string) {
		if value != "" {
			v.Set(name, value)
		}
	}
	set("customer_name", p.Name)
	set("customer_email", p.Email)
	if schema != nil {
		for _, f := range schema.Fields {
			switch answer := p.Intake[f.Name].(type) {
			case nil:
			case []any:
				for _, a := range answer {
					v.Add(intakeName(f), fmt.Sprint(a))
				}
			case bool:
				if answer {
					v.Set(intakeName(f), "1")
				}
			default:
				set(intakeName(f), fmt.Sprint(answer))
			}
		}
	}
	r.PostForm = v
}
