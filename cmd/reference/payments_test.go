package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	stripewebhook "github.com/stripe/stripe-go/v85/webhook"

	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

// Paid bookings on the reference server, Stripe's API played by
// stripe-mock (Stripe's own mock, which checks every call against
// Stripe's description): with the key and the webhook secret set, a
// service made to take payment books awaiting payment with a Checkout
// page; Stripe's signed event confirms it; the owner's cancellation is
// refunded through Stripe by the running queue.
func TestPaidBookingsOnTheReferenceServer(t *testing.T) {
	t.Parallel()
	stripeAPI := testkit.StripeMock(t)
	dsn := storetest.DSN(t, store.SQLite)
	e := env{"GROUNDWORK_DB": dsn}
	c, _, stderr := runCmd(t, e, "bookings", "seed")
	require.Equal(t, 0, c, stderr)
	c, out, stderr := runCmd(t, e, "token", "create", "--name", "desk", "--ability", "bookings:*")
	require.Equal(t, 0, c, stderr)
	token := strings.TrimSpace(out)
	const secret = "whsec_reference"
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir()},
		env{"GROUNDWORK_SECRET_KEY": testSecretKey, "GROUNDWORK_STRIPE_API_KEY": "sk_test_123", "GROUNDWORK_STRIPE_API_BASE": stripeAPI,
			"GROUNDWORK_STRIPE_WEBHOOK_SECRET": secret}.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)

	code, body := request(t, "PATCH", base+"/api/bookings/admin/services/consultation", token,
		`{"price":"25.00","is_free":false,"currency":"EUR","requires_payment":true}`)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"requires_payment":true`)
	code, body = request(t, "POST", base+"/api/bookings", "",
		`{"service":"consultation","start_time":"`+firstSlot(t, base)+`","customer_name":"Grace","customer_email":"grace@example.com"}`)
	require.Equal(t, 201, code, body)
	var made struct {
		Data struct {
			ID      int64  `json:"id"`
			Status  string `json:"status"`
			Payment struct {
				CheckoutURL string `json:"checkout_url"`
			} `json:"payment"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &made))
	require.Equal(t, "awaiting_payment", made.Data.Status)
	require.True(t, strings.HasPrefix(made.Data.Payment.CheckoutURL, "https://checkout.stripe.com/"), body)

	admin := func() (status, session, reference, number string, refunded bool) {
		t.Helper()
		code, body := get(t, fmt.Sprintf("%s/api/bookings/admin/bookings/%d", base, made.Data.ID), token)
		require.Equal(t, 200, code, body)
		var b struct {
			Data struct {
				Status  string `json:"status"`
				Number  string `json:"booking_number"`
				Payment struct {
					Session    string  `json:"session"`
					Reference  string  `json:"reference"`
					RefundedAt *string `json:"refunded_at"`
				} `json:"payment"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &b))
		return b.Data.Status, b.Data.Payment.Session, b.Data.Payment.Reference, b.Data.Number, b.Data.Payment.RefundedAt != nil
	}
	status, session, _, number, _ := admin()
	require.Equal(t, "awaiting_payment", status)
	require.True(t, strings.HasPrefix(session, "cs_"), session)

	// Stripe's event, signed as Stripe signs it.
	event, err := json.Marshal(map[string]any{"id": "evt_reference", "object": "event", "type": "checkout.session.completed",
		"data": map[string]any{"object": map[string]any{"id": session, "object": "checkout.session", "payment_status": "paid",
			"client_reference_id": fmt.Sprint(made.Data.ID), "payment_intent": "pi_reference",
			"metadata": map[string]any{"booking_id": fmt.Sprint(made.Data.ID), "booking_number": number}}}})
	require.NoError(t, err)
	signed := stripewebhook.GenerateTestSignedPayload(&stripewebhook.UnsignedPayload{Payload: event, Secret: secret, Timestamp: time.Now()})
	req, err := http.NewRequest("POST", base+webhooks.InboundPrefixDefault+"/stripe", bytes.NewReader(event))
	require.NoError(t, err)
	req.Header.Set("Stripe-Signature", signed.Header)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	status, _, reference, _, _ := admin()
	require.Equal(t, "confirmed", status)
	require.Equal(t, "pi_reference", reference)

	code, body = request(t, "POST", fmt.Sprintf("%s/api/bookings/admin/bookings/%d/cancel", base, made.Data.ID), token, `{"reason":"Closed"}`)
	require.Equal(t, 200, code, body)
	require.Eventually(t, func() bool { _, _, _, _, refunded := admin(); return refunded }, 30*time.Second, 100*time.Millisecond,
		"refunded through Stripe by the queue")
}
