package webhooks_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

type OrderPlaced struct{}
type ProductOutOfStock struct{}
type HTTPCheckFailed struct{}
type OrderID2Set struct{}
type declared struct{}

func (declared) WebhookEvent() string { return "custom.thing.happened" }

func TestWireName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		event any
		want  string
	}{
		{OrderPlaced{}, "order.placed"},
		{&OrderPlaced{}, "order.placed"},
		{ProductOutOfStock{}, "product.out.of.stock"},
		{HTTPCheckFailed{}, "http.check.failed"},
		{OrderID2Set{}, "order.id2.set"},
		{declared{}, "custom.thing.happened"},
		{webhooks.Event{Name: "form.submitted"}, "form.submitted"},
		{nil, ""},
	} {
		require.Equal(t, c.want, webhooks.WireName(c.event))
	}
}

type Status string

type Level int

type codeText struct{ code int }

func (c codeText) MarshalText() ([]byte, error) {
	return []byte("code-" + strings.Repeat("x", c.code)), nil
}

type resource struct{ ID int }

func (r resource) MarshalJSON() ([]byte, error) {
	return []byte(`{"resource_id":7,"kind":"order"}`), nil
}

type Customer struct {
	ID        int64
	Email     string
	IPAddress string `webhook:"admin"`
}

type Base struct {
	TraceID string
}

type PaymentSucceeded struct {
	Base
	Order       resource
	Customer    *Customer
	Amount      webhooks.Money
	Status      Status
	Level       Level
	Code        codeText
	PaidAt      time.Time
	RefundedAt  *time.Time
	Failure     error
	Tags        []string
	Meta        map[string]any
	GatewayRef  string `json:"gateway_reference"`
	CostPrice   int64  `webhook:"admin"`
	Internal    string `webhook:"-"`
	Skipped     string `json:"-"`
	Empty       string `json:",omitempty"`
	hidden      string
	NilPtr      *Customer
	NilSlice    []int
	RawBytes    []byte
	Nested      struct{ InnerValue int }
	MapOfTimes  map[string]time.Time
	ArrayOfInts [2]int
}

