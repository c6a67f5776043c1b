// Package webhookstest holds the conformance suite every [webhooks.Store]
// must pass ([RunStoreTests]), and an in-memory Store ([NewFake]) for a
// host's own tests that need a webhooks.Service and no database (signing,
// subscribing hooks, events).
//
// The fake passes the same suite as webhookssql on SQLite and Postgres.
// For anything the suite does not pin (claims across instances, SQL
// errors) test on webhookssql: a SQLite file under t.TempDir() is fast and
// exact.
package webhookstest

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

// Fake is an in-memory webhooks.Store, safe for concurrent use. It keeps
// times as the SQL store does (UTC, microseconds) and copies values in and
// out. Callbacks get a nil transaction; a failing callback undoes the
// writes it was meant to commit with.
type Fake struct {
	mu            sync.Mutex
	nextID        int64
	subscriptions map[int64]webhooks.Subscription
	deliveries    map[int64]webhooks.Delivery
	claims        map[[2]string]time.Time
	inbound       map[int64]webhooks.InboundRecord
}

var _ webhooks.Store = (*Fake)(nil)

// NewFake returns an empty store.
func NewFake() *Fake {
	return &Fake{subscriptions: map[int64]webhooks.Subscription{}, deliveries: map[int64]webhooks.Delivery{},
		claims: map[[2]string]time.Time{}, inbound: map[int64]webhooks.InboundRecord{}}
}

func (f *Fake) id() int64 {
	f.nextID++
	return f.nextID
}

func norm(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func normPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := norm(*t)
	return &v
}

func copySub(s webhooks.Subscription) webhooks.Subscription {
	s.Events = slices.Clone(s.Events)
	if s.Events == nil {
		s.Events = []string{}
	}
	s.LastSuccessAt, s.LastFailureAt = normPtr(s.LastSuccessAt), normPtr(s.LastFailureAt)
	s.CreatedAt, s.UpdatedAt = norm(s.CreatedAt), norm(s.UpdatedAt)
	s.Deliveries, s.Secret = nil, ""
	return s
}

func copyDelivery(d webhooks.Delivery, full bool) webhooks.Delivery {
	d.NextAttemptAt, d.DeliveredAt = normPtr(d.NextAttemptAt), normPtr(d.DeliveredAt)
	d.CreatedAt, d.UpdatedAt = norm(d.CreatedAt), norm(d.UpdatedAt)
	if d.ResponseStatus != nil {
		v := *d.ResponseStatus
		d.ResponseStatus = &v
	}
	if !full {
		d.Payload, d.ResponseBody = nil, nil
		return d
	}
	d.Payload = slices.Clone(d.Payload)
	if d.ResponseBody != nil {
		v := *d.ResponseBody
		d.ResponseBody = &v
	}
	return d
}

// CreateSubscription implements webhooks.Store.
func (f *Fake) CreateSubscription(_ context.Context, s *webhooks.Subscription) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	s.ID = f.id()
	f.subscriptions[s.ID] = copySub(*s)
	return nil
}

// UpdateSubscription implements webhooks.Store.
func (f *Fake) UpdateSubscription(_ context.Context, s *webhooks.Subscription) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	old, ok := f.subscriptions[s.ID]
	if !ok {
		return webhooks.ErrNotFound
	}
	next := copySub(*s)
	next.CreatedAt, next.LastSuccessAt, next.LastFailureAt = old.CreatedAt, old.LastSuccessAt, old.LastFailureAt
	f.subscriptions[s.ID] = next
	return nil
}

// DeleteSubscription implements webhooks.Store.
func (f *Fake) DeleteSubscription(_ context.Context, id int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.subscriptions[id]; !ok {
		return webhooks.ErrNotFound
	}
	delete(f.subscriptions, id)
	for k, d := range f.deliveries {
		if d.SubscriptionID == id {
			delete(f.deliveries, k)
		}
	}
	return nil
}

