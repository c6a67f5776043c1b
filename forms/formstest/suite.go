package formstest

import (
	"context"
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
	require.NoError(t, s.CreateSubmission(ctx, sub))
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
		{Name: "Search", Run: exerciseSearch},
		{Name: "ReleaseSpam", Run: exerciseReleaseSpam},
		{Name: "KeptUploads", Run: exerciseKeptUploads},
		{Name: "Partials", Run: exercisePartials},
		{Name: "EachSubmissionInBatches", Run: exerciseEachSubmissionInBatches},
		{Name: "DeleteFormCascades", Run: exerciseDeleteFormCascades},
		{Name: "DeleteSubmissionsReturnsUploadKeys", Run: exerciseDeleteSubmissionsReturnsUploadKeys},
		{Name: "Notifications", Run: exerciseNotifications},
		{Name: "Payments", Run: exercisePayments},
	})
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
