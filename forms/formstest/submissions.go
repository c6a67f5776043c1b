package formstest

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
)

// exerciseKeptUploads: a kept upload is taken once, by its form only;
// old ones are dropped with their blob keys, and a deleted form's keys
// come back with its own.
func exerciseKeptUploads(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	g := newForm(t, s, "g", 0)
	file := func(key string) forms.IncomingFile {
		return forms.IncomingFile{FieldName: "cv", OriginalName: "cv.pdf", StoredName: key + ".pdf", Key: "uploads/" + key, MimeType: "application/pdf", Size: 1234}
	}
	old := forms.KeptUpload{ID: "old", FormID: f.ID, IncomingFile: file("old"), CreatedAt: at(0)}
	fresh := forms.KeptUpload{ID: "fresh", FormID: f.ID, IncomingFile: file("fresh"), CreatedAt: at(time.Hour)}
	other := forms.KeptUpload{ID: "other", FormID: g.ID, IncomingFile: file("other"), CreatedAt: at(0)}
	for _, k := range []forms.KeptUpload{old, fresh, other} {
		require.NoError(t, s.KeepUpload(ctx, k))
	}
	_, err := s.TakeUpload(ctx, g.ID, "fresh")
	require.ErrorIs(t, err, forms.ErrNotFound, "only by its own form")
	got, err := s.TakeUpload(ctx, f.ID, "fresh")
	require.NoError(t, err)
	fresh.CreatedAt = exact(time.Hour)
	require.Equal(t, fresh, got)
	_, err = s.TakeUpload(ctx, f.ID, "fresh")
	require.ErrorIs(t, err, forms.ErrNotFound, "once")

	require.NoError(t, s.KeepUpload(ctx, forms.KeptUpload{ID: "newer", FormID: f.ID, IncomingFile: file("newer"), CreatedAt: at(2 * time.Hour)}))
	keys, err := s.DropKeptUploads(ctx, at(time.Hour))
	require.NoError(t, err)
	require.Equal(t, []string{"uploads/old", "uploads/other"}, keys)
	keys, err = s.DeleteForm(ctx, f.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"uploads/newer"}, keys, "a deleted form's kept uploads go with it")
}

// exerciseReleaseSpam is the ReleaseSpam part of RunStoreTests: only
// spam of this form is released, with then in its transaction (a failure
// undoes it), and of two releases at once only one clears a submission.
func exerciseReleaseSpam(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	other := newForm(t, s, "g", 0)
	a, b, fine := newSubmission(t, s, f.ID, 0, false), newSubmission(t, s, f.ID, time.Second, false), newSubmission(t, s, f.ID, 0, false)
	foreign := newSubmission(t, s, other.ID, 0, false)
	_, err := s.SetSubmissionFlag(ctx, f.ID, []int64{a.ID, b.ID}, forms.FlagSpam, true, at(0))
	require.NoError(t, err)
	_, err = s.SetSubmissionFlag(ctx, other.ID, []int64{foreign.ID}, forms.FlagSpam, true, at(0))
	require.NoError(t, err)
	spam := func(id int64) bool {
		sub, err := s.Submission(ctx, f.ID, id)
		require.NoError(t, err)
		return sub.IsSpam
	}

	boom := errors.New("boom")
	ids := []int64{b.ID, a.ID, fine.ID, foreign.ID, 999999}
	err = s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		released, err := s.ReleaseSpam(ctx, f.ID, ids, at(time.Hour))
		require.NoError(t, err)
		require.Equal(t, []int64{a.ID, b.ID}, released)
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.True(t, spam(a.ID), "a transaction that fails afterwards undoes the release")

	got, err := s.ReleaseSpam(ctx, f.ID, ids, at(time.Hour))
	require.NoError(t, err)
	require.Equal(t, []int64{a.ID, b.ID}, got, "ascending")
	require.False(t, spam(a.ID))
	again, err := s.Submission(ctx, f.ID, b.ID)
	require.NoError(t, err)
	require.Equal(t, exact(time.Hour), again.UpdatedAt)
	still, err := s.Submission(ctx, other.ID, foreign.ID)
	require.NoError(t, err)
	require.True(t, still.IsSpam, "another form's submission is left alone")

	// Two releases of one submission at once: one clears it.
	_, err = s.SetSubmissionFlag(ctx, f.ID, []int64{a.ID}, forms.FlagSpam, true, at(0))
	require.NoError(t, err)
	results := make(chan int, 2)
	for range 2 {
		go func() {
			n := 0
			err := s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
				released, err := s.ReleaseSpam(ctx, f.ID, []int64{a.ID}, at(time.Hour))
				n = len(released)
				time.Sleep(50 * time.Millisecond) // hold the transaction while the other tries
				return err
			})
			if err != nil {
				n = -1
			}
			results <- n
		}()
	}
	require.Equal(t, 1, <-results+<-results)
	got, err = s.ReleaseSpam(ctx, f.ID, nil, at(0))
	require.NoError(t, err)
	require.Empty(t, got)
}

