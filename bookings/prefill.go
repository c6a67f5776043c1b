package bookings

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"
)

// FromForm is the submission of a routing form a booking was made from,
// as the form's inbox names it.
type FromForm struct {
	// Form is the form's slug; SubmissionID and Number the submission's.
	Form         string `json:"form"`
	FormID       int64  `json:"form_id"`
	SubmissionID int64  `json:"submission_id"`
	Number       string `json:"number"`
	// URL is the submission in the owner's inbox, "" when unknown.
	URL string `json:"url,omitempty"`
}

// Prefill is what a booking page is opened with from a routing form's
// submission: the customer's name and email, their answers as the
// service's intake, the providers the form narrowed the service to (by
// slug; all of its own when empty) and the submission. It travels in the
// page's address, signed (Service.PrefillURL), so no one can forge or
// change it, for seven days.
type Prefill struct {
	Name      string         `json:"name,omitempty"`
	Email     string         `json:"email,omitempty"`
	Intake    map[string]any `json:"intake,omitempty"`
	Providers []string       `json:"providers,omitempty"`
	From      *FromForm      `json:"from,omitempty"`
	// Expires is set by PrefillURL.
	Expires time.Time `json:"expires"`
}

// prefillLifetime is how long a prefilled booking address works.
const prefillLifetime = 7 * 24 * time.Hour

// prefillQuery is the query parameter that carries a signed Prefill.
const prefillQuery = "prefill"

// errNoPagesURL: PrefillURL without Options.PagesURL.
var errNoPagesURL = errors.New("bookings: prefill: the service has no PagesURL")

// prefillKey is the key prefills are signed with.
func (s *Service) prefillKey() []byte {
	m := hmac.New(sha256.New, s.o.SecretKey)
	m.Write([]byte("bookings prefill"))
	return m.Sum(nil)
}

// PrefillURL is the address of service slug's booking page (under
// Options.PagesURL) opened with p, signed with Options.SecretKey: the
// page fills in the customer's details and answers, offers only p's
// providers' times, and records p.From on the booking. It works for
// seven days.
func (s *Service) PrefillURL(slug string, p Prefill) (string, error) {
	if s.o.PagesURL == "" {
		return "", errNoPagesURL
	}
	if len(s.o.SecretKey) == 0 {
		return "", errors.New("bookings: prefill: the service has no SecretKey")
	}
	p.Expires = s.o.Now().Add(prefillLifetime).UTC().Truncate(time.Second)
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding.EncodeToString(body)
	m := hmac.New(sha256.New, s.prefillKey())
	m.Write([]byte(enc))
	token := enc + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	return strings.TrimSuffix(s.o.PagesURL, "/") + "/" + url.PathEscape(slug) + "?" + url.Values{prefillQuery: {token}}.Encode(), nil
}

// readPrefill is the Prefill token carries, if it is ours, whole and not
// expired.
func (s *Service) readPrefill(token string) (Prefill, bool) {
	enc, sig, ok := strings.Cut(token, ".")
	if !ok || len(s.o.SecretKey) == 0 {
		return Prefill{}, false
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	m := hmac.New(sha256.New, s.prefillKey())
	m.Write([]byte(enc))
	if err != nil || !hmac.Equal(got, m.Sum(nil)) {
		return Prefill{}, false
	}
	body, err := base64.RawURLEncoding.DecodeString(enc)
	var p Prefill
	if err != nil || json.Unmarshal(body, &p) != nil || !s.o.Now().Before(p.Expires) {
		return Prefill{}, false
	}
	return p, true
}

// prefillProviders is the IDs of p's providers among offers (nil when p
// names none: every one), and whether any of them offers the service.
func prefillProviders(p Prefill, offers []Offer) ([]int64, bool) {
	if len(p.Providers) == 0 {
		return nil, true
	}
	var ids []int64
	for _, o := range offers {
		if slices.Contains(p.Providers, o.Slug) {
			ids = append(ids, o.ID)
		}
	}
	return ids, len(ids) > 0
}

// onlyProviders is offers narrowed to ids (all of them when ids is empty).
func onlyProviders(offers []Offer, ids []int64) []Offer {
	if len(ids) == 0 {
		return offers
	}
	return slices.DeleteFunc(slices.Clone(offers), func(o Offer) bool { return !slices.Contains(ids, o.ID) })
}
