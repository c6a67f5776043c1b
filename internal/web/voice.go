package web

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Voice says a validation message the way the pages speak to a person:
// plainly, as the GOV.UK design system writes error messages ("Enter your
// name", "Enter an email address in the correct format, like
// name@example.com"), naming the field by its label, never "The Your name
// field is required." It reads the API's messages (which stay as they are
// in JSON answers) and leaves any other message as it is. English only:
// pages in another language keep their own catalogue's messages.
func Voice(f Field, msg string) string {
	for _, rule := range voiceRules {
		if m := rule.pattern.FindStringSubmatch(msg); m != nil {
			return rule.say(f, m)
		}
	}
	return msg
}

// VoiceFields rewrites the errors of fields with Voice.
func VoiceFields(fields []Field) {
	for i := range fields {
		for j, m := range fields[i].Errors {
			fields[i].Errors[j] = Voice(fields[i], m)
		}
	}
}

type voiceRule struct {
	pattern *regexp.Regexp
	say     func(f Field, m []string) string
}

var voiceRules = []voiceRule{
	{regexp.MustCompile(`^The .+ field is required\.$`), func(f Field, _ []string) string {
		switch {
		case f.Type == TypeGroup && len(f.Parts) > 0 && f.Parts[0].Type == TypeSelect:
			return "Give each item of “" + strings.TrimSuffix(f.Label, "?") + "” a place"
		case f.Type == TypeGroup:
			return "Choose an answer in each row of “" + strings.TrimSuffix(f.Label, "?") + "”"
		case f.Scale:
			return "Choose a score for “" + strings.TrimSuffix(f.Label, "?") + "”"
		case f.Type == TypeSelect, f.Type == "radio", f.Type == "checkboxes":
			return "Select " + thing(f)
		case f.Type == "checkbox":
			return "Tick the box to say “" + f.Label + "”"
		case f.Type == "file":
			return "Choose a file for " + lowerFirst(f.Label)
		}
		return "Enter " + thing(f)
	}},
	{regexp.MustCompile(`^The .+ field must end on or after its start\.$`), func(f Field, _ []string) string {
		return f.Label + " must end on or after its start"
	}},
	{regexp.MustCompile(`^The .+ field must be a start date and an end date\.$`), func(f Field, _ []string) string {
		return "Enter a start date and an end date for " + lowerFirst(f.Label)
	}},
	{regexp.MustCompile(`^The .+ field needs an answer for (.+)\.$`), func(_ Field, m []string) string {
		return "Choose an answer for “" + m[1] + "”"
	}},
	{regexp.MustCompile(`^The .+ field must (?:give each item a different place from 1 to|put all) (\d+)(?: of its items in order)?\.$`), func(f Field, m []string) string {
		return "Give each of the " + m[1] + " items of “" + strings.TrimSuffix(f.Label, "?") + "” a different place, from 1 to " + m[1]
	}},
	{regexp.MustCompile(`^The .+ field must be a date and a time\.$`), func(f Field, _ []string) string {
		return "Enter a date and a time for " + lowerFirst(f.Label)
	}},
	{regexp.MustCompile(`^The .+ field must be a whole number from (\d+) to (\d+)\.$`), func(f Field, m []string) string {
		return "Choose a score from " + m[1] + " to " + m[2] + " for “" + strings.TrimSuffix(f.Label, "?") + "”"
	}},
	{regexp.MustCompile(`^The .+ field must be a valid email address\.$`), func(Field, []string) string {
		return "Enter an email address in the correct format, like name@example.com"
	}},
	{regexp.MustCompile(`^The .+ field must be a valid URL\.$`), func(Field, []string) string {
		return "Enter a web address in the correct format, like https://example.com"
	}},
	{regexp.MustCompile(`^The .+ field must not be greater than (\d+) characters\.$`), func(f Field, m []string) string {
		return f.Label + " must be " + m[1] + " characters or fewer"
	}},
	{regexp.MustCompile(`^The .+ field must be at least (\d+) characters\.$`), func(f Field, m []string) string {
		return f.Label + " must be " + m[1] + " characters or more"
	}},
	{regexp.MustCompile(`^The .+ field confirmation does not match\.$`), func(Field, []string) string {
		return "The passwords do not match: type the same password in both boxes"
	}},
	{regexp.MustCompile(`^The .+ has already been taken(?: by another (.+))?\.$`), func(f Field, m []string) string {
		if m[1] != "" {
			return "That " + lowerFirst(strings.TrimPrefix(f.Label, "Your ")) + " is already used by another " + m[1]
		}
		return "That " + lowerFirst(strings.TrimPrefix(f.Label, "Your ")) + " is already in use"
	}},
	{regexp.MustCompile(`^The selected .+ is invalid\.$`), func(f Field, _ []string) string { return "Select " + thing(f) + " from the list" }},
	{regexp.MustCompile(`^The .+ field must be (?:a number|an integer)\.$`), func(f Field, _ []string) string { return f.Label + " must be a number" }},
	{regexp.MustCompile(`^The .+ field must be at least ([-\d.]+)\.$`), func(f Field, m []string) string {
		return f.Label + " must be " + m[1] + " or more"
	}},
	{regexp.MustCompile(`^The .+ field must not be greater than ([-\d.]+)\.$`), func(f Field, m []string) string {
		return f.Label + " must be " + m[1] + " or less"
	}},
	{regexp.MustCompile(`^The .+ field must be a valid date\.$`), func(f Field, _ []string) string { return f.Label + " must be a real date" }},
	{regexp.MustCompile(`^The .+ field must be a date after or equal to (.+)\.$`), func(f Field, m []string) string {
		return f.Label + " must be " + m[1] + " or later"
	}},
	{regexp.MustCompile(`^The .+ field must be a date before or equal to (.+)\.$`), func(f Field, m []string) string {
		return f.Label + " must be " + m[1] + " or earlier"
	}},
	{regexp.MustCompile(`^The .+ field must be a file of type: (.+)\.$`), func(f Field, m []string) string {
		return "The file for " + lowerFirst(f.Label) + " must be a " + m[1]
	}},
	{regexp.MustCompile(`^The .+ field must not be greater than (\d+) kilobytes\.$`), func(f Field, m []string) string {
		return "The file for " + lowerFirst(f.Label) + " must be smaller than " + m[1] + " KB"
	}},
	{regexp.MustCompile(`^The provided password is incorrect\.$`), func(Field, []string) string {
		return "Your password is not right: check it and try again"
	}},
	{regexp.MustCompile(`^These credentials do not match our records\.$`), func(Field, []string) string {
		return "The email address or password is not right: check them and try again"
	}},
}

