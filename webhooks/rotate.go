package webhooks

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/api"
)

// Secret rotation with a grace period: the new secret signs every
// delivery at once, and the old one signs them too until the grace ends,
// so a receiver can switch to the new secret whenever it likes in that
// time (several v1 signatures in one header, as Standard Webhooks allows).

// Rotation bounds.
const (
	// SecretGraceDefault is how long a rotated-out secret keeps signing
	// (Options.SecretGrace).
	SecretGraceDefault = 24 * time.Hour
	// SecretGraceMax is the longest grace a rotation may ask for.
	SecretGraceMax = 7 * 24 * time.Hour
)

// RotateInput is a rotation: the new secret (made for you when nil, of
// the subscription's scheme), and how long the old one keeps signing
// (Options.SecretGrace when nil; 0 drops it at once; at most
// SecretGraceMax).
type RotateInput struct {
	Secret *string
	Grace  *time.Duration
}

// RotateSecret gives the subscription a new secret, returned with it (the
// only time it is shown), and keeps the old one signing each delivery
// beside it until the grace ends (PreviousSecretExpiresAt). A rotation
// during a grace replaces the older secret: two sign at most.
func (s *Service) RotateSecret(ctx context.Context, id int64, in RotateInput) (*Subscription, error) {
	sub, err := s.Subscription(ctx, id)
	if err != nil {
		return nil, err
	}
	grace := s.opts.SecretGrace
	v := &api.Validator{}
	if in.Grace != nil {
		grace = *in.Grace
		if grace < 0 || grace > SecretGraceMax {
			v.Add("grace_seconds", fmt.Sprintf("The grace_seconds field must be between 0 and %d.", int(SecretGraceMax/time.Second)))
		}
	}
	secret := ""
	if in.Secret != nil {
		check := *sub // the secret's rules, on a copy
		if secret, err = s.apply(ctx, &check, SubscriptionInput{Secret: in.Secret}, false); err != nil {
			return nil, err
		}
	} else {
		secret = newSecret(sub.StandardWebhooks)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	now := s.now()
	sub.PreviousSealedSecret, sub.PreviousSecretExpiresAt = "", nil
	if grace > 0 {
		until := now.Add(grace)
		sub.PreviousSealedSecret, sub.PreviousSecretExpiresAt = sub.SealedSecret, &until
	}
	sub.SealedSecret = s.sealer.seal(secret)
	sub.UpdatedAt = now
	if err := s.store.UpdateSubscription(ctx, sub); err != nil {
		return nil, wrap("rotate secret", err)
	}
	sub.Secret = secret
	return sub, nil
}

// signing is the secrets that sign a delivery to sub at now: its own, and
// the one it replaced while that one's grace lasts.
func (s *Service) signing(sub *Subscription, now time.Time) ([]string, error) {
	secret, err := s.sealer.open(sub.SealedSecret)
	if err != nil {
		return nil, err
	}
	out := []string{secret}
	if sub.PreviousSealedSecret != "" && sub.PreviousSecretExpiresAt != nil && now.Before(*sub.PreviousSecretExpiresAt) {
		old, err := s.sealer.open(sub.PreviousSealedSecret)
		if err != nil {
			return nil, err
		}
		out = append(out, old)
	}
	return out, nil
}

// SignWith is Sign with several secrets: "t=<unix>, v1=<hex>, v1=<hex>",
// a v1 a secret, in their order (a delivery during a rotation's grace
// carries the new secret's and the old one's). Verify accepts it with
// either.
func SignWith(t time.Time, body []byte, secrets ...string) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + ts)
	for _, secret := range secrets {
		b.WriteString(", v1=" + hex.EncodeToString(mac([]byte(secret), ts, body)))
	}
	return b.String()
}

// SignStandardWith is SignStandard with several secrets: "v1,<base64>
// v1,<base64>", space-separated, as the Standard Webhooks specification
// allows; its libraries accept it with either secret.
func SignStandardWith(id string, t time.Time, body []byte, secrets ...string) (string, error) {
	sigs := make([]string, len(secrets))
	for i, secret := range secrets {
		sig, err := SignStandard(secret, id, t, body)
		if err != nil {
			return "", err
		}
		sigs[i] = sig
	}
	return strings.Join(sigs, " "), nil
}

// VerifyAny is Verify for a receiver that holds several secrets (during a
// rotation, the old and the new): the header verifies when one of its v1
// signatures matches one of secrets.
func VerifyAny(secrets []string, header string, body []byte, now time.Time, tolerance time.Duration) error {
	err := error(ErrBadSignature)
	for _, secret := range secrets {
		if err = Verify(secret, header, body, now, tolerance); err == nil || headerFault(err) {
			return err
		}
	}
	return err
}

// VerifyStandardAny is VerifyStandard for a receiver that holds several
// secrets: the request verifies when one of its signatures matches one of
// secrets.
func VerifyStandardAny(secrets []string, header http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	err := error(ErrBadSignature)
	for _, secret := range secrets {
		if err = VerifyStandard(secret, header, body, now, tolerance); err == nil || headerFault(err) {
			return err
		}
	}
	return err
}

// headerFault reports whether err is the header's (malformed or stale:
// no other secret will verify it), not one secret's mismatch.
func headerFault(err error) bool {
	return errors.Is(err, ErrBadHeader) || errors.Is(err, ErrStaleTimestamp)
}