// exerciseSubmissionsWithoutUploads: Submissions without uploads may take a store's shorter path (one
// statement, no transaction when then is nil); every kind of value
// must come back the same, and then must still share the fate of the
// submission.
func exerciseSubmissionsWithoutUploads(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	fieldID := int64(3)
	values := func() []forms.Value {
		return []forms.Value{
			{FieldID: &fieldID, FieldName: "name", FieldLabel: "Name", FieldType: forms.TypeText, Value: str("Zoë 'quoted' \\ \"x\""), DisplayValue: "Zoë", CreatedAt: at(0)},
			{FieldName: "topics", FieldLabel: "Topics", FieldType: forms.TypeCheckboxGroup, ValueArray: []string{"a,b", "{c}", `"d"`}, DisplayValue: "a,b, {c}", CreatedAt: at(0)},
			{FieldName: "none", FieldLabel: "None", FieldType: forms.TypeCheckboxGroup, ValueArray: []string{}, CreatedAt: at(0)},
			{FieldName: "empty", FieldLabel: "Empty", FieldType: forms.TypeText, CreatedAt: at(0)},
		}
	}
	for _, inTx := range []bool{false, true} {
		sub := &forms.Submission{FormID: f.ID, IPAddress: "192.0.2.1", CreatedAt: at(time.Second), UpdatedAt: at(time.Second), Values: values()}
		if inTx {
			require.NoError(t, s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error { return s.CreateSubmission(ctx, sub) }))
		} else {
			require.NoError(t, s.CreateSubmission(ctx, sub))
		}
		require.Positive(t, sub.ID)
		seen := map[int64]bool{}
		for _, v := range sub.Values {
			require.Positive(t, v.ID)
			require.False(t, seen[v.ID], "value IDs are distinct")
			seen[v.ID] = true
			require.Equal(t, sub.ID, v.SubmissionID)
		}
		got, err := s.Submission(ctx, f.ID, sub.ID)
		require.NoError(t, err)
		require.Equal(t, "192.0.2.1", got.IPAddress)
		require.Equal(t, exact(time.Second), got.CreatedAt)
		require.Empty(t, got.Uploads)
		require.Len(t, got.Values, 4)
		byName := map[string]forms.Value{}
		for _, v := range got.Values {
			byName[v.FieldName] = v
		}
		for _, v := range sub.Values {
			require.Equal(t, v.ID, byName[v.FieldName].ID, v.FieldName)
		}
		require.Equal(t, *values()[0].Value, *byName["name"].Value)
		require.Equal(t, fieldID, *byName["name"].FieldID)
		require.Equal(t, "Zoë", byName["name"].DisplayValue)
		require.Equal(t, exact(0), byName["name"].CreatedAt)
		require.Nil(t, byName["topics"].Value)
		require.Nil(t, byName["topics"].FieldID)
		require.Equal(t, []string{"a,b", "{c}", `"d"`}, byName["topics"].ValueArray)
		require.NotNil(t, byName["none"].ValueArray)
		require.Empty(t, byName["none"].ValueArray)
		require.Nil(t, byName["empty"].Value)
		require.Nil(t, byName["empty"].ValueArray)
	}

	// No values at all.
	bare := &forms.Submission{FormID: f.ID, CreatedAt: at(2 * time.Second), UpdatedAt: at(2 * time.Second)}
	require.NoError(t, s.CreateSubmission(ctx, bare))
	require.Positive(t, bare.ID)
	got, err := s.Submission(ctx, f.ID, bare.ID)
	require.NoError(t, err)
	require.Empty(t, got.Values)

	// The short path (one statement, on Postgres) joins the caller's
	// transaction too: its failure afterwards rolls the submission back.
	boom := errors.New("boom")
	err = s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		require.NoError(t, s.CreateSubmission(ctx, &forms.Submission{FormID: f.ID, CreatedAt: at(time.Hour), UpdatedAt: at(time.Hour), Values: values()}))
		return boom
	})
	require.ErrorIs(t, err, boom)
	_, total, err := s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 3, total)

	// A submission of a missing form (deleted since it was read) is
	// refused with ErrNotFound, not half-stored.
	err = s.CreateSubmission(ctx, &forms.Submission{FormID: f.ID + 1000, CreatedAt: at(0), UpdatedAt: at(0), Values: values()})
	require.ErrorIs(t, err, forms.ErrNotFound)
	_, total, err = s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID + 1000, Limit: 10})
	require.NoError(t, err)
	require.Zero(t, total)
}

