package webhooks

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// EventType is one event of the catalogue as the API and the OpenAPI
// document describe it: its wire name, what it means, the JSON Schema of
// its data (the envelope's "data"), and an example of that data.
type EventType struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Example     json.RawMessage `json:"example,omitempty"`
}

// anyObject is the schema of an event no one described: an object.
var anyObject = json.RawMessage(`{"type":"object"}`)

// DescribeEvent adds name to the catalogue with a description and the
// JSON Schema of its data, made from the Go type of example (its
// exported fields by their JSON names; fields without omitempty
// required; times as date-time strings); the example itself, encoded as
// a delivery would carry it, goes with it. A domain's link to webhooks
// describes its events this way.
func (s *Service) DescribeEvent(name, description string, example any) error {
	if err := s.RegisterEvents(name); err != nil {
		return err
	}
	data, err := eventData(example, s.opts.IncludeAdminFields)
	if err != nil {
		return fmt.Errorf("webhooks: describe %s: %w", name, err)
	}
	t := reflect.TypeOf(example)
	if e, ok := example.(Event); ok {
		t = reflect.TypeOf(e.Data)
	}
	schema, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[time.Time](): {Type: "string", Format: "date-time"}}})
	if err != nil {
		return fmt.Errorf("webhooks: describe %s: %w", name, err)
	}
	rawSchema, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	rawExample, err := json.Marshal(data)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.described == nil {
		s.described = map[string]EventType{}
	}
	s.described[name] = EventType{Name: name, Description: description, Schema: rawSchema, Example: rawExample}
	return nil
}

// EventTypes is the catalogue, sorted: each event as DescribeEvent
// described it, else with a generic description and an object schema.
func (s *Service) EventTypes() []EventType {
	names := s.Events()
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]EventType, 0, len(names))
	for _, n := range names {
		if t, ok := s.described[n]; ok {
			out = append(out, t)
			continue
		}
		out = append(out, EventType{Name: n, Description: "The " + n + " event; its data is the host's.", Schema: anyObject})
	}
	return out
}

// EnvelopeSchema is the JSON Schema of a delivery's body for t: the
// envelope, its event t.Name, its data t.Schema.
func EnvelopeSchema(t EventType) json.RawMessage {
	name, _ := json.Marshal(t.Name)
	return json.RawMessage(`{"type":"object","required":["id","event","created_at","data"],"properties":{` +
		`"id":{"type":"string","description":"The event's id, the same in every subscription's delivery of it."},` +
		`"event":{"const":` + string(name) + `},` +
		`"created_at":{"type":"string","format":"date-time"},` +
		`"data":` + string(t.Schema) + `}}`)
}
