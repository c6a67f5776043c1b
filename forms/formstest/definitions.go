package formstest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formsstore"
)

// exerciseForms is the Forms part of RunStoreTests.
func exerciseForms(t *testing.T, newStore func(t *testing.T) forms.Store) {
	t.Parallel()
	s := newStore(t)
	redirect := "https://example.test/thanks"
	f := &forms.Form{Name: "Contact", Slug: "contact", Description: "Say hi", SubmitButtonText: "Send", SuccessMessage: "Thanks!",
		RedirectURL: &redirect, IsActive: true, IsMultiStep: true, ShowProgressBar: true, AllowStepNavigation: true,
		OnePerPerson: true, FormSettings: forms.FormSettings{IdentifyBy: forms.IdentifyByEmail},
		CreatedAt: at(0), UpdatedAt: at(0)}
	require.NoError(t, s.CreateForm(ctx, f))
	require.Positive(t, f.ID)

	got, err := s.Form(ctx, f.ID, "")
	require.NoError(t, err)
	want := *f
	want.CreatedAt, want.UpdatedAt = exact(0), exact(0)
	want.MinFillSeconds = new(int64(forms.MinFillSecondsDefault)) // nil saves as the default
	require.Equal(t, want, *got)
	require.Equal(t, time.UTC, got.CreatedAt.Location())
	bySlug, err := s.Form(ctx, 0, "contact")
	require.NoError(t, err)
	require.Equal(t, got, bySlug)

	require.ErrorIs(t, s.CreateForm(ctx, &forms.Form{Name: "Other", Slug: "contact", CreatedAt: at(0), UpdatedAt: at(0)}), forms.ErrSlugTaken)
	other := newForm(t, s, "other", time.Minute)
	other.Slug = "contact"
	require.ErrorIs(t, s.UpdateForm(ctx, other), forms.ErrSlugTaken)

	got.Name, got.RedirectURL, got.IsActive, got.UpdatedAt = "Contact us", nil, false, at(time.Hour)
	got.MinFillSeconds = new(int64(0))
	got.IdentifyBy = forms.IdentifyByInvitation
	require.NoError(t, s.UpdateForm(ctx, got))
	again, err := s.Form(ctx, f.ID, "")
	require.NoError(t, err)
	require.Equal(t, int64(0), *again.MinFillSeconds)
	require.Equal(t, "Contact us", again.Name)
	require.Equal(t, forms.IdentifyByInvitation, again.IdentifyBy, "the settings are saved whole")
	require.Nil(t, again.RedirectURL)
	require.False(t, again.IsActive)
	require.Equal(t, exact(0), again.CreatedAt)
	require.Equal(t, exact(time.Hour), again.UpdatedAt)

	_, err = s.Form(ctx, 999999, "")
	require.ErrorIs(t, err, forms.ErrNotFound)
	_, err = s.Form(ctx, 0, "nope")
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

	all, total, err := s.ListForms(ctx, formsstore.FormQuery{Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 3, total)
	require.Equal(t, []int64{c.ID, b.ID, a.ID}, ids(all))
	require.Equal(t, 3, all[2].TotalSubmissions)
	require.Equal(t, 2, all[2].UnreadSubmissions)
	require.Zero(t, all[0].TotalSubmissions)

	yes, no := true, false
	active, total, err := s.ListForms(ctx, formsstore.FormQuery{Active: &yes, Limit: 1, Offset: 1})
	require.NoError(t, err)
	require.Equal(t, 2, total)
	require.Equal(t, []int64{a.ID}, ids(active))
	inactive, total, err := s.ListForms(ctx, formsstore.FormQuery{Active: &no, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	require.Equal(t, []int64{c.ID}, ids(inactive))
	past, _, err := s.ListForms(ctx, formsstore.FormQuery{Offset: 10, Limit: 10})
	require.NoError(t, err)
	require.Empty(t, past)

	// A tenant's forms: its own, kept through updates; "" is the default.
	acme := &forms.Form{Name: "Acme", Slug: "acme", CreatedAt: at(2 * time.Minute), UpdatedAt: at(2 * time.Minute), Tenant: "acme"}
	require.NoError(t, s.CreateForm(ctx, acme))
	acme.Name = "Acme's"
	require.NoError(t, s.UpdateForm(ctx, acme))
	for tenant, want := range map[string][]int64{"acme": {acme.ID}, "": {c.ID, b.ID, a.ID}, "other": {}} {
		list, total, err := s.ListForms(ctx, formsstore.FormQuery{Tenant: &tenant, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, len(want), total, tenant)
		require.Equal(t, want, ids(list), tenant)
	}
	byID, err := s.Form(ctx, acme.ID, "")
	require.NoError(t, err)
	require.Equal(t, "acme", byID.Tenant)
	bySlug, fields, err := s.FormWithFields(ctx, 0, "acme")
	require.NoError(t, err)
	require.Empty(t, fields)
	require.Equal(t, "acme", bySlug.Tenant)

	got, err := s.Form(ctx, a.ID, "")
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

	require.NoError(t, s.SetFieldOrder(ctx, f.ID, []formsstore.FieldPlace{{ID: second.ID, SortOrder: 1}, {ID: email.ID, StepID: &step.ID, SortOrder: 5}}))
	fields, err = s.Fields(ctx, f.ID)
	require.NoError(t, err)
	require.Equal(t, []int64{second.ID, inStep.ID, email.ID}, fieldIDs(fields))
	require.ErrorIs(t, s.SetFieldOrder(ctx, other.ID, []formsstore.FieldPlace{{ID: second.ID, SortOrder: 1}}), forms.ErrNotFound)

	// FormWithFields reads what Form and Fields read, by slug or ID.
	for _, ref := range []struct {
		id   int64
		slug string
	}{{0, "f"}, {f.ID, ""}} {
		gotForm, gotFields, err := s.FormWithFields(ctx, ref.id, ref.slug)
		require.NoError(t, err)
		wantForm, err := s.Form(ctx, f.ID, "")
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
		got, err := s.Form(ctx, id, "")
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
	require.NoError(t, s.SetFieldOrder(ctx, f.ID, []formsstore.FieldPlace{{ID: b.ID, SortOrder: 1}, {ID: a.ID, SortOrder: 2}}))
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
	require.ErrorIs(t, s.SetFieldOrder(ctx, f.ID, []formsstore.FieldPlace{{ID: a.ID, SortOrder: 1}, {ID: b.ID, SortOrder: 2}}), forms.ErrNotFound)
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
	require.NoError(t, s.CreateSubmission(ctx, current))
	require.Positive(t, current.ID)
	for _, c := range []struct {
		name    string
		inTx    bool
		uploads bool
	}{{"plain", false, false}, {"in a transaction", true, false}, {"uploads", false, true}, {"uploads in a transaction", true, true}} {
		stale := &forms.Submission{FormID: f.ID, FormVersion: want - 1, CreatedAt: at(0), UpdatedAt: at(0), Values: value()}
		if c.uploads {
			stale.Uploads = []forms.Upload{{FieldName: "cv", OriginalName: "cv.pdf", StoredName: "s.pdf", Key: "uploads/s.pdf",
				MimeType: "application/pdf", Size: 1, CreatedAt: at(0)}}
		}
		if c.inTx {
			require.ErrorIs(t, s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error { return s.CreateSubmission(ctx, stale) }),
				forms.ErrStale, c.name)
		} else {
			require.ErrorIs(t, s.CreateSubmission(ctx, stale), forms.ErrStale, c.name)
		}
	}
	_, total, err := s.ListSubmissions(ctx, forms.SubmissionQuery{FormID: f.ID, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total, "only the current submission was stored")

	// A form deleted since is stale too.
	_, err = s.DeleteForm(ctx, other.ID)
	require.NoError(t, err)
	gone := &forms.Submission{FormID: other.ID, FormVersion: 1, CreatedAt: at(0), UpdatedAt: at(0), Values: value()}
	require.ErrorIs(t, s.CreateSubmission(ctx, gone), forms.ErrStale)
	gone.FormVersion = 0
	require.ErrorIs(t, s.CreateSubmission(ctx, gone), forms.ErrNotFound)
}