// exerciseSubmissions is the Submissions part of RunStoreTests.
func exerciseSubmissions(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	other := newForm(t, s, "g", 0)
	fieldID := int64(7)
	sub := &forms.Submission{FormID: f.ID, PageURL: "https://example.test/p", ReferrerURL: "https://search.test/",
		IPAddress: "2001:db8::1", UserAgent: "Mozilla/5.0", AdminNotes: "", CreatedAt: at(0), UpdatedAt: at(0),
		Values: []forms.Value{
			{FieldID: &fieldID, FieldName: "name", FieldLabel: "Name", FieldType: forms.TypeText, Value: str("Ann"), DisplayValue: "Ann", CreatedAt: at(0)},
			{FieldName: "topics", FieldLabel: "Topics", FieldType: forms.TypeCheckboxGroup, ValueArray: []string{"a", "b"}, DisplayValue: "a, b", CreatedAt: at(0)},
			{FieldName: "cv", FieldLabel: "CV", FieldType: forms.TypeFile, Value: str("cv.pdf"), DisplayValue: "cv.pdf", CreatedAt: at(0)},
			{FieldName: "empty", FieldLabel: "Empty", FieldType: forms.TypeText, DisplayValue: "", CreatedAt: at(0)},
		},
		Uploads: []forms.Upload{{FieldName: "cv", OriginalName: "cv.pdf", StoredName: "u1.pdf", Key: "uploads/1/u1.pdf",
			MimeType: "application/pdf", Size: 1234, CreatedAt: at(0)}}}
	require.NoError(t, s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error { return s.CreateSubmission(ctx, sub) }))
	require.Positive(t, sub.ID)
	for _, v := range sub.Values {
		require.Positive(t, v.ID)
	}
	require.Positive(t, sub.Uploads[0].ID)
	require.Equal(t, sub.Uploads[0].ID, *sub.Values[2].UploadID, "the file's value points at its upload")

	got, err := s.Submission(ctx, f.ID, sub.ID)
	require.NoError(t, err)
	require.Equal(t, "2001:db8::1", got.IPAddress)
	require.Equal(t, "Mozilla/5.0", got.UserAgent)
	require.Equal(t, exact(0), got.CreatedAt)
	require.Len(t, got.Values, 4)
	byName := map[string]forms.Value{}
	for _, v := range got.Values {
		byName[v.FieldName] = v
		require.Equal(t, sub.ID, v.SubmissionID)
	}
	require.Equal(t, "Ann", *byName["name"].Value)
	require.Equal(t, fieldID, *byName["name"].FieldID)
	require.Nil(t, byName["topics"].Value)
	require.Equal(t, []string{"a", "b"}, byName["topics"].ValueArray)
	require.Nil(t, byName["empty"].Value)
	require.Nil(t, byName["empty"].ValueArray)
	require.Equal(t, sub.Uploads[0].ID, *byName["cv"].UploadID)
	require.Len(t, got.Uploads, 1)
	u := got.Uploads[0]
	require.Equal(t, "uploads/1/u1.pdf", u.Key)
	require.Equal(t, "u1.pdf", u.StoredName)
	require.Equal(t, int64(1234), u.Size)
	require.Equal(t, "application/pdf", u.MimeType)

	up, err := s.Upload(ctx, sub.ID, u.ID)
	require.NoError(t, err)
	require.Equal(t, u.Key, up.Key)
	require.Equal(t, sub.FormID, up.FormID, "an upload knows its submission's form")
	_, err = s.Upload(ctx, sub.ID+1000, u.ID)
	require.ErrorIs(t, err, forms.ErrNotFound)
	_, err = s.Submission(ctx, other.ID, sub.ID)
	require.ErrorIs(t, err, forms.ErrNotFound)

	// A transaction that fails afterwards rolls the submission back, its
	// values and uploads with it.
	boom := errors.New("boom")
	failed := &forms.Submission{FormID: f.ID, CreatedAt: at(time.Hour), UpdatedAt: at(time.Hour),
		Values: []forms.Value{{FieldName: "name", FieldLabel: "Name", FieldType: forms.TypeText, Value: str("Bob"), CreatedAt: at(0)}}}
	err = s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		require.NoError(t, s.CreateSubmission(ctx, failed))
		return boom
	})
	require.ErrorIs(t, err, boom)
	list, total, err := s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	require.Len(t, list, 1)

	got.IsRead, got.IsStarred, got.AdminNotes, got.UpdatedAt = true, true, "called back", at(time.Minute)
	require.NoError(t, s.UpdateSubmission(ctx, got))
	again, err := s.Submission(ctx, f.ID, sub.ID)
	require.NoError(t, err)
	require.True(t, again.IsRead)
	require.True(t, again.IsStarred)
	require.False(t, again.IsSpam)
	require.Equal(t, "called back", again.AdminNotes)
	require.Equal(t, exact(time.Minute), again.UpdatedAt)
	require.Len(t, again.Values, 4, "metadata updates never touch values")
	require.Nil(t, again.Routed)
	// A submission stored with its route keeps it.
	withRoute := &forms.Submission{FormID: f.ID, CreatedAt: at(time.Hour), UpdatedAt: at(time.Hour), Routed: &forms.Routed{Service: "intro",
		At: at(time.Hour)}, Values: []forms.Value{{FieldName: "name", FieldLabel: "Name", FieldType: forms.TypeText, Value: str("Cy"), CreatedAt: at(0)}}}
	require.NoError(t, s.CreateSubmission(ctx, withRoute))
	stored, err := s.Submission(ctx, f.ID, withRoute.ID)
	require.NoError(t, err)
	require.Equal(t, "intro", stored.Routed.Service)
	require.True(t, stored.Routed.At.Equal(at(time.Hour)))

	// Where a routing form sent it, and the booking made from it, kept
	// with it; in the caller's transaction, and read back by lists too.
	booking := int64(42)
	again.Routed = &forms.Routed{Service: "demo", Providers: []string{"sales"}, At: at(time.Minute)}
	require.NoError(t, s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		if err := s.UpdateSubmission(ctx, again); err != nil {
			return err
		}
		again.Routed.BookingID, again.Routed.BookingNumber = &booking, "BK-1"
		return s.UpdateSubmission(ctx, again)
	}))
	routed, err := s.Submission(ctx, f.ID, sub.ID)
	require.NoError(t, err)
	require.True(t, routed.Routed.At.Equal(at(time.Minute)), "the instant, in any zone")
	routed.Routed.At = at(time.Minute)
	require.Equal(t, &forms.Routed{Service: "demo", Providers: []string{"sales"}, At: at(time.Minute), BookingID: &booking,
		BookingNumber: "BK-1"}, routed.Routed)
	list, _, err = s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, Limit: 10})
	require.NoError(t, err)
	i := slices.IndexFunc(list, func(x forms.Submission) bool { return x.ID == sub.ID })
	require.GreaterOrEqual(t, i, 0)
	require.Equal(t, routed.Routed.BookingID, list[i].Routed.BookingID)
	require.Equal(t, routed.Routed.Service, list[i].Routed.Service)
	wrong := *again
	wrong.FormID = other.ID
	require.ErrorIs(t, s.UpdateSubmission(ctx, &wrong), forms.ErrNotFound)
}

