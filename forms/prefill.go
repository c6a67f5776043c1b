package forms

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"crypto/hmac"

	"github.com/groundwork-go/groundwork/internal/api"
)

// Prefill: a field that opts in (field_config "prefill": true; a hidden
// field unless it says false) takes its first value from the page's
// address (?plan=pro), checked as any answer (a value it would refuse is
// left out); the person may change it. A
// signed prefill (?prefill=<token>, made by the host with PrefillToken)
// sets values the person must not change: the page shows them without an
// input, and a submission carrying the token has them whatever it says.
// A field marked signed (field_config "signed": true) has a value only
// from such a token.
const (
	// PrefillQuery is the page address's and the render route's
	// parameter with a signed prefill token.
	PrefillQuery = "prefill"
	// PrefillField carries the signed prefill token in a submission.
	PrefillField = "_prefill"

	prefillContext = "groundwork forms: signed prefill v1\x00"
	prefillMaxLen  = 8 << 10
)

// errBadPrefill is a signed prefill token that is forged, expired, for
// another form or unreadable.
var errBadPrefill = errors.New("forms: the prefill token is not good")

// msgBadPrefill is what a person reads of it.
const msgBadPrefill = "Some answers of this form were filled in for you by a link that is no longer good. Open the form from its link again."

// prefillable reports whether the field takes a value from the page's
// address: field_config "prefill": true, or a hidden field that does not
// say false; never a signed one.
func (f *Field) prefillable() bool {
	on, set := f.FieldConfig["prefill"].(bool)
	if !set {
		on = f.Type == TypeHidden
	}
	return on && !f.signed()
}

// signed reports whether the field takes its value only from a signed
// prefill token (field_config "signed": true): whatever the address or a
// submission says of it is dropped.
func (f *Field) signed() bool {
	on, _ := f.FieldConfig["signed"].(bool)
	return on
}

type prefillClaims struct {
	Form    int64             `json:"f"`
	Expires int64             `json:"e"`
	Values  map[string]string `json:"v"`
}

// PrefillToken signs values (by field name) for the form with this id,
// good for ttl (a day when zero): opened with ?prefill=<token>, the page
// shows them fixed, and a submission with the token (PrefillField) has
// them. Any field may be named, whether or not it opts in to prefill
// from the address; each value is still checked as an answer. Give every
// instance the same Options.FormTokenKey.
func (s *Service) PrefillToken(formID int64, values map[string]string, ttl time.Duration) string {
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	raw, _ := json.Marshal(prefillClaims{Form: formID, Expires: s.now().Add(ttl).Unix(), Values: values})
	payload := base64.RawURLEncoding.EncodeToString(raw)
	return payload + "." + base64.RawURLEncoding.EncodeToString(s.mac(prefillContext, payload)[:tokenMACBytes])
}

// readPrefill is the values a signed prefill token sets on form's fields
// (of those that take answers), or errBadPrefill.
func (s *Service) readPrefill(form *Form, fields []Field, token string) (map[string]string, error) {
	payload, sig, ok := strings.Cut(token, ".")
	if !ok || len(token) > prefillMaxLen {
		return nil, errBadPrefill
	}
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(mac, s.mac(prefillContext, payload)[:tokenMACBytes]) {
		return nil, errBadPrefill
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	var c prefillClaims
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Form != form.ID || !s.now().Before(time.Unix(c.Expires, 0)) {
		return nil, errBadPrefill
	}
	out := map[string]string{}
	for i := range fields {
		f := &fields[i]
		if v, named := c.Values[f.Name]; named && !isLayout(f.Type) && f.Type != TypeFile {
			out[f.Name] = v
		}
	}
	return out, nil
}

// prefillFrom is what the page's address fills in: for each field that
// opts in, the values query gives it, when the field would take them.
func (s *Service) prefillFrom(fields []Field, query url.Values) map[string][]string {
	out := map[string][]string{}
	for i := range fields {
		f := &fields[i]
		given, ok := query[f.Name]
		if !ok || !f.prefillable() || isLayout(f.Type) || f.Type == TypeFile {
			continue
		}
		if len(given) > 1 && !isMulti(f.Type) {
			given = given[:1]
		}
		v := &api.Validator{}
		if _, fine := s.checkAnswer(v, nil, f, given, nil); fine && v.Err() == nil {
			out[f.Name] = given
		}
	}
	return out
}

// lockPrefill puts the values of req's signed prefill token over its
// answers a, or says at PrefillField that the token is not good.
func (s *Service) lockPrefill(form *Form, fields []Field, req *SubmitRequest, a answers, v *api.Validator, sp *speaker) {
	for i := range fields {
		if fields[i].signed() {
			delete(a, fields[i].Name) // only the token says
		}
	}
	if req.Prefill == "" {
		return
	}
	locked, err := s.readPrefill(form, fields, req.Prefill)
	if err != nil {
		v.Add(PrefillField, sp.say(msgBadPrefill))
		return
	}
	for name, value := range locked {
		a[name] = []string{value}
	}
}
