package webhooks

import (
	"bytes"
	"cmp"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// DefaultEvents is the default catalogue: the wire names of the 21
// commerce events. A subscription may name these (or "*"); a host adds its
// own with Options.Events or Service.RegisterEvents.
var DefaultEvents = []string{
	"cart.abandoned", "order.placed", "cart.completed", "coupon.redeemed", "promotion.applied",
	"order.status.changed", "order.substatus.changed", "order.cancelled", "order.edited", "order.refunded",
	"payment.succeeded", "payment.failed", "payment.refunded", "fraud.blocked", "shipment.created",
	"shipment.delivered", "order.fulfilled", "customer.registered", "customer.updated", "product.stock.low",
	"product.out.of.stock",
}

// Named is implemented by an event that declares its wire name.
type Named interface {
	WebhookEvent() string
}

// Event is an event given by name, for code that has no type of its own
// for it: Data is encoded as a struct's fields would be.
type Event struct {
	Name string
	Data any
	// Channels label the event (see Channeled): only endpoints without
	// channels, or with one of these, receive it.
	Channels []string
}

// WebhookEvent implements Named.
func (e Event) WebhookEvent() string { return e.Name }

// Money is an amount in minor units (cents) and an ISO 4217 currency; in
// an event's data it becomes {"amount": 1500, "currency": "USD"}.
type Money struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// WireName is the name an event is delivered under: its declared name
// (Named), or its type's name in lower case with a dot between words:
// OrderPlaced is "order.placed", ProductOutOfStock "product.out.of.stock",
// HTTPCheckFailed "http.check.failed".
func WireName(event any) string {
	if n, ok := event.(Named); ok {
		return n.WebhookEvent()
	}
	t := reflect.TypeOf(event)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	return dotted(t.Name())
}

// words splits a Go identifier into its words: "HTTPCheckFailed" →
// HTTP, Check, Failed; "OrderID2" → Order, ID2.
func words(name string) []string {
	r := []rune(name)
	var out []string
	start := 0
	for i := 1; i < len(r); i++ {
		lowerToUpper := unicode.IsUpper(r[i]) && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]))
		acronymEnd := unicode.IsUpper(r[i]) && unicode.IsUpper(r[i-1]) && i+1 < len(r) && unicode.IsLower(r[i+1])
		if lowerToUpper || acronymEnd || r[i] == '_' {
			if w := strings.Trim(string(r[start:i]), "_"); w != "" {
				out = append(out, w)
			}
			start = i
		}
	}
	if w := strings.Trim(string(r[start:]), "_"); w != "" {
		out = append(out, w)
	}
	return out
}

func dotted(name string) string { return strings.ToLower(strings.Join(words(name), ".")) }

// snake is a field name in snake_case: "GatewayReference" →
// "gateway_reference", "OrderID" → "order_id".
func snake(name string) string { return strings.ToLower(strings.Join(words(name), "_")) }

// Envelope is the body of every delivery.
type Envelope struct {
	// ID identifies the event; every subscription's delivery of it
	// carries the same.
	ID string `json:"id"`
	// Event is the wire name.
	Event string `json:"event"`
	// CreatedAt is when the event was dispatched, ISO 8601 in the
	// service's time zone ("2026-11-22T10:00:00+00:00").
	CreatedAt string `json:"created_at"`
	// Data is the event's encoded data: an object.
	Data map[string]any `json:"data"`
}

// envelopeTime is the created_at layout: ISO 8601 with a numeric offset.
const envelopeTime = "2006-01-02T15:04:05-07:00"

