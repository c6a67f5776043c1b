package formstest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/testkit"
)

// ctx is the context of every store call of the suite.
var ctx = context.Background()

// base is the suite's clock: every time is an offset from it, in a zone
// that is not UTC, so a store that keeps the zone is caught.
var base = time.Date(2026, 11, 22, 9, 30, 15, 123456789, time.FixedZone("X", 5*3600))

// at is base plus d, as written; exact is the same time as read back
// (UTC, to the microsecond).
func at(d time.Duration) time.Time    { return base.Add(d) }
func exact(d time.Duration) time.Time { return base.Add(d).UTC().Truncate(time.Microsecond) }

func str(s string) *string { return &s }

// newForm stores an active form with slug, made at base+d.
func newForm(t *testing.T, s forms.Store, slug string, d time.Duration) *forms.Form {
	t.Helper()
	f := &forms.Form{Name: "Form " + slug, Slug: slug, SubmitButtonText: "Send", IsActive: true, ShowProgressBar: true,
		CreatedAt: at(d), UpdatedAt: at(d)}
	require.NoError(t, s.CreateForm(ctx, f))
	return f
}

// newField stores a text field named name on the form (and step).
func newField(t *testing.T, s forms.Store, formID int64, name string, step *int64) *forms.Field {
	t.Helper()
	f := &forms.Field{FormID: formID, StepID: step, UUID: fmt.Sprintf("%08d-0000-4000-8000-%012d", formID, len(name)*1000+int(name[0])),
		Name: name, Type: forms.TypeText, Label: name, Width: "full", CreatedAt: at(0), UpdatedAt: at(0)}
	f.UUID = name + "-" + f.UUID[len(name)+1:]
	require.NoError(t, s.CreateField(ctx, f))
	return f
}

// newSubmission stores a submission of the form with one value, made at
// base+d.
func newSubmission(t *testing.T, s forms.Store, formID int64, d time.Duration, read bool) *forms.Submission {
	t.Helper()
	sub := &forms.Submission{FormID: formID, PageURL: "https://example.test/contact", IPAddress: "203.0.113.9",
		UserAgent: "test", IsRead: read, CreatedAt: at(d), UpdatedAt: at(d),
		Values: []forms.Value{{FieldName: "name", FieldLabel: "Name", FieldType: forms.TypeText, Value: str("Ann"), DisplayValue: "Ann", CreatedAt: at(d)}}}
	require.NoError(t, s.CreateSubmission(ctx, sub, nil))
	return sub
}

// RunStoreTests checks newStore's stores against the forms.Store
// contract. Each subtest gets a fresh store.
func RunStoreTests(t *testing.T, newStore func(t *testing.T) forms.Store) {
	testkit.RunAreas(t, newStore, []testkit.Area[forms.Store]{
		{Name: "Forms", Run: exerciseForms},
		{Name: "ListFormsAndCounts", Run: exerciseListFormsAndCounts},
		{Name: "SlugsLike", Run: exerciseSlugsLike},
		{Name: "Fields", Run: exerciseFields},
		{Name: "Steps", Run: exerciseSteps},
		{Name: "Versions", Run: exerciseVersions},
		{Name: "SubmissionsWithoutUploads", Run: exerciseSubmissionsWithoutUploads},
		{Name: "Submissions", Run: exerciseSubmissions},
		{Name: "ListFilterFlagDelete", Run: exerciseListFilterFlagDelete},
		{Name: "ReleaseSpam", Run: exerciseReleaseSpam},
		{Name: "KeptUploads", Run: exerciseKeptUploads},
		{Name: "EachSubmissionInBatches", Run: exerciseEachSubmissionInBatches},
		{Name: "DeleteFormCascades", Run: exerciseDeleteFormCascades},
		{Name: "DeleteSubmissionsReturnsUploadKeys", Run: exerciseDeleteSubmissionsReturnsUploadKeys},
		{Name: "Notifications", Run: exerciseNotifications},
	})
}

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
	n, err := s.ReleaseSpam(ctx, f.ID, ids, at(time.Hour), func(context.Context, *sql.Tx, []int64) error { return boom })
	require.ErrorIs(t, err, boom)
	require.Zero(t, n)
	require.True(t, spam(a.ID), "a failed then undoes the release")

	var got []int64
	n, err = s.ReleaseSpam(ctx, f.ID, ids, at(time.Hour), func(_ context.Context, tx *sql.Tx, released []int64) error {
		require.NotNil(t, tx)
		got = released
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, []int64{a.ID, b.ID}, got)
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
			n, err := s.ReleaseSpam(ctx, f.ID, []int64{a.ID}, at(time.Hour), func(context.Context, *sql.Tx, []int64) error {
				time.Sleep(50 * time.Millisecond) // hold the transaction while the other tries
				return nil
			})
			if err != nil {
				n = -1
			}
			results <- n
		}()
	}
	require.Equal(t, 1, <-results+<-results)
	n, err = s.ReleaseSpam(ctx, f.ID, nil, at(0), nil)
	require.NoError(t, err)
	require.Zero(t, n)
}

