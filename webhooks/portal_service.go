package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/store/driverless"
)

// What the portal (NewPortalHandler) asks of the service beyond the API's:
// a link for one owner, a test event, the secret shown, a range replayed.

// EventTest is the event SendTest sends: it reaches the one endpoint it is
// sent to, whatever its events and channels.
const EventTest = "webhook.test"

// MaxReplayRange is how many deliveries ReplayRange sends again at most.
const MaxReplayRange = 1000

// PortalLink makes the token of a link to owner's portal, valid for ttl:
// "{prefix}/{token}" opens it without a session, as Svix's magic links
// do. Anyone holding the link acts as owner until it expires, so send it
// to the owner alone and keep ttl short.
func (s *Service) PortalLink(owner string, ttl time.Duration) (string, error) {
	if err := checkOwner(owner); err != nil {
		return "", err
	}
	if ttl <= 0 {
		return "", errors.New("webhooks: portal link: a positive ttl is needed")
	}
	body := base64.RawURLEncoding.EncodeToString([]byte(owner)) + "." + strconv.FormatInt(s.opts.Now().Add(ttl).Unix(), 10)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.portalMAC(body)), nil
}

// portalMAC signs a portal link's body with a key of its own, made from
// the service's secret key.
func (s *Service) portalMAC(body string) []byte {
	k := hmac.New(sha256.New, s.opts.SecretKey)
	k.Write([]byte("groundwork webhooks portal link"))
	m := hmac.New(sha256.New, k.Sum(nil))
	m.Write([]byte(body))
	return m.Sum(nil)
}

// portalOwner is the owner a link's token names, if it is ours and has
// not expired.
func (s *Service) portalOwner(token string) (string, bool) {
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return "", false
	}
	sig, err := base64.RawURLEncoding.DecodeString(token[i+1:])
	if err != nil || !hmac.Equal(sig, s.portalMAC(token[:i])) {
		return "", false
	}
	enc, exp, _ := strings.Cut(token[:i], ".")
	owner, err1 := base64.RawURLEncoding.DecodeString(enc)
	until, err2 := strconv.ParseInt(exp, 10, 64)
	if err1 != nil || err2 != nil || s.opts.Now().Unix() >= until {
		return "", false
	}
	return string(owner), true
}

// SendTest records a webhook.test delivery to the subscription alone and
// queues it; the subscription must be active (ErrSubscriptionInactive).
func (s *Service) SendTest(ctx context.Context, subscriptionID int64) (*Delivery, error) {
	sub, err := s.Subscription(ctx, subscriptionID)
	if err != nil {
		return nil, err
	}
	if !sub.IsActive {
		return nil, ErrSubscriptionInactive
	}
	env := Envelope{ID: s.opts.NewID(), Event: EventTest, CreatedAt: s.opts.Now().In(s.opts.Location).Format(envelopeTime),
		Data: map[string]any{"message": "A test event, sent from the webhooks portal.", "subscription_id": sub.ID}}
	body, err := env.Marshal()
	if err != nil {
		return nil, err
	}
	requestID, _ := RequestIDFrom(ctx)
	ds := []Delivery{{SubscriptionID: sub.ID, Event: EventTest, EventID: env.ID, Payload: body, PayloadHash: hashOf(body), RequestID: requestID}}
	if err := s.queueNew(ctx, ds); err != nil {
		return nil, wrap("send test", err)
	}
	out := ds[0]
	out.Payload = nil
	return &out, nil
}

// RevealSecret opens the subscription's signing secret, for its owner to
// copy (the portal shows it on a POST, never in a page's address).
func (s *Service) RevealSecret(ctx context.Context, subscriptionID int64) (string, error) {
	sub, err := s.Subscription(ctx, subscriptionID)
	if err != nil {
		return "", err
	}
	secret, err := s.sealer.open(sub.SealedSecret)
	if err != nil {
		return "", ErrSecretUnreadable
	}
	return secret, nil
}

// ReplayRange sends again, as new deliveries, the subscription's
// deliveries made from from to to (at most MaxReplayRange, the newest),
// and returns how many. The subscription must be active.
func (s *Service) ReplayRange(ctx context.Context, subscriptionID int64, from, to time.Time) (int, error) {
	sub, err := s.Subscription(ctx, subscriptionID)
	if err != nil {
		return 0, err
	}
	if !sub.IsActive {
		return 0, ErrSubscriptionInactive
	}
	list, _, err := s.store.ListDeliveries(ctx, DeliveryQuery{SubscriptionID: sub.ID, Sort: "-id", Limit: MaxReplayRange * 4})
	if err != nil {
		return 0, wrap("replay range", err)
	}
	var ds []Delivery
	for _, d := range list {
		if d.CreatedAt.Before(from) || d.CreatedAt.After(to) || len(ds) == MaxReplayRange {
			continue
		}
		full, err := s.store.Delivery(ctx, d.ID)
		if err != nil {
			return 0, wrap("replay range", err)
		}
		ds = append(ds, Delivery{SubscriptionID: sub.ID, Event: full.Event, EventID: full.EventID, Payload: full.Payload,
			PayloadHash: full.PayloadHash, OrderID: full.OrderID, CustomerID: full.CustomerID, RequestID: full.RequestID})
	}
	if len(ds) == 0 {
		return 0, nil
	}
	if err := s.queueNew(ctx, ds); err != nil {
		return 0, wrap("replay range", err)
	}
	return len(ds), nil
}

// Attempts is a delivery's log: its failed attempts, then the one that
// delivered it, if any.
func (s *Service) Attempts(ctx context.Context, subscriptionID, deliveryID int64) ([]Attempt, error) {
	d, err := s.Delivery(ctx, subscriptionID, deliveryID)
	if err != nil {
		return nil, err
	}
	out, err := s.store.FailedAttempts(ctx, d.ID)
	if err != nil {
		return nil, wrap("attempts", err)
	}
	if d.Status == StatusDelivered && d.DeliveredAt != nil {
		a := Attempt{Number: d.Attempts, ResponseStatus: d.ResponseStatus, At: *d.DeliveredAt, Delivered: true}
		if d.ResponseBody != nil {
			a.Response = driverless.ClipText(*d.ResponseBody, AttemptExcerptLimit)
		}
		out = append(out, a)
	}
	return out, nil
}
