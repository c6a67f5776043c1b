package groundwork

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ValidationError collects messages per field, in the order they were
// added. Its JSON form is the 422 envelope of every JSON API:
//
//	{"message": "<first message> (and N more errors)", "errors": {"<field>": ["<message>", ...]}}
//
// The zero value is empty and ready to use.
type ValidationError struct {
	fields []string
	errs   map[string][]string
}

// Add records message against field.
func (v *ValidationError) Add(field, message string) {
	if v.errs == nil {
		v.errs = map[string][]string{}
	}
	if _, ok := v.errs[field]; !ok {
		v.fields = append(v.fields, field)
	}
	v.errs[field] = append(v.errs[field], message)
}

// Has reports whether field has a message.
func (v *ValidationError) Has(field string) bool {
	_, ok := v.errs[field]
	return ok
}

// Empty reports whether nothing was added.
func (v *ValidationError) Empty() bool { return v == nil || len(v.fields) == 0 }

// Err is v when something was added, else nil, so a validator can end
// with return v.Err().
func (v *ValidationError) Err() error {
	if v.Empty() {
		return nil
	}
	return v
}

// Fields returns the messages by field; the map is a copy.
func (v *ValidationError) Fields() map[string][]string {
	out := make(map[string][]string, len(v.errs))
	for k, msgs := range v.errs {
		out[k] = append([]string(nil), msgs...)
	}
	return out
}

// FieldNames lists the fields with messages, in the order first added.
func (v *ValidationError) FieldNames() []string { return append([]string(nil), v.fields...) }

// Message is the first message, followed by " (and N more errors)" when
// there are more (", 1 more error" in the singular).
func (v *ValidationError) Message() string {
	if v.Empty() {
		return "The given data was invalid."
	}
	total := 0
	for _, msgs := range v.errs {
		total += len(msgs)
	}
	msg := v.errs[v.fields[0]][0]
	switch more := total - 1; more {
	case 0:
		return msg
	case 1:
		return msg + " (and 1 more error)"
	default:
		return fmt.Sprintf("%s (and %d more errors)", msg, more)
	}
}

// Error implements error with [ValidationError.Message].
func (v *ValidationError) Error() string { return v.Message() }

// MarshalJSON writes the envelope, fields in the order added.
func (v *ValidationError) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	msg, _ := json.Marshal(v.Message())
	b.WriteString(`{"message":`)
	b.Write(msg)
	b.WriteString(`,"errors":{`)
	for i, f := range v.fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f)
		vs, _ := json.Marshal(v.errs[f])
		b.Write(k)
		b.WriteByte(':')
		b.Write(vs)
	}
	b.WriteString(`}}`)
	return b.Bytes(), nil
}
