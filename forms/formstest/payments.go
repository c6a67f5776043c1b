package formstest

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
)

// exercisePayments: SetPayment changes a submission's payment only from
// the status it is asked to change it from (ErrConflict otherwise); the
// lists filter by it, every form's with FormID 0; and a submission left
// unpaid holds no place: the form's limit, an option's quota and the
// person's one response are free again.
func exercisePayments(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f, g := newForm(t, s, "f", 0), newForm(t, s, "g", 0)
	due := at(30 * time.Minute)
	owed := func(status string) *forms.Payment {
		return &forms.Payment{Status: status, Amount: "25.00", Currency: "EUR", DueAt: due}
	}
	seat := forms.Quota{Field: "seat", Value: "front", Limit: 1}
	sub := &forms.Submission{FormID: f.ID, CreatedAt: at(0), UpdatedAt: at(0), Limit: 1, Respondent: "ann", Quotas: []forms.Quota{seat},
		Values: []forms.Value{{FieldName: "seat", FieldType: forms.TypeRadio, Value: str("front"), DisplayValue: "Front", CreatedAt: at(0)}}}
	require.NoError(t, s.CreateSubmission(ctx, sub))
	require.NoError(t, s.SetPayment(ctx, f.ID, sub.ID, "", owed("awaiting_payment")))
	require.ErrorIs(t, s.SetPayment(ctx, f.ID, sub.ID, "", owed("awaiting_payment")), forms.ErrConflict, "it has a payment already")
	other := newSubmission(t, s, g.ID, 0, false)
	require.NoError(t, s.SetPayment(ctx, g.ID, other.ID, "", owed("awaiting_payment")))

	got, err := s.Submission(ctx, f.ID, sub.ID)
	require.NoError(t, err)
	require.Equal(t, "awaiting_payment", got.Payment.Status)
	require.True(t, due.Equal(got.Payment.DueAt))
	list, total, err := s.ListSubmissions(ctx, forms.SubmissionQuery{Payment: "awaiting_payment", Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 2, total, "every form's")
	require.Len(t, list, 2)
	_, total, err = s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, Payment: "paid", Limit: 10})
	require.NoError(t, err)
	require.Zero(t, total)

	// While it awaits payment it holds its places.
	again := &forms.Submission{FormID: f.ID, CreatedAt: at(time.Second), UpdatedAt: at(time.Second), Limit: 1}
	require.ErrorIs(t, s.CreateSubmission(ctx, again), forms.ErrFull)
	again = &forms.Submission{FormID: f.ID, CreatedAt: at(time.Second), UpdatedAt: at(time.Second), Quotas: []forms.Quota{seat},
		Values: []forms.Value{{FieldName: "seat", FieldType: forms.TypeRadio, Value: str("front"), DisplayValue: "Front", CreatedAt: at(0)}}}
	_, full := errors.AsType[*forms.QuotaError](s.CreateSubmission(ctx, again))
	require.True(t, full, "the quota's one place is held")
	again = &forms.Submission{FormID: f.ID, CreatedAt: at(time.Second), UpdatedAt: at(time.Second), Respondent: "ann"}
	require.ErrorIs(t, s.CreateSubmission(ctx, again), forms.ErrResponded)

	// Unpaid: every place free again, the submission kept.
	require.NoError(t, s.SetPayment(ctx, f.ID, sub.ID, "awaiting_payment", owed("unpaid")))
	require.ErrorIs(t, s.SetPayment(ctx, f.ID, sub.ID, "awaiting_payment", owed("paid")), forms.ErrConflict, "not awaiting any more")
	again = &forms.Submission{FormID: f.ID, CreatedAt: at(time.Second), UpdatedAt: at(time.Second), Limit: 2, Respondent: "ann",
		Quotas: []forms.Quota{seat}, Values: []forms.Value{{FieldName: "seat", FieldType: forms.TypeRadio, Value: str("front"), DisplayValue: "Front", CreatedAt: at(0)}}}
	require.NoError(t, s.CreateSubmission(ctx, again))
	got, err = s.Submission(ctx, f.ID, sub.ID)
	require.NoError(t, err)
	require.Equal(t, "unpaid", got.Payment.Status)
}