// exerciseForms is the Forms part of RunStoreTests.
func exerciseForms(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	redirect := "https://example.test/thanks"
	f := &forms.Form{Name: "Contact", Slug: "contact", Description: "Say hi", SubmitButtonText: "Send", SuccessMessage: "Thanks!",
		RedirectURL: &redirect, IsActive: true, IsMultiStep: true, ShowProgressBar: true, AllowStepNavigation: true,
		CreatedAt: at(0), UpdatedAt: at(0)}
	require.NoError(t, s.CreateForm(ctx, f))
	require.Positive(t, f.ID)

	got, err := s.Form(ctx, f.ID)
	require.NoError(t, err)
	want := *f
	want.CreatedAt, want.UpdatedAt = exact(0), exact(0)
	want.MinFillSeconds = new(int64(forms.MinFillSecondsDefault)) // nil saves as the default
	require.Equal(t, want, *got)
	require.Equal(t, time.UTC, got.CreatedAt.Location())
	bySlug, err := s.FormBySlug(ctx, "contact")
	require.NoError(t, err)
	require.Equal(t, got, bySlug)

	require.ErrorIs(t, s.CreateForm(ctx, &forms.Form{Name: "Other", Slug: "contact", CreatedAt: at(0), UpdatedAt: at(0)}), forms.ErrSlugTaken)
	other := newForm(t, s, "other", time.Minute)
	other.Slug = "contact"
	require.ErrorIs(t, s.UpdateForm(ctx, other), forms.ErrSlugTaken)

	got.Name, got.RedirectURL, got.IsActive, got.UpdatedAt = "Contact us", nil, false, at(time.Hour)
	got.MinFillSeconds = new(int64(0))
	require.NoError(t, s.UpdateForm(ctx, got))
	again, err := s.Form(ctx, f.ID)
	require.NoError(t, err)
	require.Equal(t, int64(0), *again.MinFillSeconds)
	require.Equal(t, "Contact us", again.Name)
	require.Nil(t, again.RedirectURL)
	require.False(t, again.IsActive)
	require.Equal(t, exact(0), again.CreatedAt)
	require.Equal(t, exact(time.Hour), again.UpdatedAt)

	_, err = s.Form(ctx, 999999)
	require.ErrorIs(t, err, forms.ErrNotFound)
	_, err = s.FormBySlug(ctx, "nope")
	require.ErrorIs(t, err, forms.ErrNotFound)
	require.ErrorIs(t, s.UpdateForm(ctx, &forms.Form{ID: 999999, Slug: "x"}), forms.ErrNotFound)
	_, err = s.DeleteForm(ctx, 999999)
	require.ErrorIs(t, err, forms.ErrNotFound)
}

