package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/webhooks"
)

// secret is a subscription secret in the Standard Webhooks form, which
// suits both kinds of signature.
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func TestReceiver(t *testing.T) {
	var mu sync.Mutex
	var handled []string
	h, err := newReceiver(secret, func(id string, body []byte) {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, id+" "+string(body))
	})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	post := func(path, body string, header http.Header) int {
		req, err := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header = header
		res, err := srv.Client().Do(req)
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	body := `{"event":"order.placed","data":{"order":{"id":42}}}`
	platform := func(id string, at time.Time, body string) http.Header {
		return http.Header{webhooks.HeaderSignature: {webhooks.Sign(secret, at, []byte(body))}, webhooks.HeaderDelivery: {id}}
	}

	// Signed as groundwork signs every delivery: taken once, however often sent.
	require.Equal(t, 204, post("/hooks", body, platform("d1", time.Now(), body)))
	require.Equal(t, 204, post("/hooks", body, platform("d1", time.Now(), body)), "a retry is answered, not acted on")
	// Forged, tampered with, or replayed long after: refused.
	require.Equal(t, 400, post("/hooks", body, http.Header{webhooks.HeaderSignature: {"t=1, v1=00"}, webhooks.HeaderDelivery: {"d2"}}))
	require.Equal(t, 400, post("/hooks", body+" ", platform("d3", time.Now(), body)))
	require.Equal(t, 400, post("/hooks", body, platform("d4", time.Now().Add(-time.Hour), body)))

	// Standard Webhooks headers, checked by that standard's library.
	now := time.Now()
	sig, err := webhooks.SignStandard(secret, "msg_1", now, []byte(body))
	require.NoError(t, err)
	standard := http.Header{webhooks.HeaderStandardID: {"msg_1"}, webhooks.HeaderStandardTimestamp: {fmt.Sprint(now.Unix())},
		webhooks.HeaderStandardSignature: {sig}}
	require.Equal(t, 204, post("/hooks/standard", body, standard))
	require.Equal(t, 400, post("/hooks/standard", `{"event":"forged"}`, standard))

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"d1 " + body, "msg_1 " + body}, handled)
}
