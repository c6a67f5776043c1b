package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Signature headers and their defaults.
const (
	// HeaderSignature carries Sign's value: "t=<unix>, v1=<hex>".
	HeaderSignature = "X-Platform-Signature"
	// HeaderEvent carries the wire event name.
	HeaderEvent = "X-Platform-Event"
	// HeaderDelivery carries the delivery id, stable across retries of one
	// delivery: receivers de-duplicate on it.
	HeaderDelivery = "X-Platform-Delivery"
	// HeaderRequestID carries a correlation id.
	HeaderRequestID = "X-Request-Id"

	// ToleranceDefault is how far a signature's timestamp may be from now,
	// either way, for Verify.
	ToleranceDefault = 300 * time.Second
)

// Errors of Verify and VerifyStandard; test with errors.Is.
var (
	// ErrBadHeader: the signature header is missing or not in the
	// expected form.
	ErrBadHeader = errors.New("webhooks: malformed signature header")
	// ErrStaleTimestamp: the signed timestamp is further from now than the
	// tolerance.
	ErrStaleTimestamp = errors.New("webhooks: signature timestamp outside the tolerance")
	// ErrBadSignature: no signature in the header matches the body.
	ErrBadSignature = errors.New("webhooks: signature does not match")
)

// Sign returns the X-Platform-Signature value for body, sent at t:
// "t=<unix seconds>, v1=<lower-case hex HMAC-SHA256>", the HMAC keyed with
// the secret's bytes (a "whsec_" prefix included) over "<t>.<body>".
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ", v1=" + hex.EncodeToString(mac([]byte(secret), ts, body))
}

func mac(key []byte, ts string, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(ts))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Verify checks an X-Platform-Signature header against body, as a receiver
// does: the parts are comma-separated ("t=…, v1=…" or "t=…,v1=…"), t must be
// Unix seconds within tolerance of now either way (ToleranceDefault when
// tolerance is zero; negative disables the check), and one v1 must match
// in constant time. The errors wrap ErrBadHeader, ErrStaleTimestamp or
// ErrBadSignature.
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs [][]byte
	for part := range strings.SplitSeq(header, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return fmt.Errorf("%w: part %q has no '='", ErrBadHeader, strings.TrimSpace(part))
		}
		switch key {
		case "t":
			if ts != "" {
				return fmt.Errorf("%w: two timestamps", ErrBadHeader)
			}
			ts = value
		case "v1":
			sig, err := hex.DecodeString(value)
			if err != nil || len(sig) != sha256.Size {
				return fmt.Errorf("%w: v1 is not a hex SHA-256", ErrBadHeader)
			}
			sigs = append(sigs, sig)
		}
	}
	if ts == "" || len(sigs) == 0 {
		return fmt.Errorf("%w: t and v1 are required", ErrBadHeader)
	}
	unix, err := parseUnix(ts)
	if err != nil {
		return err
	}
	if err := checkTolerance(unix, now, tolerance); err != nil {
		return err
	}
	want := mac([]byte(secret), ts, body)
	for _, sig := range sigs {
		if hmac.Equal(sig, want) {
			return nil
		}
	}
	return ErrBadSignature
}

// parseUnix reads whole Unix seconds: digits only.
func parseUnix(ts string) (int64, error) {
	if ts == "" || strings.TrimLeft(ts, "0123456789") != "" || len(ts) > 18 {
		return 0, fmt.Errorf("%w: t is not a Unix time", ErrBadHeader)
	}
	n, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: t is not a Unix time", ErrBadHeader)
	}
	return n, nil
}

func checkTolerance(unix int64, now time.Time, tolerance time.Duration) error {
	if tolerance == 0 {
		tolerance = ToleranceDefault
	}
	if tolerance < 0 {
		return nil
	}
	diff := now.Unix() - unix
	if diff < 0 {
		diff = -diff
	}
	if diff > int64(tolerance/time.Second) {
		return fmt.Errorf("%w: %d seconds away", ErrStaleTimestamp, diff)
	}
	return nil
}

// Standard Webhooks (standardwebhooks.com) headers, which a subscription
// may ask for instead of the X-Platform ones.
const (
	HeaderStandardID        = "webhook-id"
	HeaderStandardTimestamp = "webhook-timestamp"
	HeaderStandardSignature = "webhook-signature"
)

// StandardSecretPrefix starts a Standard Webhooks secret; the rest is the
// key in standard base64.
const StandardSecretPrefix = "whsec_"

// standardKey decodes a Standard Webhooks secret to its key bytes.
func standardKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, StandardSecretPrefix))
	if err != nil || len(key) == 0 {
		return nil, errors.New("webhooks: a Standard Webhooks secret is whsec_ and base64")
	}
	return key, nil
}

// SignStandard returns the webhook-signature value of the Standard
// Webhooks specification for a message id sent at t: "v1,<base64
// HMAC-SHA256>" over "<id>.<t>.<body>", keyed with the base64-decoded
// secret (after its "whsec_" prefix).
func SignStandard(secret, id string, t time.Time, body []byte) (string, error) {
	key, err := standardKey(secret)
	if err != nil {
		return "", err
	}
	return "v1," + base64.StdEncoding.EncodeToString(mac(key, id+"."+strconv.FormatInt(t.Unix(), 10), body)), nil
}

// VerifyStandard checks a request's Standard Webhooks headers
// (webhook-id, webhook-timestamp and webhook-signature, a space-separated
// list) against its body, as the Standard Webhooks libraries' Verify(body,
// header) does; tolerance as Verify.
func VerifyStandard(secret string, header http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	key, err := standardKey(secret)
	if err != nil {
		return err
	}
	id, timestamp, signatures := header.Get(HeaderStandardID), header.Get(HeaderStandardTimestamp), header.Get(HeaderStandardSignature)
	if id == "" || signatures == "" {
		return fmt.Errorf("%w: webhook-id and webhook-signature are required", ErrBadHeader)
	}
	unix, err := parseUnix(timestamp)
	if err != nil {
		return err
	}
	if err := checkTolerance(unix, now, tolerance); err != nil {
		return err
	}
	want := mac(key, id+"."+timestamp, body)
	for sig := range strings.FieldsSeq(signatures) {
		version, value, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(value)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrBadSignature
}