// exerciseListFormsAndCounts is the ListFormsAndCounts part of RunStoreTests.
func exerciseListFormsAndCounts(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	a := newForm(t, s, "a", 0)
	b := newForm(t, s, "b", time.Minute)
	c := newForm(t, s, "c", time.Minute) // same time as b: the ID breaks the tie
	c.IsActive = false
	require.NoError(t, s.UpdateForm(ctx, c))
	newSubmission(t, s, a.ID, 0, false)
	newSubmission(t, s, a.ID, time.Second, true)
	newSubmission(t, s, a.ID, 2*time.Second, false)

	all, total, err := s.ListForms(ctx, forms.FormQuery{Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 3, total)
	require.Equal(t, []int64{c.ID, b.ID, a.ID}, ids(all))
	require.Equal(t, 3, all[2].TotalSubmissions)
	require.Equal(t, 2, all[2].UnreadSubmissions)
	require.Zero(t, all[0].TotalSubmissions)

	yes, no := true, false
	active, total, err := s.ListForms(ctx, forms.FormQuery{Active: &yes, Limit: 1, Offset: 1})
	require.NoError(t, err)
	require.Equal(t, 2, total)
	require.Equal(t, []int64{a.ID}, ids(active))
	inactive, total, err := s.ListForms(ctx, forms.FormQuery{Active: &no, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	require.Equal(t, []int64{c.ID}, ids(inactive))
	past, _, err := s.ListForms(ctx, forms.FormQuery{Offset: 10, Limit: 10})
	require.NoError(t, err)
	require.Empty(t, past)

	got, err := s.Form(ctx, a.ID)
	require.NoError(t, err)
	require.Zero(t, got.TotalSubmissions, "a single read leaves counting to SubmissionCounts")
	total, unread, err := s.SubmissionCounts(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, 3, total)
	require.Equal(t, 2, unread)
	total, unread, err = s.SubmissionCounts(ctx, b.ID)
	require.NoError(t, err)
	require.Zero(t, total)
	require.Zero(t, unread)
}

// exerciseSlugsLike is the SlugsLike part of RunStoreTests.
func exerciseSlugsLike(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	for _, slug := range []string{"contact", "contact-1", "contact-2", "contact-us", "contacts", "a_b", "axb-1", "a_b-3"} {
		newForm(t, s, slug, 0)
	}
	got, err := s.SlugsLike(ctx, "contact")
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"contact", "contact-1", "contact-2", "contact-us"}, got)
	got, err = s.SlugsLike(ctx, "a_b")
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"a_b", "a_b-3"}, got, "underscores are not wildcards")
	got, err = s.SlugsLike(ctx, "none")
	require.NoError(t, err)
	require.Empty(t, got)
}

