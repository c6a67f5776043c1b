package webhooks_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/webhooks"
)

// The vectors were computed outside Go (Python's hmac module).
func TestSignVector(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"evt_1","event":"order.placed"}`)
	got := webhooks.Sign("whsec_test_secret_0123", time.Unix(1700000000, 0), body)
	require.Equal(t, "t=1700000000, v1=62a1f04901c2ffe1f69ddb06d5dc5aaea24fabbb4e9432fdc0bf43b000bf08fb", got)

	std, err := webhooks.SignStandard("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_1", time.Unix(1700000000, 0), []byte(`{"a":1}`))
	require.NoError(t, err)
	require.Equal(t, "v1,hVsFLpmw4Ib/Xm0eZLt3KqYBZdt0U8gdGeuz0EsGv78=", std)
}

func TestVerify(t *testing.T) {
	t.Parallel()
	secret := "whsec_test_secret_0123"
	body := []byte(`{"id":"evt_1","event":"order.placed"}`)
	sent := time.Unix(1700000000, 0)
	header := webhooks.Sign(secret, sent, body)
	sig := header[len("t=1700000000, v1="):]
	for _, c := range []struct {
		name   string
		header string
		secret string
		body   string
		now    time.Time
		want   error
	}{
		{name: "as sent", header: header},
		{name: "no space", header: "t=1700000000,v1=" + sig},
		{name: "v1 first", header: "v1=" + sig + ", t=1700000000"},
		{name: "several v1, one right", header: "t=1700000000, v1=" + fmt.Sprintf("%064x", 0) + ", v1=" + sig},
		{name: "unknown parts ignored", header: "t=1700000000, v0=abc, v1=" + sig},
		{name: "300 s late", header: header, now: sent.Add(300 * time.Second)},
		{name: "300 s early", header: header, now: sent.Add(-300 * time.Second)},
		{name: "301 s late", header: header, now: sent.Add(301 * time.Second), want: webhooks.ErrStaleTimestamp},
		{name: "301 s early", header: header, now: sent.Add(-301 * time.Second), want: webhooks.ErrStaleTimestamp},
		{name: "body changed", header: header, body: `{"id":"evt_2","event":"order.placed"}`, want: webhooks.ErrBadSignature},
		{name: "other secret", header: header, secret: "whsec_other_secret_000", want: webhooks.ErrBadSignature},
		{name: "empty", header: "", want: webhooks.ErrBadHeader},
		{name: "no t", header: "v1=" + sig, want: webhooks.ErrBadHeader},
		{name: "no v1", header: "t=1700000000", want: webhooks.ErrBadHeader},
		{name: "t not digits", header: "t=17e8, v1=" + sig, want: webhooks.ErrBadHeader},
		{name: "t negative", header: "t=-1, v1=" + sig, want: webhooks.ErrBadHeader},
		{name: "v1 not hex", header: "t=1700000000, v1=zz", want: webhooks.ErrBadHeader},
		{name: "v1 short", header: "t=1700000000, v1=abcd", want: webhooks.ErrBadHeader},
		{name: "two t", header: "t=1700000000, t=1700000001, v1=" + sig, want: webhooks.ErrBadHeader},
		{name: "no equals", header: "t=1700000000, v1", want: webhooks.ErrBadHeader},
	} {
		t.Run(c.name, func(t *testing.T) {
			now := c.now
			if now.IsZero() {
				now = sent
			}
			sec := c.secret
			if sec == "" {
				sec = secret
			}
			b := body
			if c.body != "" {
				b = []byte(c.body)
			}
			err := webhooks.Verify(sec, c.header, b, now, 0)
			if c.want == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, c.want)
			}
		})
	}
	// A negative tolerance turns the time check off; a custom one applies.
	require.NoError(t, webhooks.Verify(secret, header, body, sent.Add(24*time.Hour), -1))
	require.ErrorIs(t, webhooks.Verify(secret, header, body, sent.Add(11*time.Second), 10*time.Second), webhooks.ErrStaleTimestamp)
}

// Our Standard Webhooks signatures verify with the Standard Webhooks
// library, and its signatures verify with ours.
func TestStandardWebhooksInterop(t *testing.T) {
	t.Parallel()
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	body := []byte(`{"id":"e1","event":"order.placed","created_at":"2026-11-22T10:00:00+00:00","data":{}}`)
	now := time.Now()
	sig, err := webhooks.SignStandard(secret, "42", now, body)
	require.NoError(t, err)
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	h := http.Header{}
	h.Set(standardwebhooks.HeaderWebhookID, "42")
	h.Set(standardwebhooks.HeaderWebhookTimestamp, fmt.Sprint(now.Unix()))
	h.Set(standardwebhooks.HeaderWebhookSignature, sig)
	require.NoError(t, wh.Verify(body, h))
	h.Set(standardwebhooks.HeaderWebhookID, "43")
	require.Error(t, wh.Verify(body, h), "the id is signed")

	theirs, err := wh.Sign("msg_9", now, body)
	require.NoError(t, err)
	headers := func(id string, at int64, signatures string) http.Header {
		h := http.Header{}
		h.Set(standardwebhooks.HeaderWebhookID, id)
		h.Set(standardwebhooks.HeaderWebhookTimestamp, fmt.Sprint(at))
		h.Set(standardwebhooks.HeaderWebhookSignature, signatures)
		return h
	}
	require.NoError(t, webhooks.VerifyStandard(secret, headers("msg_9", now.Unix(), "v1,bm90IGl0 "+theirs), body, now, 0))
	require.ErrorIs(t, webhooks.VerifyStandard(secret, headers("msg_9", now.Unix(), theirs), []byte("{}"), now, 0), webhooks.ErrBadSignature)
	require.ErrorIs(t, webhooks.VerifyStandard(secret, headers("msg_9", now.Unix()-301, theirs), body, now, 0), webhooks.ErrStaleTimestamp)
	require.ErrorIs(t, webhooks.VerifyStandard(secret, headers("", now.Unix(), theirs), body, now, 0), webhooks.ErrBadHeader)
	_, err = webhooks.SignStandard("whsec_not base64!", "1", now, body)
	require.Error(t, err)
}