// exerciseListFilterFlagDelete is the ListFilterFlagDelete part of RunStoreTests.
func exerciseListFilterFlagDelete(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	other := newForm(t, s, "g", 0)
	var subs []*forms.Submission
	for i := range 6 {
		subs = append(subs, newSubmission(t, s, f.ID, time.Duration(i)*time.Second, i%2 == 0))
	}
	foreign := newSubmission(t, s, other.ID, 0, false)
	// Two submissions at the same instant: the ID breaks the tie.
	twin := newSubmission(t, s, f.ID, 5*time.Second, false)

	all, total, err := s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, Limit: 100})
	require.NoError(t, err)
	require.Equal(t, 7, total)
	require.Equal(t, []int64{twin.ID, subs[5].ID, subs[4].ID, subs[3].ID, subs[2].ID, subs[1].ID, subs[0].ID}, submissionIDs(all))
	require.Len(t, all[0].Values, 1)

	yes, no := true, false
	read, total, err := s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, IsRead: &yes, Limit: 2, Offset: 1})
	require.NoError(t, err)
	require.Equal(t, 3, total)
	require.Equal(t, []int64{subs[2].ID, subs[0].ID}, submissionIDs(read))

	n, err := s.SetSubmissionFlag(ctx, f.ID, []int64{subs[0].ID, subs[1].ID, foreign.ID, 999999}, forms.FlagSpam, true, at(time.Hour))
	require.NoError(t, err)
	require.Equal(t, 2, n, "only this form's submissions count")
	spam, total, err := s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, IsSpam: &yes, IsRead: &no, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	require.Equal(t, []int64{subs[1].ID}, submissionIDs(spam))
	require.Equal(t, exact(time.Hour), spam[0].UpdatedAt)
	n, err = s.SetSubmissionFlag(ctx, f.ID, []int64{subs[3].ID}, forms.FlagStarred, true, at(time.Hour))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	starred, total, err := s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, IsStarred: &yes, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	require.True(t, starred[0].IsStarred)
	n, err = s.SetSubmissionFlag(ctx, f.ID, []int64{subs[0].ID}, forms.FlagRead, false, at(time.Hour))
	require.NoError(t, err)
	require.Equal(t, 1, n)

	n, keys, err := s.DeleteSubmissions(ctx, f.ID, []int64{subs[0].ID, foreign.ID, subs[0].ID})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Empty(t, keys)
	_, err = s.Submission(ctx, other.ID, foreign.ID)
	require.NoError(t, err, "another form's submission survives")
	n, _, err = s.DeleteSubmissions(ctx, f.ID, nil)
	require.NoError(t, err)
	require.Zero(t, n)
}