// exerciseFields is the Fields part of RunStoreTests.
func exerciseFields(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	other := newForm(t, s, "g", 0)
	step := &forms.Step{FormID: f.ID, Title: "One", NextButtonText: "Next", PrevButtonText: "Previous", CreatedAt: at(0), UpdatedAt: at(0)}
	require.NoError(t, s.CreateStep(ctx, step))

	min, max := 2.0, 50.5
	email := &forms.Field{FormID: f.ID, UUID: "00000000-0000-4000-8000-000000000001", Name: "email", Type: forms.TypeEmail,
		Label: "Email", Placeholder: "you@example.com", HelpText: "We reply here.", IsRequired: true,
		ValidationRules: forms.ValidationRules{Min: &min, Max: &max, Pattern: "/@/"},
		FieldConfig:     map[string]any{"options": []any{map[string]any{"value": "a", "label": "A"}}, "rows": 4.0},
		DefaultValue:    "x", Width: "half", CSSClasses: "wide",
		ConditionalLogic: &forms.Logic{Action: "show", Logic: "all", Rules: []forms.Rule{{Field: "name", Operator: "equals", Value: "Ann"}}},
		CreatedAt:        at(0), UpdatedAt: at(0)}
	require.NoError(t, s.CreateField(ctx, email))
	require.Equal(t, 1, email.SortOrder)
	second := newField(t, s, f.ID, "name", nil)
	require.Equal(t, 2, second.SortOrder)
	inStep := newField(t, s, f.ID, "age", &step.ID)
	require.Equal(t, 1, inStep.SortOrder, "sort orders count per step")
	newField(t, s, other.ID, "email", nil) // names are unique per form only

	dup := &forms.Field{FormID: f.ID, UUID: "00000000-0000-4000-8000-000000000099", Name: "email", Type: forms.TypeText,
		Width: "full", CreatedAt: at(0), UpdatedAt: at(0)}
	require.ErrorIs(t, s.CreateField(ctx, dup), forms.ErrConflict)

	fields, err := s.Fields(ctx, f.ID)
	require.NoError(t, err)
	require.Len(t, fields, 3)
	got := fields[0]
	require.Equal(t, email.ID, got.ID)
	require.Equal(t, email.ValidationRules, got.ValidationRules)
	require.Equal(t, email.FieldConfig, got.FieldConfig)
	require.Equal(t, email.ConditionalLogic, got.ConditionalLogic)
	require.Equal(t, "you@example.com", got.Placeholder)
	require.Equal(t, exact(0), got.CreatedAt)
	require.Nil(t, fields[1].ConditionalLogic)
	require.Equal(t, map[string]any{}, fields[1].FieldConfig)

	got.Label, got.Name, got.StepID, got.ConditionalLogic, got.UpdatedAt = "E-mail", "mail", &step.ID, nil, at(time.Hour)
	require.NoError(t, s.UpdateField(ctx, &got))
	got.Name = "name"
	require.ErrorIs(t, s.UpdateField(ctx, &got), forms.ErrConflict)
	fields, err = s.Fields(ctx, f.ID)
	require.NoError(t, err)
	updated := find(fields, email.ID)
	require.Equal(t, "mail", updated.Name)
	require.Equal(t, step.ID, *updated.StepID)
	require.Nil(t, updated.ConditionalLogic)
	require.Equal(t, email.UUID, updated.UUID)
	require.Equal(t, exact(time.Hour), updated.UpdatedAt)

	require.NoError(t, s.SetFieldOrder(ctx, f.ID, []forms.FieldPlace{{ID: second.ID, SortOrder: 1}, {ID: email.ID, StepID: &step.ID, SortOrder: 5}}))
	fields, err = s.Fields(ctx, f.ID)
	require.NoError(t, err)
	require.Equal(t, []int64{second.ID, inStep.ID, email.ID}, fieldIDs(fields))
	require.ErrorIs(t, s.SetFieldOrder(ctx, other.ID, []forms.FieldPlace{{ID: second.ID, SortOrder: 1}}), forms.ErrNotFound)

	// FormWithFields reads what Form and Fields read, by slug or ID.
	for _, ref := range []struct {
		id   int64
		slug string
	}{{0, "f"}, {f.ID, ""}} {
		gotForm, gotFields, err := s.FormWithFields(ctx, ref.id, ref.slug)
		require.NoError(t, err)
		wantForm, err := s.Form(ctx, f.ID)
		require.NoError(t, err)
		require.Equal(t, wantForm, gotForm)
		wantFields, err := s.Fields(ctx, f.ID)
		require.NoError(t, err)
		require.Equal(t, wantFields, gotFields)
	}
	bare := newForm(t, s, "bare", 0)
	gotForm, gotFields, err := s.FormWithFields(ctx, 0, "bare")
	require.NoError(t, err)
	require.Equal(t, bare.ID, gotForm.ID)
	require.NotNil(t, gotFields)
	require.Empty(t, gotFields)
	_, _, err = s.FormWithFields(ctx, 0, "missing")
	require.ErrorIs(t, err, forms.ErrNotFound)
	_, _, err = s.FormWithFields(ctx, bare.ID+1000, "")
	require.ErrorIs(t, err, forms.ErrNotFound)

	wrongForm := updated
	wrongForm.FormID = other.ID
	require.ErrorIs(t, s.UpdateField(ctx, &wrongForm), forms.ErrNotFound)
	require.ErrorIs(t, s.DeleteField(ctx, other.ID, second.ID), forms.ErrNotFound)
	require.NoError(t, s.DeleteField(ctx, f.ID, second.ID))
	require.ErrorIs(t, s.DeleteField(ctx, f.ID, second.ID), forms.ErrNotFound)
	fields, err = s.Fields(ctx, f.ID)
	require.NoError(t, err)
	require.Len(t, fields, 2)
	none, err := s.Fields(ctx, 999999)
	require.NoError(t, err)
	require.Empty(t, none)
}