func TestEventData(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	require.NoError(t, err)
	ev := PaymentSucceeded{
		Base:  Base{TraceID: "tr-1"},
		Order: resource{ID: 1}, Customer: &Customer{ID: 9, Email: "ann@example.test", IPAddress: "192.0.2.1"},
		Amount: webhooks.Money{Amount: 1500, Currency: "USD"}, Status: "paid", Level: 3, Code: codeText{code: 2},
		PaidAt:  time.Date(2026, 11, 22, 11, 30, 0, 500, paris),
		Failure: &fs.PathError{Op: "open", Path: "x", Err: errors.New("gone")},
		Tags:    []string{"a"}, Meta: map[string]any{"KeepCase": true}, GatewayRef: "ch_1", CostPrice: 700,
		Internal: "x", Skipped: "y", hidden: "z", RawBytes: []byte("hi"), MapOfTimes: map[string]time.Time{"at": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		ArrayOfInts: [2]int{1, 2},
	}
	ev.Nested.InnerValue = 4
	svc := newService(t, nil)
	env, err := svc.Envelope(webhooks.Event{Name: "payment.succeeded", Data: ev})
	require.NoError(t, err)
	body, err := json.Marshal(env.Data)
	require.NoError(t, err)
	require.JSONEq(t, `{
		"trace_id": "tr-1",
		"order": {"resource_id": 7, "kind": "order"},
		"customer": {"id": 9, "email": "ann@example.test"},
		"amount": {"amount": 1500, "currency": "USD"},
		"status": "paid",
		"level": 3,
		"code": "code-xx",
		"paid_at": "2026-11-22T10:30:00.0000005Z",
		"refunded_at": null,
		"failure": {"type": "*fs.PathError", "message": "open x: gone"},
		"tags": ["a"],
		"meta": {"KeepCase": true},
		"gateway_reference": "ch_1",
		"nil_ptr": null,
		"nil_slice": null,
		"raw_bytes": "aGk=",
		"nested": {"inner_value": 4},
		"map_of_times": {"at": "2026-01-02T03:04:05Z"},
		"array_of_ints": [1, 2]
	}`, string(body))

	admin := newService(t, func(o *webhooks.Options) { o.IncludeAdminFields = true })
	env, err = admin.Envelope(webhooks.Event{Name: "payment.succeeded", Data: ev})
	require.NoError(t, err)
	require.Equal(t, "192.0.2.1", env.Data["customer"].(map[string]any)["ip_address"])
	require.EqualValues(t, 700, env.Data["cost_price"])

	// Not an object, a function, a cycle, an unknown name: errors.
	_, err = svc.Envelope(webhooks.Event{Name: "payment.succeeded", Data: 5})
	require.Error(t, err)
	_, err = svc.Envelope(webhooks.Event{Name: "payment.succeeded", Data: struct{ F func() }{F: func() {}}})
	require.Error(t, err)
	type node struct{ Next *node }
	loop := &node{}
	loop.Next = loop
	_, err = svc.Envelope(webhooks.Event{Name: "payment.succeeded", Data: loop})
	require.Error(t, err)
	_, err = svc.Envelope(webhooks.Event{Name: "not.registered"})
	require.ErrorIs(t, err, webhooks.ErrUnknownEvent)
	env, err = svc.Envelope(webhooks.Event{Name: "order.placed"})
	require.NoError(t, err)
	require.Equal(t, map[string]any{}, env.Data)
}

func TestEnvelopeFormat(t *testing.T) {
	t.Parallel()
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	require.NoError(t, err)
	svc := newService(t, func(o *webhooks.Options) {
		o.Location = tokyo
		o.Now = func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }
		o.NewID = func() string { return "7f1c0d8e-0000-4000-8000-000000000001" }
	})
	env, err := svc.Envelope(webhooks.Event{Name: "order.placed", Data: map[string]any{"url": "https://x.test/a?b=<c>&d", "name": "Zoë"}})
	require.NoError(t, err)
	body, err := env.Marshal()
	require.NoError(t, err)
	require.Equal(t, `{"id":"7f1c0d8e-0000-4000-8000-000000000001","event":"order.placed","created_at":"2026-11-22T19:00:00+09:00","data":{"name":"Zoë","url":"https://x.test/a?b=<c>&d"}}`, string(body))
}

// The events a host names are added to the default catalogue (it used to
// replace it), a catalogue may leave the defaults out when asked, and a
// name missing from it is an error where the host wires its dispatch.
func TestCatalogueAddsToTheDefaults(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, webhookssql.Migrations)
	svc, err := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: testKey, Events: []string{"form.submitted"}})
	require.NoError(t, err)
	require.Contains(t, svc.Events(), "form.submitted")
	require.Contains(t, svc.Events(), "order.placed", "the defaults stay")
	require.Len(t, svc.Events(), len(webhooks.DefaultEvents)+1)
	require.NoError(t, svc.RequireEvents("form.submitted", "order.placed"))
	err = svc.RequireEvents("booking.created", "form.submitted", "booking.erased")
	require.ErrorIs(t, err, webhooks.ErrUnknownEvent)
	require.EqualError(t, err, "webhooks: event not in the catalogue: booking.created, booking.erased; "+
		"add them to Options.Events or call Service.RegisterEvents before dispatching them")
	require.NoError(t, svc.RegisterEvents("booking.created", "booking.erased"))
	require.NoError(t, svc.RequireEvents("booking.created", "booking.erased"))

	own, err := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: testKey, Events: []string{"form.submitted"}, OmitDefaultEvents: true})
	require.NoError(t, err)
	require.Equal(t, []string{"form.submitted"}, own.Events())
}