// exerciseSearch is the Search part of RunStoreTests: a search keeps
// the submissions with an answer containing it, letters of either case,
// in a value or an item of a list; LIKE's wildcards are plain letters in
// it; it narrows the other filters and pages as they do.
func exerciseSearch(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	add := func(d time.Duration, spam bool, values ...forms.Value) *forms.Submission {
		t.Helper()
		sub := &forms.Submission{FormID: f.ID, IsSpam: spam, CreatedAt: at(d), UpdatedAt: at(d), Values: values}
		require.NoError(t, s.CreateSubmission(ctx, sub))
		return sub
	}
	text := func(name, v string) forms.Value {
		return forms.Value{FieldName: name, FieldLabel: name, FieldType: forms.TypeText, Value: str(v), DisplayValue: v, CreatedAt: base}
	}
	ann := add(time.Second, false, text("name", "Ann Lovelace"), text("comment", "Quiet ROOMS, kind staff"))
	bob := add(2*time.Second, false, text("name", "Bob"), forms.Value{FieldName: "days", FieldLabel: "Days", FieldType: forms.TypeCheckboxGroup,
		ValueArray: []string{"saturday", "sunday"}, DisplayValue: "saturday, sunday", CreatedAt: base})
	pct := add(3*time.Second, false, text("comment", "100% sure_thing"))
	spam := add(4*time.Second, true, text("comment", "rooms rooms rooms"))
	_ = add(5*time.Second, false, text("name", "Cy"))

	search := func(q forms.SubmissionQuery) ([]int64, int) {
		t.Helper()
		q.FormID, q.Limit = f.ID, cmp.Or(q.Limit, 10)
		subs, total, err := s.ListSubmissions(ctx, q)
		require.NoError(t, err)
		return submissionIDs(subs), total
	}
	got, total := search(forms.SubmissionQuery{Search: "rooms"})
	require.Equal(t, []int64{spam.ID, ann.ID}, got, "either case")
	require.Equal(t, 2, total)
	no := false
	got, _ = search(forms.SubmissionQuery{Search: "ROOMS", IsSpam: &no})
	require.Equal(t, []int64{ann.ID}, got, "with the other filters")
	got, _ = search(forms.SubmissionQuery{Search: "sund"})
	require.Equal(t, []int64{bob.ID}, got, "an item of a list")
	got, _ = search(forms.SubmissionQuery{Search: "0% s"})
	require.Equal(t, []int64{pct.ID}, got)
	got, _ = search(forms.SubmissionQuery{Search: "%"})
	require.Equal(t, []int64{pct.ID}, got, "a wildcard is a letter")
	got, _ = search(forms.SubmissionQuery{Search: "0_ s"})
	require.Empty(t, got, "so is _")
	got, total = search(forms.SubmissionQuery{Search: "N", Limit: 1, Offset: 1})
	require.Equal(t, 3, total, "Ann, Bob's sunday, 100% sure_thing")
	require.Equal(t, []int64{bob.ID}, got, "paged newest first")
	got, total = search(forms.SubmissionQuery{Search: "nobody said this"})
	require.Empty(t, got)
	require.Zero(t, total)
}