// personal are the autocomplete tokens of a person's own details, which
// the messages call "your" name, address, password.
var personal = map[string]bool{"name": true, "given-name": true, "family-name": true, "email": true, "tel": true,
	"current-password": true, "new-password": true, "one-time-code": true, "street-address": true, "postal-code": true,
	"organization": true, "bday": true}

// thing names what a field asks for: "your name" for a person's own
// detail, "a token name" otherwise, from the label.
func thing(f Field) string {
	label := lowerFirst(f.Label)
	switch {
	case strings.HasPrefix(label, "your "), strings.HasPrefix(label, "the "):
		return label
	case personal[f.Autocomplete]:
		return "your " + label
	}
	word, _, _ := strings.Cut(label, " ")
	r, _ := utf8.DecodeRuneInString(label)
	acronym := len(word) > 1 && strings.ToUpper(word) == word
	if !acronym && strings.ContainsRune("aeiou", r) || acronym && strings.ContainsRune("AEFHILMNORSX", r) {
		return "an " + label // "an email address", "an API key"
	}
	return "a " + label
}

// lowerFirst lowers a label's first letter unless the first word is an
// acronym ("API token" stays).
func lowerFirst(s string) string {
	word, _, _ := strings.Cut(s, " ")
	if len(word) > 1 && strings.ToUpper(word) == word {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