// Subscription implements webhooks.Store.
func (f *Fake) Subscription(_ context.Context, id int64) (*webhooks.Subscription, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.subscriptions[id]
	if !ok {
		return nil, webhooks.ErrNotFound
	}
	out := copySub(s)
	return &out, nil
}

// sorter orders by a "field" or "-field" sort with the ID as tie-breaker.
func sorter[T any](sort string, keys map[string]func(a, b T) int, def string, id func(T) int64) func(a, b T) int {
	col, desc := strings.TrimPrefix(sort, "-"), strings.HasPrefix(sort, "-")
	key, ok := keys[col]
	if !ok {
		col, desc = strings.TrimPrefix(def, "-"), strings.HasPrefix(def, "-")
		key = keys[col]
	}
	return func(a, b T) int {
		c := cmp.Or(key(a, b), cmp.Compare(id(a), id(b)))
		if desc {
			return -c
		}
		return c
	}
}

// ListSubscriptions implements webhooks.Store.
func (f *Fake) ListSubscriptions(_ context.Context, q webhooks.SubscriptionQuery) ([]webhooks.Subscription, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []webhooks.Subscription
	for _, s := range f.subscriptions {
		if q.Active == nil || s.IsActive == *q.Active {
			all = append(all, copySub(s))
		}
	}
	slices.SortFunc(all, sorter(q.Sort, map[string]func(a, b webhooks.Subscription) int{
		"name":       func(a, b webhooks.Subscription) int { return strings.Compare(a.Name, b.Name) },
		"created_at": func(a, b webhooks.Subscription) int { return a.CreatedAt.Compare(b.CreatedAt) },
		"id":         func(a, b webhooks.Subscription) int { return 0 },
	}, "-created_at", func(s webhooks.Subscription) int64 { return s.ID }))
	return storetest.Page(all, q.Offset, q.Limit), len(all), nil
}

// CreateFanout implements webhooks.Store.
func (f *Fake) CreateFanout(ctx context.Context, _ *sql.Tx, tmpl webhooks.Delivery, then func(context.Context, *sql.Tx, []webhooks.Delivery) error) ([]webhooks.Delivery, error) {
	f.mu.Lock()
	var subs []int64
	for _, s := range f.subscriptions {
		if s.IsActive && s.Listens(tmpl.Event) {
			subs = append(subs, s.ID)
		}
	}
	slices.Sort(subs)
	out := make([]webhooks.Delivery, len(subs))
	for i, sub := range subs {
		out[i] = tmpl
		out[i].ID, out[i].SubscriptionID = f.id(), sub
		f.deliveries[out[i].ID] = copyDelivery(out[i], true)
	}
	f.mu.Unlock()
	if then != nil {
		if err := then(ctx, nil, out); err != nil {
			f.mu.Lock()
			for _, d := range out {
				delete(f.deliveries, d.ID)
			}
			f.mu.Unlock()
			return nil, err
		}
	}
	return out, nil
}

// CreateDeliveries implements webhooks.Store.
func (f *Fake) CreateDeliveries(ctx context.Context, _ *sql.Tx, ds []webhooks.Delivery, then func(context.Context, *sql.Tx) error) error {
	f.mu.Lock()
	ids := make([]int64, len(ds))
	for i := range ds {
		if _, ok := f.subscriptions[ds[i].SubscriptionID]; !ok {
			for _, id := range ids[:i] {
				delete(f.deliveries, id)
			}
			f.mu.Unlock()
			return webhooks.ErrNotFound
		}
		ds[i].ID = f.id()
		ids[i] = ds[i].ID
		f.deliveries[ds[i].ID] = copyDelivery(ds[i], true)
	}
	f.mu.Unlock()
	if then != nil {
		if err := then(ctx, nil); err != nil {
			f.mu.Lock()
			for _, id := range ids {
				delete(f.deliveries, id)
			}
			f.mu.Unlock()
			return err
		}
	}
	return nil
}