// exerciseEachSubmissionInBatches is the EachSubmissionInBatches part of RunStoreTests.
func exerciseEachSubmissionInBatches(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	const n = 1203
	for i := range n {
		// Every three share an instant, to cross batch edges on ties.
		newSubmission(t, s, f.ID, time.Duration(i/3)*time.Second, false)
	}
	var seen []int64
	require.NoError(t, s.EachSubmission(ctx, f.ID, func(sub *forms.Submission) error {
		require.Len(t, sub.Values, 1)
		require.Equal(t, "name", sub.Values[0].FieldName)
		require.Equal(t, "Ann", sub.Values[0].DisplayValue)
		require.Equal(t, "https://example.test/contact", sub.PageURL)
		require.False(t, sub.CreatedAt.IsZero())
		seen = append(seen, sub.ID)
		return nil
	}))
	require.Len(t, seen, n)
	all, _, err := s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, Limit: n})
	require.NoError(t, err)
	require.Equal(t, submissionIDs(all), seen, "newest first, none skipped or repeated")

	stop := errors.New("stop")
	count := 0
	err = s.EachSubmission(ctx, f.ID, func(*forms.Submission) error {
		count++
		if count == 3 {
			return stop
		}
		return nil
	})
	require.ErrorIs(t, err, stop)
	require.Equal(t, 3, count)
}

// exerciseDeleteFormCascades is the DeleteFormCascades part of RunStoreTests.
func exerciseDeleteFormCascades(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	keep := newForm(t, s, "keep", 0)
	newField(t, s, f.ID, "name", nil)
	require.NoError(t, s.CreateStep(ctx, &forms.Step{FormID: f.ID, Title: "S", CreatedAt: at(0), UpdatedAt: at(0)}))
	require.NoError(t, s.CreateNotification(ctx, &forms.Notification{FormID: f.ID, Type: forms.NotificationAdmin, Subject: "s",
		Recipients: "a@example.test", Message: "m", IsEnabled: true, CreatedAt: at(0), UpdatedAt: at(0)}))
	for i, key := range []string{"uploads/f/1.pdf", "uploads/f/2.png"} {
		sub := &forms.Submission{FormID: f.ID, CreatedAt: at(time.Duration(i)), UpdatedAt: at(0),
			Uploads: []forms.Upload{{FieldName: "cv", OriginalName: "x", StoredName: "x", Key: key, MimeType: "x", Size: 1, CreatedAt: at(0)}}}
		require.NoError(t, s.CreateSubmission(ctx, sub))
	}
	kept := newSubmission(t, s, keep.ID, 0, false)

	keys, err := s.DeleteForm(ctx, f.ID)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"uploads/f/1.pdf", "uploads/f/2.png"}, keys)
	_, err = s.Form(ctx, f.ID, "")
	require.ErrorIs(t, err, forms.ErrNotFound)
	fields, err := s.Fields(ctx, f.ID)
	require.NoError(t, err)
	require.Empty(t, fields)
	steps, err := s.Steps(ctx, f.ID)
	require.NoError(t, err)
	require.Empty(t, steps)
	notes, err := s.Notifications(ctx, f.ID)
	require.NoError(t, err)
	require.Empty(t, notes)
	subs, total, err := s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, Limit: 10})
	require.NoError(t, err)
	require.Zero(t, total)
	require.Empty(t, subs)
	_, err = s.Submission(ctx, keep.ID, kept.ID)
	require.NoError(t, err)
}

