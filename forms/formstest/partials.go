package formstest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
)

// exercisePartials is the Partials part of RunStoreTests: saved answers
// are stored whole, found by their token's hash in their form only,
// replaced, listed latest first, deleted with the submission that
// finishes them, and dropped when expired with their files' keys.
func exercisePartials(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "apply", 0)
	other := newForm(t, s, "other", time.Minute)
	p := &forms.Partial{FormID: f.ID, TokenHash: "hash-one", Values: map[string][]string{"name": {"Ann"}, "topics": {"a", "b"}},
		Uploads:  []forms.IncomingFile{{FieldName: "cv", OriginalName: "cv.pdf", StoredName: "x.pdf", Key: "blob/x.pdf", MimeType: "application/pdf", Size: 9}},
		LastStep: 2, CreatedAt: at(0), UpdatedAt: at(0), ExpiresAt: at(time.Hour)}
	require.NoError(t, s.SavePartial(ctx, p))
	require.Positive(t, p.ID)
	got, err := s.PartialByToken(ctx, f.ID, "hash-one")
	require.NoError(t, err)
	want := *p
	want.CreatedAt, want.UpdatedAt, want.ExpiresAt = exact(0), exact(0), exact(time.Hour)
	require.Equal(t, want, *got)
	_, err = s.PartialByToken(ctx, other.ID, "hash-one")
	require.ErrorIs(t, err, forms.ErrNotFound, "another form's")

	second := &forms.Partial{FormID: f.ID, TokenHash: "hash-two", Values: map[string][]string{}, LastStep: 1,
		CreatedAt: at(time.Minute), UpdatedAt: at(time.Minute), ExpiresAt: at(2 * time.Hour)}
	require.NoError(t, s.SavePartial(ctx, second))
	p.Values, p.Uploads, p.LastStep, p.UpdatedAt = map[string][]string{"name": {"Ann B."}}, nil, 3, at(2*time.Minute)
	require.NoError(t, s.SavePartial(ctx, p))
	list, err := s.Partials(ctx, f.ID)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, p.ID, list[0].ID, "latest saved first")
	require.Equal(t, []string{"Ann B."}, list[0].Values["name"])
	require.Empty(t, list[0].Uploads)
	require.Equal(t, 3, list[0].LastStep)
	require.ErrorIs(t, s.SavePartial(ctx, &forms.Partial{ID: p.ID, FormID: other.ID, Values: map[string][]string{}}), forms.ErrNotFound)

	// A submission that finishes one deletes it.
	sub := &forms.Submission{FormID: f.ID, CreatedAt: at(0), UpdatedAt: at(0), ResumeHash: "hash-one"}
	require.NoError(t, s.CreateSubmission(ctx, sub))
	_, err = s.PartialByToken(ctx, f.ID, "hash-one")
	require.ErrorIs(t, err, forms.ErrNotFound)

	// Expired ones go with their files' keys.
	third := &forms.Partial{FormID: f.ID, TokenHash: "hash-three", Values: map[string][]string{},
		Uploads: []forms.IncomingFile{{FieldName: "cv", Key: "blob/b"}, {FieldName: "photo", Key: "blob/a"}}, LastStep: 1,
		CreatedAt: at(0), UpdatedAt: at(0), ExpiresAt: at(time.Hour)}
	require.NoError(t, s.SavePartial(ctx, third))
	keys, err := s.DropExpiredPartials(ctx, at(time.Hour))
	require.NoError(t, err)
	require.Equal(t, []string{"blob/a", "blob/b"}, keys, "expired at the time itself")
	list, err = s.Partials(ctx, f.ID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, second.ID, list[0].ID)
}
