package reporting

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// How figures, and the period they are set against, are written: the
// dashboard and the weekly mail alike.

// previous is the period of the same length just before q's.
func previous(q AnalyticsQuery) AnalyticsQuery {
	if start, end, ok := q.Dates(); ok {
		n := end.Sub(start) + 24*time.Hour
		q.Start, q.End = start.Add(-n).Format(time.DateOnly), start.Add(-24*time.Hour).Format(time.DateOnly)
		return q
	}
	q.Before = q.Days
	return q
}

// Change is a total against the period before, in words, with an arrow
// (▲ up, ▼ down) and whether the move is for the better (Class "good"
// or "bad", "" for none), shown in colour beside the words.
type Change struct {
	Text, Arrow, Class string
}

// change says how now compares with before: "+12%", "up from none", or
// "no change"; higherIsBetter tells good from bad (a bounce rate's fall
// is good).
func change(now, before float64, higherIsBetter bool) Change {
	switch {
	case now == before:
		return Change{Text: "no change"}
	case before == 0:
		return Change{Text: "up from none", Arrow: "▲", Class: goodness(true, higherIsBetter)}
	}
	d := (now - before) / before * 100
	sign, arrow := "+", "▲"
	if d < 0 {
		sign, arrow = "−", "▼"
	}
	if math.Round(d) == 0 {
		return Change{Text: "about the same"}
	}
	return Change{Text: sign + strconv.FormatFloat(math.Abs(math.Round(d)), 'f', 0, 64) + "%", Arrow: arrow, Class: goodness(d > 0, higherIsBetter)}
}

func goodness(up, higherIsBetter bool) string {
	if up == higherIsBetter {
		return "good"
	}
	return "bad"
}

// num writes a count with thousands separators, or a decimal to one
// place.
func num(v float64) string {
	if v != math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatInt(int64(v), 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pct writes a fraction as a percentage.
func pct(v float64) string { return strconv.FormatFloat(v*100, 'f', 1, 64) + "%" }

// secs writes seconds as "1 min 5 s".
func secs(v float64) string {
	s := int(math.Round(v))
	if s < 60 {
		return strconv.Itoa(s) + " s"
	}
	return strconv.Itoa(s/60) + " min " + strconv.Itoa(s%60) + " s"
}

// countryLabel is a country code's English name and its mark (two
// regional indicator letters), the code itself when it names none.
func countryLabel(code string) (string, string) {
	if len(code) != 2 || !utf8.ValidString(code) {
		return code, ""
	}
	r, err := language.ParseRegion(code)
	if err != nil || !r.IsCountry() {
		return code, ""
	}
	// The mark is the code itself, drawn as a small badge: a flag's
	// emoji needs a font many systems lack (Windows draws two letters).
	return display.English.Regions().Name(r), strings.ToUpper(code)
}

// eventWords is an event's name as people read it: "form_submitted" is
// "Form submitted", "signUp" is "Sign up"; a name with spaces already is
// as it is.
func eventWords(name string) string {
	if name == "" || strings.ContainsRune(name, ' ') {
		return name
	}
	var b strings.Builder
	prev := rune(0)
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.':
			r = ' '
		case unicode.IsUpper(r) && prev != 0 && unicode.IsLower(prev):
			b.WriteRune(' ')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
		prev = r
	}
	out := []rune(strings.Join(strings.Fields(b.String()), " "))
	if len(out) == 0 {
		return name
	}
	out[0] = unicode.ToUpper(out[0])
	return string(out)
}

// dayWords is a chart's label as people read a day: "2026-05-05" is
// "5 May" ("5 May 2026" with year); a label that is not a day is as it
// is.
func dayWords(label string, year bool) string {
	d, err := time.Parse(time.DateOnly, label)
	if err != nil {
		return label
	}
	if year {
		return d.Format("2 January 2006")
	}
	return d.Format("2 January")
}