// Marshal encodes the envelope as it is sent: no HTML escaping, no
// trailing newline.
func (e *Envelope) Marshal() ([]byte, error) {
	return marshal(e)
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// encoder turns an event into its data: struct fields become snake_case
// keys (a json tag's name wins), times become RFC 3339 in UTC with "Z",
// Money {amount, currency}, errors {type, message}; values with their own
// MarshalJSON or MarshalText keep that form. Fields tagged
// `webhook:"admin"` are left out unless admin is set; `webhook:"-"` always.
type encoder struct {
	admin bool
	depth int
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	moneyType         = reflect.TypeFor[Money]()
	errorType         = reflect.TypeFor[error]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// maxDepth bounds nesting (and so cycles through pointers).
const maxDepth = 32

// eventData encodes an event into its data object.
func eventData(event any, admin bool) (map[string]any, error) {
	if e, ok := event.(Event); ok {
		event = e.Data
	} else if e, ok := event.(*Event); ok && e != nil {
		event = e.Data
	}
	if event == nil {
		return map[string]any{}, nil
	}
	enc := &encoder{admin: admin}
	v, err := enc.value(reflect.ValueOf(event))
	if err != nil {
		return nil, err
	}
	switch d := v.(type) {
	case map[string]any:
		return d, nil
	case nil:
		return map[string]any{}, nil
	case json.RawMessage:
		var m map[string]any
		if err := json.Unmarshal(d, &m); err != nil {
			return nil, errors.New("webhooks: an event's data must encode as a JSON object")
		}
		return m, nil
	}
	return nil, fmt.Errorf("webhooks: an event's data must encode as a JSON object, not %T", v)
}

func (e *encoder) value(v reflect.Value) (any, error) {
	if e.depth > maxDepth {
		return nil, errors.New("webhooks: event data nested too deep (a cycle?)")
	}
	e.depth++
	defer func() { e.depth-- }()
	if !v.IsValid() {
		return nil, nil
	}
	t := v.Type()
	if t.Implements(errorType) && (t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface || !v.IsNil()) {
		err := v.Interface().(error)
		return map[string]any{"type": fmt.Sprintf("%T", err), "message": err.Error()}, nil
	}
	switch t {
	case timeType:
		tm := v.Interface().(time.Time)
		if tm.IsZero() {
			return nil, nil
		}
		return tm.UTC().Format(time.RFC3339Nano), nil
	case moneyType:
		m := v.Interface().(Money)
		return map[string]any{"amount": m.Amount, "currency": m.Currency}, nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return e.value(v.Elem())
	}
	if t.Implements(jsonMarshalerType) {
		b, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return nil, err
		}
		return json.RawMessage(b), nil
	}
	if t.Implements(textMarshalerType) {
		b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return nil, err
		}
		return string(b), nil
	}
	switch t.Kind() {
	case reflect.Struct:
		out := map[string]any{}
		return out, e.fields(v, out)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return v.Interface(), nil
		}
		if v.IsNil() {
			return nil, nil
		}
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			x, err := e.value(it.Value())
			if err != nil {
				return nil, err
			}
			out[it.Key().String()] = x
		}
		return out, nil
	case reflect.Slice:
		if v.IsNil() {
			return nil, nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return v.Interface(), nil // base64, as encoding/json writes bytes
		}
		fallthrough
	case reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			x, err := e.value(v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128:
		return nil, fmt.Errorf("webhooks: cannot encode a %s in event data", t)
	}
	return v.Interface(), nil
}

// fields adds a struct's fields to out, flattening embedded structs.
func (e *encoder) fields(v reflect.Value, out map[string]any) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		switch f.Tag.Get("webhook") {
		case "-":
			continue
		case "admin":
			if !e.admin {
				continue
			}
		}
		name, omitEmpty := f.Name, false
		named := false
		if tag, ok := f.Tag.Lookup("json"); ok {
			if tag == "-" {
				continue
			}
			n, opts, _ := strings.Cut(tag, ",")
			if n != "" {
				name, named = n, true
			}
			omitEmpty = strings.Contains(","+opts+",", ",omitempty,")
		}
		fv := v.Field(i)
		if f.Anonymous && !named {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv, ft = fv.Elem(), ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft != timeType && ft != moneyType {
				if err := e.fields(fv, out); err != nil {
					return err
				}
				continue
			}
			if !f.IsExported() {
				continue
			}
		}
		if omitEmpty && fv.IsZero() {
			continue
		}
		if !named {
			name = snake(name)
		}
		x, err := e.value(fv)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out[name] = x
	}
	return nil
}

// subjects finds the order and customer an event is about, for privacy
// redaction: data.order.id, data.order_id, data.customer.id,
// data.customer_id or data.order.customer_id.
func subjects(data map[string]any) (orderID, customerID string) {
	id := func(v any) string {
		switch x := v.(type) {
		case string:
			return x
		case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
			return fmt.Sprint(x)
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64)
		case json.Number:
			return x.String()
		}
		return ""
	}
	field := func(v any, key string) any {
		if m, ok := v.(map[string]any); ok {
			return m[key]
		}
		return nil
	}
	orderID = cmp.Or(id(field(data["order"], "id")), id(data["order_id"]))
	customerID = cmp.Or(id(field(data["customer"], "id")), id(data["customer_id"]), id(field(data["order"], "customer_id")))
	return orderID, customerID
}