// exerciseSteps is the Steps part of RunStoreTests.
func exerciseSteps(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	other := newForm(t, s, "g", 0)
	var steps []*forms.Step
	for _, title := range []string{"One", "Two", "Three"} {
		st := &forms.Step{FormID: f.ID, Title: title, Description: title + "!", NextButtonText: "Next", PrevButtonText: "Back",
			CreatedAt: at(0), UpdatedAt: at(0)}
		require.NoError(t, s.CreateStep(ctx, st))
		steps = append(steps, st)
	}
	require.Equal(t, 3, steps[2].SortOrder)
	a := newField(t, s, f.ID, "a", &steps[0].ID)
	b := newField(t, s, f.ID, "b", &steps[0].ID)
	c := newField(t, s, f.ID, "c", &steps[1].ID)

	steps[1].Title, steps[1].UpdatedAt = "Deux", at(time.Hour)
	require.NoError(t, s.UpdateStep(ctx, steps[1]))
	wrong := *steps[1]
	wrong.FormID = other.ID
	require.ErrorIs(t, s.UpdateStep(ctx, &wrong), forms.ErrNotFound)

	require.NoError(t, s.SetStepOrder(ctx, f.ID, []int64{steps[2].ID, steps[0].ID, steps[1].ID}))
	got, err := s.Steps(ctx, f.ID)
	require.NoError(t, err)
	require.Equal(t, []int64{steps[2].ID, steps[0].ID, steps[1].ID}, stepIDs(got))
	require.Equal(t, "Deux", got[2].Title)
	require.Equal(t, "Two!", got[2].Description)
	require.Equal(t, exact(time.Hour), got[2].UpdatedAt)
	require.ErrorIs(t, s.SetStepOrder(ctx, other.ID, []int64{steps[0].ID}), forms.ErrNotFound)

	// Deleting step one appends its fields, in order, after step two's.
	require.NoError(t, s.DeleteStep(ctx, f.ID, steps[0].ID, &steps[1].ID))
	fields, err := s.Fields(ctx, f.ID)
	require.NoError(t, err)
	for _, fd := range fields {
		require.Equal(t, steps[1].ID, *fd.StepID)
	}
	require.Equal(t, []int64{c.ID, a.ID, b.ID}, fieldIDs(fields))
	// Without a target, the fields leave every step.
	require.NoError(t, s.DeleteStep(ctx, f.ID, steps[1].ID, nil))
	fields, err = s.Fields(ctx, f.ID)
	require.NoError(t, err)
	for _, fd := range fields {
		require.Nil(t, fd.StepID)
	}
	require.ErrorIs(t, s.DeleteStep(ctx, other.ID, steps[2].ID, nil), forms.ErrNotFound)
	require.ErrorIs(t, s.DeleteStep(ctx, f.ID, steps[0].ID, nil), forms.ErrNotFound)
	got, err = s.Steps(ctx, f.ID)
	require.NoError(t, err)
	require.Len(t, got, 1)
}

