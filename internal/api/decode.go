package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
)

// MaxBodyDefault is the body limit of JSON endpoints (1 MiB).
const MaxBodyDefault = 1 << 20

// DecodeJSON reads the request body, at most limit bytes (MaxBodyDefault
// when limit <= 0), as one JSON object into dst. The failures are:
//
//   - 415 when a body is sent with a content type other than JSON;
//   - 413 when the body is over the limit (by Content-Length or by reading);
//   - 400 when the body is not JSON, or not an object, or has a NUL
//     (\u0000) in a string;
//   - 422 (*ValidationError) when a value has the wrong type, naming its
//     path: "The colors.1 field must be a string."
//
// An empty body decodes as {}, so that missing fields are reported as
// required. Unknown fields are ignored.
func DecodeJSON(w http.ResponseWriter, r *http.Request, dst any, limit int64) error {
	body, err := ReadJSONBody(w, r, limit)
	if err != nil {
		return err
	}
	return DecodeJSONBytes(body, dst)
}

// ReadJSONBody reads a JSON request body with the checks of DecodeJSON
// (content type, size) and returns it trimmed; an empty body reads as
// "{}".
func ReadJSONBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = MaxBodyDefault
	}
	body, err := ReadBody(w, r, limit)
	if err != nil {
		return nil, err
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return []byte("{}"), nil
	}
	if !isJSONContentType(r.Header.Get("Content-Type")) {
		return nil, &Error{Status: http.StatusUnsupportedMediaType, Message: "The request body must be JSON, sent with Content-Type: application/json."}
	}
	return body, nil
}

// ReadBody reads r's body, at most limit bytes, whatever its type: a
// larger one is a 413, one that comes too slowly (past the connection's
// read deadline, see [WithBodyDeadline]) a 408 that closes the
// connection, any other failure a 400.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(limit)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, &Error{Status: http.StatusRequestTimeout, Message: "The request body came too slowly.",
				Header: http.Header{"Connection": {"close"}}, Err: err}
		}
		return nil, &Error{Status: http.StatusBadRequest, Message: "The request body could not be read.", Err: err}
	}
	return body, nil
}

// hasNULEscape reports whether a JSON body has a \u0000 escape: a NUL no
// database stores in text (Postgres refuses it in TEXT and JSONB). An
// escaped backslash followed by "u0000" is text, not a NUL.
func hasNULEscape(body []byte) bool {
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte(`\u0000`))
		if j < 0 {
			return false
		}
		at := i + j
		backslashes := 1
		for k := at - 1; k >= 0 && body[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 1 {
			return true
		}
		i = at + 1
	}
}

// DecodeJSONBytes is [DecodeJSON] on a body already read.
func DecodeJSONBytes(body []byte, dst any) error {
	if len(body) == 0 || body[0] != '{' {
		if !json.Valid(body) {
			return syntaxError(body)
		}
		return &Error{Status: http.StatusBadRequest, Message: "The request body must be a JSON object."}
	}
	// Unmarshal checks the whole body before decoding, so a syntax error
	// is reported as such and a type error only comes from valid JSON.
	err := json.Unmarshal(body, dst)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case err == nil && hasNULEscape(body):
		return &Error{Status: http.StatusBadRequest, Message: `The request body must not contain NUL characters (\u0000).`}
	case err == nil:
		return nil
	case errors.As(err, &se):
		return syntaxError(body)
	case errors.As(err, &te):
		field := pathAt(body, te.Offset)
		if field == "" {
			return &Error{Status: http.StatusBadRequest, Message: "The request body must be a JSON object."}
		}
		return Invalid(field, typeMessage(field, te.Type))
	}
	return &Error{Status: http.StatusBadRequest, Message: "The request body does not fit this endpoint.", Err: err}
}

func tooLarge(limit int64) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Message: "The request body must not be larger than " + FormatBytes(limit) + "."}
}

// syntaxError describes where body stops being JSON.
func syntaxError(body []byte) *Error {
	var v any
	err := json.Unmarshal(body, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("The request body is not valid JSON: %s at byte %d.", se.Error(), se.Offset), Err: err}
	}
	return &Error{Status: http.StatusBadRequest, Message: "The request body is not valid JSON.", Err: err}
}

// FormatBytes writes n as "1 MiB", "512 KiB" or "100 bytes".
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

func isJSONContentType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// typeMessage says what a field of type t must be.
func typeMessage(field string, t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[json.Number]() {
		return MsgNumber(field)
	}
	switch t.Kind() {
	case reflect.String:
		return MsgString(field)
	case reflect.Bool:
		return MsgBoolean(field)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return MsgInteger(field)
	case reflect.Float32, reflect.Float64:
		return MsgNumber(field)
	case reflect.Slice, reflect.Array:
		return MsgArray(field)
	case reflect.Map, reflect.Struct:
		return MsgObject(field)
	}
	return MsgFormat(field)
}

// pathAt returns the dotted path ("colors.1", "structure.headings") of the
// value that ends at byte offset off of body, which is valid JSON. The
// decoder's own field path leaves out array indexes.
func pathAt(body []byte, off int64) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // a number too big for float64 is still a token
	type frame struct {
		array bool
		index int
		key   string
		// wantKey is true in an object when the next token is a key.
		wantKey bool
	}
	var stack []frame
	path := func() string {
		parts := make([]string, 0, len(stack))
		for _, f := range stack {
			if f.array {
				parts = append(parts, strconv.Itoa(f.index))
			} else {
				parts = append(parts, f.key)
			}
		}
		return strings.Join(parts, ".")
	}
	// valueDone advances the enclosing container past one value.
	valueDone := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				stack[n-1].wantKey = true
			}
		}
	}
	for {
		before := path()
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				if dec.InputOffset() >= off {
					return before
				}
				stack = append(stack, frame{wantKey: true})
			case '[':
				if dec.InputOffset() >= off {
					return before
				}
				stack = append(stack, frame{array: true})
			case '}', ']':
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if n := len(stack); n > 0 && !stack[n-1].array && stack[n-1].wantKey {
				stack[n-1].key = t
				stack[n-1].wantKey = false
				continue
			}
			if dec.InputOffset() >= off {
				return before
			}
			valueDone()
		default:
			if dec.InputOffset() >= off {
				return before
			}
			valueDone()
		}
	}
}
