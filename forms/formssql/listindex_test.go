package formssql

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Pages read from a list index are the pages an exact COUNT and OFFSET
// give, at every depth and for every filter, on both databases; and the
// index follows this instance's writes.
func TestListIndexPagesAsOffsetDoes(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s := New(storetest.Open(t, d, Migrations))
		s.lists.min, s.lists.every, s.lists.ttl, s.lists.gap = 50, 7, time.Hour, 0
		base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
		form := &forms.Form{Name: "F", Slug: "f", IsActive: true, CreatedAt: base, UpdatedAt: base}
		require.NoError(t, s.CreateForm(ctx, form))
		other := &forms.Form{Name: "G", Slug: "g", IsActive: true, CreatedAt: base, UpdatedAt: base}
		require.NoError(t, s.CreateForm(ctx, other))
		const n = 230
		for i := range n {
			at := base.Add(time.Duration(i/4) * time.Second) // ties, ordered by id
			topic, days := []string{"a", "b", "c"}[i%3], [][]string{{"sat"}, {"sat", "sun"}, {"sun"}, {"s%t"}}[i%4]
			sub := &forms.Submission{FormID: form.ID, IsRead: i%3 == 0, IsStarred: i%5 == 0, CreatedAt: at, UpdatedAt: at,
				Values: []forms.Value{{FieldName: "topic", FieldType: forms.TypeSelect, Value: &topic, CreatedAt: at},
					{FieldName: "days", FieldType: forms.TypeCheckboxGroup, ValueArray: days, CreatedAt: at}}}
			require.NoError(t, s.CreateSubmission(ctx, sub))
			if i%10 == 0 {
				require.NoError(t, s.CreateSubmission(ctx, &forms.Submission{FormID: other.ID, CreatedAt: at, UpdatedAt: at}))
			}
		}
		yes, no := true, false
		topicA := []forms.AnswerFilter{{Field: "topic", Value: "a", Type: forms.TypeSelect}}
		sat := []forms.AnswerFilter{{Field: "days", Value: "sat", Type: forms.TypeCheckboxGroup}}
		filters := []forms.SubmissionQuery{{FormID: form.ID}, {FormID: form.ID, IsRead: &no}, {FormID: form.ID, IsStarred: &yes, IsRead: &no},
			// By answer: read from an index by probing each submission,
			// and exactly by the submissions that pass.
			{FormID: form.ID, Answers: topicA}, {FormID: form.ID, Answers: sat}, {FormID: form.ID, IsRead: &no, Answers: append(sat, topicA[0])}}

		// exact reads a page the plain way: COUNT and OFFSET.
		exact := func(q forms.SubmissionQuery) ([]int64, int) {
			where, args := submissionFilter(q, s.db.Dialect())
			var total int
			require.NoError(t, s.db.GetContext(ctx, &total, s.q(`SELECT COUNT(*) FROM forms_submissions WHERE `+where), args...))
			subs, err := s.page(ctx, where, args, q, nil)
			require.NoError(t, err)
			return ids(subs), total
		}
		check := func(label string) {
			for _, f := range filters {
				_, total := exact(f)
				for _, limit := range []int{1, 6, 15} {
					for offset := 0; offset <= total+limit; offset += max(1, limit/2) {
						q := f
						q.Offset, q.Limit = offset, limit
						want, wantTotal := exact(q)
						got, gotTotal, err := s.ListSubmissions(ctx, q)
						require.NoError(t, err)
						require.Equal(t, wantTotal, gotTotal, "%s: total of %+v", label, q)
						require.Equal(t, want, ids(got), "%s: page %+v", label, q)
					}
				}
			}
		}
		waitBuilt := func() {
			require.Eventually(t, func() bool {
				s.lists.mu.Lock()
				defer s.lists.mu.Unlock()
				for _, idx := range s.lists.entries {
					if idx.building || idx.built.IsZero() || idx.dirty {
						return false
					}
				}
				return len(s.lists.entries) > 0
			}, 30*time.Second, 5*time.Millisecond)
		}
		// A first read counts, and large filters get an index.
		for _, f := range filters {
			_, _, err := s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.FormID, IsRead: f.IsRead, IsStarred: f.IsStarred, Answers: f.Answers, Limit: 1})
			require.NoError(t, err)
		}
		waitBuilt()
		s.lists.mu.Lock()
		require.Len(t, s.lists.entries, 4, "the starred-and-unread filter and the two answers unread are under the minimum")
		s.lists.mu.Unlock()
		check("built")

		// This instance's writes mark the form's indexes: the next read
		// rebuilds, and the one after sees the change.
		_, err := s.SetSubmissionFlag(ctx, form.ID, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, forms.FlagRead, true, base)
		require.NoError(t, err)
		_, _, err = s.DeleteSubmissions(ctx, form.ID, []int64{20, 21, 22})
		require.NoError(t, err)
		for _, f := range filters {
			_, _, err := s.ListSubmissions(ctx, f)
			require.NoError(t, err)
		}
		waitBuilt()
		check("after writes")
	})
}

func ids(subs []forms.Submission) []int64 {
	out := make([]int64, len(subs))
	for i, s := range subs {
		out[i] = s.ID
	}
	return out
}

func TestListIndexAnchor(t *testing.T) {
	t.Parallel()
	idx := &listIndex{anchors: []rowKey{{id: 100}, {id: 90}, {id: 80}}}
	for _, c := range []struct{ offset, id, skip int }{{0, 0, 0}, {9, 0, 0}, {10, 90, 0}, {15, 90, 5}, {20, 80, 0}, {45, 80, 25}} {
		key, skip, ok := idx.anchor(c.offset, 10)
		if c.id == 0 {
			require.False(t, ok, fmt.Sprint(c))
			continue
		}
		require.True(t, ok)
		require.EqualValues(t, c.id, key.id, fmt.Sprint(c))
		require.Equal(t, c.skip, skip, fmt.Sprint(c))
	}
	_, _, ok := (&listIndex{}).anchor(5000, 10)
	require.False(t, ok, "no anchors yet")
}
