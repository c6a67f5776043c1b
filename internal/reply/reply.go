// Package reply writes JSON answers the one way every handler does:
// times to the microsecond in UTC ("2006-01-02T15:04:05.000000Z"), HTML
// characters escaped, sniffing off; {"data": ...} and {"message": ...}
// envelopes.
package reply

import (
	stdjson "encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// TimeFormat is how every time in an API answer reads: RFC 3339 with
// microseconds, always six digits (times are stored to the microsecond),
// so that clients comparing or parsing them see one precision.
const TimeFormat = "2006-01-02T15:04:05.000000Z07:00"

// jsonOptions encode as encoding/json does (the v1 behaviour of the JSON
// v2 prototype, which is what encoding/json itself is built on from Go
// 1.25): "<", ">" and "&" escaped (\u003c...), so an answer that a
// browser is tricked into reading as HTML holds no markup; times in
// TimeFormat.
var jsonOptions = json.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	jsontext.EscapeForHTML(true),
	json.WithMarshalers(json.JoinMarshalers(
		json.MarshalToFunc(func(enc *jsontext.Encoder, t time.Time) error {
			return enc.WriteToken(jsontext.String(t.Format(TimeFormat)))
		}),
		// encoding/json's Number is a number, as encoding/json writes it
		// (the prototype knows only its own).
		json.MarshalToFunc(func(enc *jsontext.Encoder, n stdjson.Number) error {
			if n == "" {
				n = "0"
			}
			if v := jsontext.Value(n); !v.IsValid() || v.Kind() != '0' {
				return fmt.Errorf("json: invalid number literal %q", string(n))
			}
			return enc.WriteValue(jsontext.Value(n))
		}),
	)),
)

// EncodeJSON writes v as one line of JSON, as every API answer is
// written: encoding/json's rules, HTML characters escaped, times in
// TimeFormat.
func EncodeJSON(w io.Writer, v any) error {
	if err := json.MarshalWrite(w, v, jsonOptions); err != nil {
		return err
	}
	_, err := w.Write(newline)
	return err
}

var newline = []byte("\n")

var (
	jsonContentType = []string{"application/json"}
	nosniff         = []string{"nosniff"}
)

// WriteJSON answers v as JSON with status (see EncodeJSON), with
// sniffing off and HTML characters escaped.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	// Canonical keys set directly: this runs on every response.
	h["Content-Type"] = jsonContentType
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(status)
	_ = EncodeJSON(w, v) // the status is out; a failed write has nobody to tell
}

// Data wraps a single resource as {"data": v}.
func Data(v any) any {
	return struct {
		Data any `json:"data"`
	}{v}
}

// WriteData answers {"data": v} with status.
func WriteData(w http.ResponseWriter, status int, v any) { WriteJSON(w, status, Data(v)) }

// WriteMessage answers {"message": msg} with status.
func WriteMessage(w http.ResponseWriter, status int, msg string) {
	WriteJSON(w, status, struct {
		Message string `json:"message"`
	}{msg})
}

// The documented bodies.
const (
	MsgUnauthenticated = "Unauthenticated."
	MsgForbidden       = "This action is unauthorized."
	MsgTooManyRequests = "Too Many Attempts."
	MsgNotFound        = "Not Found."
	MsgServerError     = "Server Error."
	MsgUnavailable     = "Service Unavailable."
)
