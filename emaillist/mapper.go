package emaillist

import (
	"errors"
	"strings"
)

// Destinations a field map always or usually holds.
const (
	DestEmail     = "email_address"
	DestFirstName = "first_name"
)

// ErrFieldMap is wrapped by the errors of MapFields.
var ErrFieldMap = errors.New("emaillist: field map")

// MapFields builds the payload a feed sends for values: email_address
// and first_name at the top, every other destination under fields.
// Slugs missing from values are skipped; a field map without
// email_address, or an email that is blank, is an error.
func MapFields(fieldMap map[string]string, values map[string]any) (Payload, error) {
	slug, ok := fieldMap[DestEmail]
	if !ok || slug == "" {
		return Payload{}, errors.Join(ErrFieldMap, errors.New("the field map has no email_address"))
	}
	var p Payload
	for dest, slug := range fieldMap {
		v, present := values[slug]
		if !present || dest == "" {
			continue
		}
		switch dest {
		case DestEmail:
			p.EmailAddress = strings.TrimSpace(normalize(v))
		case DestFirstName:
			if v != nil {
				s := normalize(v)
				p.FirstName = &s
			}
		default:
			if p.Fields == nil {
				p.Fields = map[string]any{}
			}
			p.Fields[dest] = v
		}
	}
	if p.EmailAddress == "" {
		return Payload{}, errors.Join(ErrFieldMap, errors.New("the email address is empty"))
	}
	return p, nil
}
