package formsstripe_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formsstripe"
	"github.com/groundwork-go/groundwork/internal/testkit"
)

// Stripe's own mock of its API checks each request against Stripe's
// OpenAPI document: the session a submission opens, and the look-up of
// it, are requests Stripe takes.
func TestAgainstStripeMock(t *testing.T) {
	t.Parallel()
	pay, err := formsstripe.New(formsstripe.Options{APIKey: "sk_test_123", APIBase: testkit.StripeMock(t)})
	require.NoError(t, err)
	email := "ann@example.com"
	sub := &forms.Submission{ID: 7, FormID: 3, Values: []forms.Value{{FieldName: "email", FieldType: forms.TypeEmail, Value: &email}},
		Payment: &forms.Payment{Status: "awaiting_payment", Amount: "36.00", Currency: "EUR", DueAt: time.Now().Add(time.Hour)}}
	page, session, err := pay.Checkout(context.Background(), &forms.Form{ID: 3, Name: "Workshop"}, sub, "https://example.com/forms/workshop?payment=7.x")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(session, "cs_"), session)
	require.True(t, strings.HasPrefix(page, "https://checkout.stripe.com/"), page)
	sub.Payment.Session = session
	_, paid, err := pay.Paid(context.Background(), sub)
	require.NoError(t, err)
	require.False(t, paid, "stripe-mock's session is open, unpaid")
}

// A session's events settle the submission they name; a booking's (no
// form_id, submission_id) and other events settle none.
func TestSettlement(t *testing.T) {
	t.Parallel()
	pay, err := formsstripe.New(formsstripe.Options{APIKey: "sk_test_123"})
	require.NoError(t, err)
	event := func(meta map[string]any, status string) map[string]any {
		return map[string]any{"data": map[string]any{"object": map[string]any{"object": "checkout.session", "id": "cs_1",
			"client_reference_id": "7", "payment_status": status, "payment_intent": "pi_1", "metadata": meta}}}
	}
	ours := map[string]any{"form_id": "3", "submission_id": "7"}
	sub, paid := pay.Settlement("checkout.session.completed", event(ours, "paid"))
	require.True(t, paid)
	require.Equal(t, forms.Submission{ID: 7, FormID: 3, Payment: &forms.Payment{Session: "cs_1", Reference: "pi_1"}}, sub)
	sub, paid = pay.Settlement("checkout.session.expired", event(ours, "unpaid"))
	require.False(t, paid)
	require.EqualValues(t, 7, sub.ID)
	sub, _ = pay.Settlement("checkout.session.completed", event(map[string]any{"booking_id": "7", "booking_number": "BK-1"}, "paid"))
	require.Zero(t, sub.ID, "a booking's session")
	sub, _ = pay.Settlement("checkout.session.completed", event(ours, "unpaid"))
	require.Zero(t, sub.ID, "an asynchronous payment, still to come")
	sub, _ = pay.Settlement("payment_intent.succeeded", event(ours, "paid"))
	require.Zero(t, sub.ID)
}
