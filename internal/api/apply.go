package api

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// The Set* helpers copy one key of a decoded JSON object (see
// DecodeInput) into a typed destination when the key is present, adding
// Laravel's type message to v when the value has the wrong type. A
// missing key leaves the destination alone, so the same code serves a
// create and a partial update.

// SetString copies a string; null (or an empty string, after Normalize)
// sets "".
func (v *Validator) SetString(in map[string]any, key string, dst *string) {
	val, ok := in[key]
	if !ok {
		return
	}
	switch s := val.(type) {
	case nil:
		*dst = ""
	case string:
		*dst = s
	default:
		v.Add(key, MsgString(key))
	}
}

// SetOptionalString copies a string; null sets nil.
func (v *Validator) SetOptionalString(in map[string]any, key string, dst **string) {
	val, ok := in[key]
	if !ok {
		return
	}
	switch s := val.(type) {
	case nil:
		*dst = nil
	case string:
		*dst = &s
	default:
		v.Add(key, MsgString(key))
	}
}

// SetBool copies a boolean. Like Laravel's boolean rule it also takes 1,
// 0, "1", "0", "true" and "false"; null sets false.
func (v *Validator) SetBool(in map[string]any, key string, dst *bool) {
	val, ok := in[key]
	if !ok {
		return
	}
	if b, ok := Bool(val); ok {
		*dst = b
		return
	}
	v.Add(key, MsgBoolean(key))
}

// Bool reads a boolean as Laravel's boolean rule does.
func Bool(val any) (bool, bool) {
	switch b := val.(type) {
	case nil:
		return false, true
	case bool:
		return b, true
	case float64:
		if b == 0 || b == 1 {
			return b == 1, true
		}
	case string:
		switch b {
		case "1", "true":
			return true, true
		case "0", "false":
			return false, true
		}
	}
	return false, false
}

// SetOptionalInt copies a whole number; null sets nil. Numeric strings
// are accepted, as Laravel's integer rule does.
func (v *Validator) SetOptionalInt(in map[string]any, key string, dst **int64) {
	val, ok := in[key]
	if !ok {
		return
	}
	if val == nil {
		*dst = nil
		return
	}
	if n, ok := Int(val); ok {
		*dst = &n
		return
	}
	v.Add(key, MsgInteger(key))
}

// Int reads a whole number from a JSON number or a numeric string.
func Int(val any) (int64, bool) {
	switch n := val.(type) {
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	case string:
		if i, err := strconv.ParseInt(n, 10, 64); err == nil {
			return i, true
		}
	}
	return 0, false
}

// SetObject copies a JSON object into dst (a pointer to a struct, map or
// pointer), re-decoding it; null sets what dst points at to its zero
// value. A value of the
// wrong shape adds "The <key> field must be an object.", or the message
// of the first mistyped member ("The <key>.<member> field must be ...").
func (v *Validator) SetObject(in map[string]any, key string, dst any) {
	val, ok := in[key]
	if !ok {
		return
	}
	if val == nil {
		// json.Unmarshal of null leaves a struct as it was; null clears.
		reflect.ValueOf(dst).Elem().SetZero()
		return
	}
	if _, isObject := val.(map[string]any); !isObject {
		v.Add(key, MsgObject(key))
		return
	}
	raw, err := json.Marshal(val)
	if err != nil {
		v.Add(key, MsgObject(key))
		return
	}
	if err := DecodeJSONBytes(raw, dst); err != nil {
		var inner *ValidationError
		if ve, ok := err.(*ValidationError); ok {
			inner = ve
		}
		if inner == nil {
			v.Add(key, MsgObject(key))
			return
		}
		for _, f := range inner.FieldNames() {
			for _, msg := range inner.Fields()[f] {
				// Re-root the member's path and message under key.
				v.Add(key+"."+f, replaceAttr(msg, f, key+"."+f))
			}
		}
	}
}

// replaceAttr rewrites "The <from> field ..." as "The <to> field ...".
func replaceAttr(msg, from, to string) string {
	prefix := "The " + Attr(from) + " "
	if len(msg) >= len(prefix) && msg[:len(prefix)] == prefix {
		return "The " + Attr(to) + " " + msg[len(prefix):]
	}
	return msg
}
