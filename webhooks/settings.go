package webhooks

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork/internal/api"
)

// Per-endpoint settings: a description, custom headers sent with every
// delivery (a bounded set that never overrides ours), and a rate limit.
const (
	// MaxDescriptionLength caps a subscription's description.
	MaxDescriptionLength = 1000
	// MaxHeaders caps a subscription's custom headers.
	MaxHeaders = 10
	// MaxHeaderValueLength caps one custom header's value.
	MaxHeaderValueLength = 1000
	// MaxRateLimit caps a subscription's deliveries a second.
	MaxRateLimit = 10_000
)

// reservedHeaders are the headers a subscription may not set: ours (the
// signature, event, delivery and request id, the Standard Webhooks ones)
// and those HTTP itself owns.
var reservedHeaders = []string{HeaderSignature, HeaderEvent, HeaderDelivery, HeaderRequestID, HeaderStandardID,
	HeaderStandardTimestamp, HeaderStandardSignature, "Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding",
	"User-Agent", "Host", "Connection", "Te", "Trailer", "Upgrade", "Keep-Alive", "Proxy-Authorization", "Proxy-Connection",
	"Expect", "Cookie"}

// reservedPrefixes start header names a subscription may not use.
var reservedPrefixes = []string{"X-Platform-", "Webhook-", "Svix-"}

// checkHeaders validates a subscription's custom headers onto v and
// returns them with canonical names.
func checkHeaders(in map[string]string, v *api.Validator) map[string]string {
	if len(in) == 0 {
		return nil
	}
	if len(in) > MaxHeaders {
		v.Add("headers", fmt.Sprintf("The headers field must not have more than %d items.", MaxHeaders))
		return nil
	}
	out := make(map[string]string, len(in))
	for name, value := range in {
		field := "headers." + name
		canonical := http.CanonicalHeaderKey(strings.TrimSpace(name))
		switch {
		case !validHeaderName(canonical):
			v.Add(field, "A header's name is letters, digits and - (an HTTP token).")
		case slices.Contains(reservedHeaders, canonical) || slices.ContainsFunc(reservedPrefixes, func(p string) bool {
			return strings.HasPrefix(canonical, p)
		}):
			v.Add(field, "The header "+canonical+" is the delivery's own; choose another name.")
		case utf8.RuneCountInString(value) > MaxHeaderValueLength:
			v.Add(field, api.MsgMaxChars(field, MaxHeaderValueLength))
		case strings.ContainsFunc(value, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) || !utf8.ValidString(value):
			// Every control character but a tab: HTTP clients refuse
			// them, so every delivery would fail.
			v.Add(field, "A header's value is one line of text, without control characters.")
		case out[canonical] != "":
			v.Add(field, "The header "+canonical+" is given twice.")
		default:
			out[canonical] = value
		}
	}
	return out
}

// validHeaderName reports whether name is an HTTP token of letters, digits
// and hyphens, at most 100 long.
func validHeaderName(name string) bool {
	if name == "" || len(name) > 100 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