// exerciseDeleteSubmissionsReturnsUploadKeys is the DeleteSubmissionsReturnsUploadKeys part of RunStoreTests.
func exerciseDeleteSubmissionsReturnsUploadKeys(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	sub := &forms.Submission{FormID: f.ID, CreatedAt: at(0), UpdatedAt: at(0),
		Uploads: []forms.Upload{{FieldName: "a", OriginalName: "a", StoredName: "a", Key: "k/a", MimeType: "x", Size: 1, CreatedAt: at(0)},
			{FieldName: "b", OriginalName: "b", StoredName: "b", Key: "k/b", MimeType: "x", Size: 1, CreatedAt: at(0)}}}
	require.NoError(t, s.CreateSubmission(ctx, sub))
	n, keys, err := s.DeleteSubmissions(ctx, f.ID, []int64{sub.ID})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.ElementsMatch(t, []string{"k/a", "k/b"}, keys)
	_, err = s.Upload(ctx, sub.ID, sub.Uploads[0].ID)
	require.ErrorIs(t, err, forms.ErrNotFound)
}

// exerciseNotifications is the Notifications part of RunStoreTests.
func exerciseNotifications(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	other := newForm(t, s, "g", 0)
	n := &forms.Notification{FormID: f.ID, Type: forms.NotificationAutoresponder, Subject: "Thanks, {{name}}",
		Recipients: "{{field:email}}", Message: "{{all_fields}}", IsEnabled: true,
		ConditionalLogic: &forms.Logic{Action: "send", Logic: "any", Rules: []forms.Rule{{Field: "news", Operator: "checked"}}},
		CreatedAt:        at(0), UpdatedAt: at(0)}
	require.NoError(t, s.CreateNotification(ctx, n))
	second := &forms.Notification{FormID: f.ID, Type: forms.NotificationAdmin, Subject: "New", Recipients: "a@example.test",
		Message: "m", CreatedAt: at(0), UpdatedAt: at(0)}
	require.NoError(t, s.CreateNotification(ctx, second))

	list, err := s.Notifications(ctx, f.ID)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, n.ID, list[0].ID)
	require.Equal(t, n.ConditionalLogic, list[0].ConditionalLogic)
	require.Equal(t, exact(0), list[0].CreatedAt)
	require.False(t, list[1].IsEnabled)
	require.Nil(t, list[1].ConditionalLogic)

	got, err := notificationOf(s, f.ID, n.ID)
	require.NoError(t, err)
	got.Subject, got.IsEnabled, got.ConditionalLogic, got.UpdatedAt = "Changed", false, nil, at(time.Hour)
	require.NoError(t, s.UpdateNotification(ctx, got))
	again, err := notificationOf(s, f.ID, n.ID)
	require.NoError(t, err)
	require.Equal(t, "Changed", again.Subject)
	require.False(t, again.IsEnabled)
	require.Nil(t, again.ConditionalLogic)
	require.Equal(t, exact(0), again.CreatedAt)
	require.Equal(t, exact(time.Hour), again.UpdatedAt)

	_, err = notificationOf(s, other.ID, n.ID)
	require.ErrorIs(t, err, forms.ErrNotFound)
	wrong := *again
	wrong.FormID = other.ID
	require.ErrorIs(t, s.UpdateNotification(ctx, &wrong), forms.ErrNotFound)
	require.ErrorIs(t, s.DeleteNotification(ctx, other.ID, n.ID), forms.ErrNotFound)
	require.NoError(t, s.DeleteNotification(ctx, f.ID, n.ID))
	_, err = notificationOf(s, f.ID, n.ID)
	require.ErrorIs(t, err, forms.ErrNotFound)
}

// notificationOf is one of the form's notifications, found in their list,
// or forms.ErrNotFound.
func notificationOf(s forms.Store, formID, id int64) (*forms.Notification, error) {
	list, err := s.Notifications(ctx, formID)
	if err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].ID == id {
			return &list[i], nil
		}
	}
	return nil, forms.ErrNotFound
}