// Delivery implements webhooks.Store.
func (f *Fake) Delivery(_ context.Context, id int64) (*webhooks.Delivery, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.deliveries[id]
	if !ok {
		return nil, webhooks.ErrNotFound
	}
	out := copyDelivery(d, true)
	return &out, nil
}

// ListDeliveries implements webhooks.Store.
func (f *Fake) ListDeliveries(_ context.Context, q webhooks.DeliveryQuery) ([]webhooks.Delivery, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []webhooks.Delivery
	for _, d := range f.deliveries {
		if d.SubscriptionID == q.SubscriptionID && (q.Event == "" || d.Event == q.Event) && (q.Status == "" || d.Status == q.Status) {
			all = append(all, copyDelivery(d, false))
		}
	}
	slices.SortFunc(all, sorter(q.Sort, map[string]func(a, b webhooks.Delivery) int{
		"id":         func(a, b webhooks.Delivery) int { return 0 },
		"created_at": func(a, b webhooks.Delivery) int { return a.CreatedAt.Compare(b.CreatedAt) },
	}, "-id", func(d webhooks.Delivery) int64 { return d.ID }))
	return storetest.Page(all, q.Offset, q.Limit), len(all), nil
}

// RecentDeliveries implements webhooks.Store.
func (f *Fake) RecentDeliveries(_ context.Context, subscriptionIDs []int64, n int) (map[int64][]webhooks.Delivery, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[int64][]webhooks.Delivery, len(subscriptionIDs))
	for _, d := range f.deliveries {
		if slices.Contains(subscriptionIDs, d.SubscriptionID) {
			out[d.SubscriptionID] = append(out[d.SubscriptionID], copyDelivery(d, false))
		}
	}
	for id, list := range out {
		slices.SortFunc(list, func(a, b webhooks.Delivery) int { return cmp.Compare(b.ID, a.ID) })
		out[id] = list[:min(len(list), n)]
	}
	return out, nil
}

func claimable(d webhooks.Delivery) bool {
	return d.Status == webhooks.StatusPending || d.Status == webhooks.StatusRetrying
}

func at(t *time.Time, want time.Time) bool { return t != nil && t.Equal(norm(want)) }

// ReadDeliveries implements webhooks.Store.
func (f *Fake) ReadDeliveries(_ context.Context, ids []int64) ([]webhooks.Delivery, map[int64]*webhooks.Subscription, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []webhooks.Delivery
	subs := map[int64]*webhooks.Subscription{}
	for _, id := range ids {
		d, ok := f.deliveries[id]
		if !ok {
			continue
		}
		out = append(out, copyDelivery(d, true))
		if _, ok := subs[d.SubscriptionID]; !ok {
			s := copySub(f.subscriptions[d.SubscriptionID])
			subs[d.SubscriptionID] = &s
		}
	}
	return out, subs, nil
}

// ClaimDelivery implements webhooks.Store.
func (f *Fake) ClaimDelivery(_ context.Context, id int64, claim, lease time.Time) (*webhooks.Delivery, *webhooks.Subscription, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.deliveries[id]
	if !ok || !claimable(d) || !at(d.NextAttemptAt, claim) {
		return nil, nil, webhooks.ErrClaimLost
	}
	if !lease.Equal(claim) {
		l := norm(lease)
		d.NextAttemptAt = &l
		f.deliveries[id] = d
	}
	out := copyDelivery(d, true)
	sub := copySub(f.subscriptions[d.SubscriptionID])
	return &out, &sub, nil
}

