package api

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// Shape says which keys a JSON object of a request body takes, so a key
// the endpoint would otherwise drop in silence (a typing mistake, or a
// setting put at the wrong level) is refused with a message naming it.
type Shape struct {
	// Name is how the object is named in messages: "a field".
	Name string
	// Keys are the keys the object takes.
	Keys []string
	// ReadOnly are keys the endpoint answers with but never sets (id,
	// created_at): a client may send back what it read, and they are
	// ignored.
	ReadOnly []string
	// Elsewhere maps keys that belong in another place to that place
	// ("options" → "field_config").
	Elsewhere map[string]string
	// Open lets any other key through (an object a front end may keep
	// its own settings in); Elsewhere still applies.
	Open bool
}

// CheckKeys adds a message for each key of in that s does not take, under
// the key's path (prefix "" for the top level, else "field_config"): one
// that belongs elsewhere says where, any other lists the keys s takes.
func (v *Validator) CheckKeys(prefix string, in map[string]any, s *Shape) {
	unknown := make([]string, 0, 2)
	for k := range in {
		if slices.Contains(s.Keys, k) || slices.Contains(s.ReadOnly, k) {
			continue
		}
		if _, ok := s.Elsewhere[k]; ok || !s.Open {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown) // the same answer for the same body
	where := "the top level of " + s.Name
	if prefix != "" {
		where = prefix
	}
	for _, k := range unknown {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		if place, ok := s.Elsewhere[k]; ok {
			v.Add(path, "The "+k+" key belongs in "+place+", not in "+where+".")
			continue
		}
		v.Add(path, "The "+k+" key is not known in "+where+"; it takes "+strings.Join(s.Keys, ", ")+".")
	}
}

// DecodeShaped reads a JSON object body into dst as DecodeJSON does, and
// refuses (422) any top-level key s does not take, so a misspelt setting
// is named rather than dropped.
func DecodeShaped(w http.ResponseWriter, r *http.Request, dst any, s *Shape) error {
	body, err := ReadJSONBody(w, r, 0)
	if err != nil {
		return err
	}
	if err := DecodeJSONBytes(body, dst); err != nil {
		return err
	}
	var keys map[string]any
	if err := json.Unmarshal(body, &keys); err != nil {
		return err
	}
	v := &Validator{}
	v.CheckKeys("", keys, s)
	return v.Err()
}