// exerciseVersions is the Versions part of RunStoreTests.
func exerciseVersions(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	f := newForm(t, s, "f", 0)
	other := newForm(t, s, "g", 0)
	require.Equal(t, int64(1), f.Version)
	version := func(id int64) int64 {
		t.Helper()
		got, err := s.Form(ctx, id)
		require.NoError(t, err)
		return got.Version
	}
	want := int64(1)
	changed := func(what string) {
		t.Helper()
		want++
		require.Equal(t, want, version(f.ID), what)
	}
	f.Description, f.UpdatedAt = "changed", at(time.Minute)
	require.NoError(t, s.UpdateForm(ctx, f))
	require.Equal(t, int64(2), f.Version, "UpdateForm sets the new version")
	changed("UpdateForm")
	a := newField(t, s, f.ID, "a", nil)
	changed("CreateField")
	b := newField(t, s, f.ID, "b", nil)
	changed("CreateField")
	a.Label = "A"
	require.NoError(t, s.UpdateField(ctx, a))
	changed("UpdateField")
	require.NoError(t, s.SetFieldOrder(ctx, f.ID, []forms.FieldPlace{{ID: b.ID, SortOrder: 1}, {ID: a.ID, SortOrder: 2}}))
	changed("SetFieldOrder")
	step := &forms.Step{FormID: f.ID, Title: "One", CreatedAt: at(0), UpdatedAt: at(0)}
	require.NoError(t, s.CreateStep(ctx, step))
	changed("CreateStep")
	step.Title = "First"
	require.NoError(t, s.UpdateStep(ctx, step))
	changed("UpdateStep")
	require.NoError(t, s.SetStepOrder(ctx, f.ID, []int64{step.ID}))
	changed("SetStepOrder")
	require.NoError(t, s.DeleteStep(ctx, f.ID, step.ID, nil))
	changed("DeleteStep")
	require.NoError(t, s.DeleteField(ctx, f.ID, b.ID))
	changed("DeleteField")
	n := &forms.Notification{FormID: f.ID, Type: forms.NotificationAdmin, Subject: "New", Recipients: "a@example.test", Message: "Hi",
		IsEnabled: true, CreatedAt: at(0), UpdatedAt: at(0)}
	require.NoError(t, s.CreateNotification(ctx, n))
	changed("CreateNotification")
	n.Subject = "Newer"
	require.NoError(t, s.UpdateNotification(ctx, n))
	changed("UpdateNotification")
	require.NoError(t, s.DeleteNotification(ctx, f.ID, n.ID))
	changed("DeleteNotification")
	require.ErrorIs(t, s.DeleteNotification(ctx, f.ID, n.ID), forms.ErrNotFound)

	// Failed changes leave the version alone, and so do other forms'.
	require.ErrorIs(t, s.DeleteField(ctx, f.ID, b.ID), forms.ErrNotFound)
	dup := *a
	dup.ID, dup.UUID = 0, "dup-uuid"
	require.ErrorIs(t, s.CreateField(ctx, &dup), forms.ErrConflict)
	require.ErrorIs(t, s.SetFieldOrder(ctx, f.ID, []forms.FieldPlace{{ID: a.ID, SortOrder: 1}, {ID: b.ID, SortOrder: 2}}), forms.ErrNotFound)
	require.Equal(t, want, version(f.ID))
	require.Equal(t, int64(1), version(other.ID))

	// A submission validated against the current version is stored;
	// one validated against an older version is refused, on every
	// path (with or without then, with or without uploads), and then
	// is not called.
	value := func() []forms.Value {
		return []forms.Value{{FieldName: "a", FieldLabel: "A", FieldType: forms.TypeText, Value: str("x"), DisplayValue: "x", CreatedAt: at(0)}}
	}
	current := &forms.Submission{FormID: f.ID, FormVersion: want, CreatedAt: at(0), UpdatedAt: at(0), Values: value()}
	require.NoError(t, s.CreateSubmission(ctx, current, nil))
	require.Positive(t, current.ID)
	for _, c := range []struct {
		name    string
		then    bool
		uploads bool
	}{{"plain", false, false}, {"then", true, false}, {"uploads", false, true}, {"uploads and then", true, true}} {
		stale := &forms.Submission{FormID: f.ID, FormVersion: want - 1, CreatedAt: at(0), UpdatedAt: at(0), Values: value()}
		if c.uploads {
			stale.Uploads = []forms.Upload{{FieldName: "cv", OriginalName: "cv.pdf", StoredName: "s.pdf", Key: "uploads/s.pdf",
				MimeType: "application/pdf", Size: 1, CreatedAt: at(0)}}
		}
		var then func(context.Context, *sql.Tx) error
		called := false
		if c.then {
			then = func(context.Context, *sql.Tx) error { called = true; return nil }
		}
		require.ErrorIs(t, s.CreateSubmission(ctx, stale, then), forms.ErrStale, c.name)
		require.False(t, called, c.name)
	}
	_, total, err := s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total, "only the current submission was stored")

	// A form deleted since is stale too.
	_, err = s.DeleteForm(ctx, other.ID)
	require.NoError(t, err)
	gone := &forms.Submission{FormID: other.ID, FormVersion: 1, CreatedAt: at(0), UpdatedAt: at(0), Values: value()}
	require.ErrorIs(t, s.CreateSubmission(ctx, gone, nil), forms.ErrStale)
	gone.FormVersion = 0
	require.ErrorIs(t, s.CreateSubmission(ctx, gone, nil), forms.ErrNotFound)
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
	for _, withThen := range []bool{false, true} {
		sub := &forms.Submission{FormID: f.ID, IPAddress: "192.0.2.1", CreatedAt: at(time.Second), UpdatedAt: at(time.Second), Values: values()}
		var then func(context.Context, *sql.Tx) error
		calls := 0
		if withThen {
			then = func(context.Context, *sql.Tx) error { calls++; return nil }
		}
		require.NoError(t, s.CreateSubmission(ctx, sub, then))
		if withThen {
			require.Equal(t, 1, calls)
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
	require.NoError(t, s.CreateSubmission(ctx, bare, nil))
	require.Positive(t, bare.ID)
	got, err := s.Submission(ctx, f.ID, bare.ID)
	require.NoError(t, err)
	require.Empty(t, got.Values)

	// A failing then rolls back the short path too.
	boom := errors.New("boom")
	err = s.CreateSubmission(ctx, &forms.Submission{FormID: f.ID, CreatedAt: at(time.Hour), UpdatedAt: at(time.Hour), Values: values()},
		func(context.Context, *sql.Tx) error { return boom })
	require.ErrorIs(t, err, boom)
	_, total, err := s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 3, total)

	// A submission of a missing form (deleted since it was read) is
	// refused with ErrNotFound, not half-stored.
	err = s.CreateSubmission(ctx, &forms.Submission{FormID: f.ID + 1000, CreatedAt: at(0), UpdatedAt: at(0), Values: values()}, nil)
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
	var calls int
	require.NoError(t, s.CreateSubmission(ctx, sub, func(context.Context, *sql.Tx) error { calls++; return nil }))
	require.Equal(t, 1, calls)
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
	_, err = s.Upload(ctx, sub.ID+1000, u.ID)
	require.ErrorIs(t, err, forms.ErrNotFound)
	_, err = s.Submission(ctx, other.ID, sub.ID)
	require.ErrorIs(t, err, forms.ErrNotFound)

	// A failing callback rolls the submission back.
	boom := errors.New("boom")
	failed := &forms.Submission{FormID: f.ID, CreatedAt: at(time.Hour), UpdatedAt: at(time.Hour),
		Values: []forms.Value{{FieldName: "name", FieldLabel: "Name", FieldType: forms.TypeText, Value: str("Bob"), CreatedAt: at(0)}}}
	err = s.CreateSubmission(ctx, failed, func(context.Context, *sql.Tx) error { return boom })
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
		require.NoError(t, s.CreateSubmission(ctx, sub, nil))
	}
	kept := newSubmission(t, s, keep.ID, 0, false)

	keys, err := s.DeleteForm(ctx, f.ID)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"uploads/f/1.pdf", "uploads/f/2.png"}, keys)
	_, err = s.Form(ctx, f.ID)
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
	require.NoError(t, s.CreateSubmission(ctx, sub, nil))
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

	got, err := s.Notification(ctx, f.ID, n.ID)
	require.NoError(t, err)
	got.Subject, got.IsEnabled, got.ConditionalLogic, got.UpdatedAt = "Changed", false, nil, at(time.Hour)
	require.NoError(t, s.UpdateNotification(ctx, got))
	again, err := s.Notification(ctx, f.ID, n.ID)
	require.NoError(t, err)
	require.Equal(t, "Changed", again.Subject)
	require.False(t, again.IsEnabled)
	require.Nil(t, again.ConditionalLogic)
	require.Equal(t, exact(0), again.CreatedAt)
	require.Equal(t, exact(time.Hour), again.UpdatedAt)

	_, err = s.Notification(ctx, other.ID, n.ID)
	require.ErrorIs(t, err, forms.ErrNotFound)
	wrong := *again
	wrong.FormID = other.ID
	require.ErrorIs(t, s.UpdateNotification(ctx, &wrong), forms.ErrNotFound)
	require.ErrorIs(t, s.DeleteNotification(ctx, other.ID, n.ID), forms.ErrNotFound)
	require.NoError(t, s.DeleteNotification(ctx, f.ID, n.ID))
	_, err = s.Notification(ctx, f.ID, n.ID)
	require.ErrorIs(t, err, forms.ErrNotFound)
}

func ids(fs []forms.Form) []int64 {
	out := make([]int64, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

func fieldIDs(fs []forms.Field) []int64 {
	out := make([]int64, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

func stepIDs(ss []forms.Step) []int64 {
	out := make([]int64, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}

func submissionIDs(ss []forms.Submission) []int64 {
	out := make([]int64, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}

func find(fs []forms.Field, id int64) forms.Field {
	for _, f := range fs {
		if f.ID == id {
			return f
		}
	}
	return forms.Field{}
}