// FinishAttempt implements webhooks.Store.
func (f *Fake) FinishAttempt(_ context.Context, d *webhooks.Delivery, lease time.Time, o webhooks.Outcome, disableAfter int) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	old, ok := f.deliveries[d.ID]
	if !ok || !at(old.NextAttemptAt, lease) {
		return false, webhooks.ErrClaimLost
	}
	next := old
	next.Status, next.Attempts, next.NextAttemptAt = d.Status, d.Attempts, normPtr(d.NextAttemptAt)
	next.ResponseStatus, next.ResponseBody, next.DeliveredAt, next.UpdatedAt = d.ResponseStatus, d.ResponseBody, normPtr(d.DeliveredAt), norm(d.UpdatedAt)
	f.deliveries[d.ID] = copyDelivery(next, true)
	sub := f.subscriptions[d.SubscriptionID]
	now := norm(d.UpdatedAt)
	disabled := false
	switch o {
	case webhooks.OutcomeSuccess:
		sub.ConsecutiveFailures, sub.LastSuccessAt = 0, &now
	case webhooks.OutcomeFailure:
		sub.ConsecutiveFailures++
		sub.LastFailureAt = &now
		if sub.IsActive && sub.ConsecutiveFailures >= disableAfter {
			sub.IsActive, disabled = false, true
		}
	}
	f.subscriptions[d.SubscriptionID] = sub
	return disabled, nil
}

// FinishDelivered implements webhooks.Store.
func (f *Fake) FinishDelivered(ctx context.Context, ds []webhooks.Delivered) ([]int64, error) {
	var lost []int64
	for _, x := range ds {
		d := *x.Delivery
		d.Status, d.NextAttemptAt = webhooks.StatusDelivered, nil
		if _, err := f.FinishAttempt(ctx, &d, x.Lease, webhooks.OutcomeSuccess, 0); err != nil {
			lost = append(lost, d.ID)
		}
	}
	return lost, nil
}

// ClaimDue implements webhooks.Store.
func (f *Fake) ClaimDue(ctx context.Context, now, lease time.Time, limit int, then func(context.Context, *sql.Tx, []int64) error) ([]int64, error) {
	f.mu.Lock()
	var due []webhooks.Delivery
	for _, d := range f.deliveries {
		if claimable(d) && d.NextAttemptAt != nil && !d.NextAttemptAt.After(norm(now)) {
			due = append(due, d)
		}
	}
	slices.SortFunc(due, func(a, b webhooks.Delivery) int {
		return cmp.Or(a.NextAttemptAt.Compare(*b.NextAttemptAt), cmp.Compare(a.ID, b.ID))
	})
	due = due[:min(len(due), limit)]
	ids := make([]int64, len(due))
	l := norm(lease)
	for i, d := range due {
		ids[i] = d.ID
		d.NextAttemptAt = &l
		f.deliveries[d.ID] = d
	}
	f.mu.Unlock()
	if then != nil && len(ids) > 0 {
		if err := then(ctx, nil, ids); err != nil {
			f.mu.Lock()
			for _, d := range due {
				f.deliveries[d.ID] = d // the claims roll back (due still holds the old times)
			}
			f.mu.Unlock()
			return nil, err
		}
	}
	return ids, nil
}

// RequeueParked implements webhooks.Store.
func (f *Fake) RequeueParked(_ context.Context, subscriptionID int64, when time.Time) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	w := norm(when)
	for id, d := range f.deliveries {
		if d.SubscriptionID == subscriptionID && d.Status == webhooks.StatusParked {
			d.Status = webhooks.StatusRetrying
			if d.Attempts == 0 {
				d.Status = webhooks.StatusPending
			}
			d.NextAttemptAt, d.UpdatedAt = &w, w
			f.deliveries[id] = d
			n++
		}
	}
	return n, nil
}

// PruneDeliveries implements webhooks.Store.
func (f *Fake) PruneDeliveries(_ context.Context, before time.Time, _ int) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for id, d := range f.deliveries {
		if d.Status.Finished() && d.CreatedAt.Before(norm(before)) {
			delete(f.deliveries, id)
			n++
		}
	}
	return n, nil
}

