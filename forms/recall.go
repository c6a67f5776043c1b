package forms

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/groundwork-go/groundwork/internal/api"
)

// Recall: a field's label and help text, a layout item's text and the
// form's success message may name an answer given before them,
// {{name}}, or {{name|fallback}} to read fallback while it has none (no
// fallback: nothing). The answer is its display value (a choice's label,
// not its value), on one line and at most recallMaxRunes long; the page
// escapes it as any text. The page fills in the answers it knows (those
// of the steps before, a redrawn page's, a resumed or prefilled one's),
// the thank-you text the submission's. The API's definition keeps the
// placeholders for a host's own front end.
var recallPattern = regexp.MustCompile(`\{\{\s*([a-zA-Z][a-zA-Z0-9_]*)\s*(?:\|([^{}]*))?\}\}`)

// recallMaxRunes is the most of an answer a recall shows.
const recallMaxRunes = 80

// recall fills text's placeholders from answer, which gives a field's
// display value by name.
func recall(text string, answer func(name string) (string, bool)) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	return recallPattern.ReplaceAllStringFunc(text, func(m string) string {
		sub := recallPattern.FindStringSubmatch(m)
		if v, ok := answer(sub[1]); ok {
			if v = strings.Join(strings.Fields(v), " "); v != "" {
				if r := []rune(v); len(r) > recallMaxRunes {
					v = string(r[:recallMaxRunes-1]) + "…"
				}
				return v
			}
		}
		return strings.TrimSpace(sub[2])
	})
}

// noAnswer knows no answer: recall with it gives the fallbacks.
func noAnswer(string) (string, bool) { return "", false }

// recalled is the names text recalls.
func recalled(text string) []string {
	var out []string
	for _, m := range recallPattern.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// checkRecall says where f's texts recall a name that is no other field
// of fields taking an answer.
func checkRecall(f *Field, fields []Field) *api.Validator {
	v := &api.Validator{}
	content, _ := f.FieldConfig["content"].(string)
	for key, text := range map[string]string{"label": f.Label, "help_text": f.HelpText, "field_config.content": content} {
		for _, name := range recalled(text) {
			i := findField(fields, name)
			if i < 0 || name == f.Name || isLayout(fields[i].Type) {
				v.Add(key, "The "+api.Attr(key)+" field recalls {{"+name+"}}, which is no other question of this form.")
			}
		}
	}
	return v
}

// findField is the index in fields of the field called name, or -1.
func findField(fields []Field, name string) int {
	return slices.IndexFunc(fields, func(f Field) bool { return f.Name == name })
}

// recallFields is fields (a copy, when any changes) with their texts
// recalling answer.
func recallFields(fields []Field, answer func(name string) (string, bool)) []Field {
	var out []Field
	for i := range fields {
		f := fields[i]
		label, help := recall(f.Label, answer), recall(f.HelpText, answer)
		content, isText := f.FieldConfig["content"].(string)
		if isText {
			content = recall(content, answer)
		}
		if label == f.Label && help == f.HelpText && (!isText || content == f.FieldConfig["content"]) {
			continue
		}
		if out == nil {
			out = append([]Field(nil), fields...)
		}
		out[i].Label, out[i].HelpText = label, help
		if isText {
			config := maps.Clone(f.FieldConfig)
			config["content"] = content
			out[i].FieldConfig = config
		}
	}
	if out == nil {
		return fields
	}
	return out
}

// pageAnswers is the display value of each answer in values a field
// would take (a refused one is left out, so its recall falls back).
func (s *Service) pageAnswers(fields []Field, values map[string][]string, locked map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		i := findField(fields, name)
		if i < 0 || isLayout(fields[i].Type) || fields[i].Type == TypeFile {
			return "", false
		}
		given, ok := values[name]
		if l, fixed := locked[name]; fixed {
			given, ok = []string{l}, true
		}
		if !ok || len(given) == 0 {
			return "", false
		}
		v := &api.Validator{}
		val, fine := s.checkAnswer(v, nil, &fields[i], given, nil)
		if !fine || v.Err() != nil || val.DisplayValue == "" {
			return "", false
		}
		return val.DisplayValue, true
	}
}

// submittedAnswers is the display value of each of sub's answers.
func submittedAnswers(sub *Submission) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for _, v := range sub.Values {
			if v.FieldName == name {
				return v.DisplayValue, v.DisplayValue != ""
			}
		}
		return "", false
	}
}