// DeliveriesAbout implements webhooks.Store.
func (f *Fake) DeliveriesAbout(_ context.Context, customerID string, orderIDs []string, afterID int64, limit int) ([]webhooks.Delivery, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []webhooks.Delivery
	for _, d := range f.deliveries {
		about := (customerID != "" && d.CustomerID == customerID) || (d.OrderID != "" && slices.Contains(orderIDs, d.OrderID))
		if d.ID > afterID && about {
			out = append(out, copyDelivery(d, true))
		}
	}
	slices.SortFunc(out, func(a, b webhooks.Delivery) int { return cmp.Compare(a.ID, b.ID) })
	return out[:min(len(out), limit)], nil
}

// RedactDelivery implements webhooks.Store.
func (f *Fake) RedactDelivery(_ context.Context, id int64, payload json.RawMessage, hash string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.deliveries[id]
	if !ok {
		return webhooks.ErrNotFound
	}
	if payload != nil {
		d.Payload, d.PayloadHash = slices.Clone(payload), hash
	}
	d.ResponseBody = nil
	f.deliveries[id] = d
	return nil
}

// ReceiveEvent implements webhooks.Store.
func (f *Fake) ReceiveEvent(_ context.Context, r *webhooks.InboundRecord) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := [2]string{r.Provider, r.EventID}
	_, taken := f.claims[k]
	if !taken {
		f.claims[k] = norm(r.ReceivedAt)
	}
	r.Duplicate = taken
	r.ID = f.id()
	f.inbound[r.ID] = copyInbound(*r)
	return !taken, nil
}

// ReleaseEvent implements webhooks.Store.
func (f *Fake) ReleaseEvent(_ context.Context, provider, eventID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.claims, [2]string{provider, eventID})
	return nil
}

func copyInbound(r webhooks.InboundRecord) webhooks.InboundRecord {
	r.ReceivedAt = norm(r.ReceivedAt)
	if r.Parsed != nil {
		r.Parsed = deep(r.Parsed)
	}
	return r
}

// deep copies v through JSON, as a database round trip would.
func deep[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// RecordInbound implements webhooks.Store.
func (f *Fake) RecordInbound(_ context.Context, r *webhooks.InboundRecord) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	r.ID = f.id()
	f.inbound[r.ID] = copyInbound(*r)
	return nil
}

// SetInboundStatus implements webhooks.Store.
func (f *Fake) SetInboundStatus(_ context.Context, id int64, status int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.inbound[id]
	if !ok {
		return webhooks.ErrNotFound
	}
	r.ResponseStatus = status
	f.inbound[id] = r
	return nil
}

// ListInbound implements webhooks.Store.
func (f *Fake) ListInbound(_ context.Context, q webhooks.InboundQuery) ([]webhooks.InboundRecord, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []webhooks.InboundRecord
	for _, r := range f.inbound {
		if (q.Provider == "" || r.Provider == q.Provider) && (q.EventID == "" || r.EventID == q.EventID) {
			all = append(all, copyInbound(r))
		}
	}
	slices.SortFunc(all, func(a, b webhooks.InboundRecord) int { return cmp.Compare(b.ID, a.ID) })
	return storetest.Page(all, q.Offset, q.Limit), len(all), nil
}

// PruneInbound implements webhooks.Store.
func (f *Fake) PruneInbound(_ context.Context, before time.Time, _ int) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for id, r := range f.inbound {
		if r.ReceivedAt.Before(norm(before)) {
			delete(f.inbound, id)
			n++
		}
	}
	for k, at := range f.claims {
		if at.Before(norm(before)) {
			delete(f.claims, k)
		}
	}
	return n, nil
}

// RedactInbound implements webhooks.Store.
func (f *Fake) RedactInbound(_ context.Context, sessionRefs []string, email string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for id, r := range f.inbound {
		about := (r.SessionReference != "" && slices.Contains(sessionRefs, r.SessionReference)) ||
			(email != "" && strings.Contains(strings.ToLower(r.Payload), strings.ToLower(email)))
		if about && (r.Payload != "" || r.Parsed != nil) {
			r.Payload, r.Parsed = "", nil
			f.inbound[id] = r
			n++
		}
	}
	return n, nil
}
