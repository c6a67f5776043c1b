// Package formstest holds the conformance suite every [forms.Store] must
// pass ([RunStoreTests]), and an in-memory Store ([NewFake]) for a host's
// own tests that need a forms.Service and no database (its hooks, say).
//
// The fake passes the same suite as formssql on SQLite and Postgres. For
// anything the suite does not pin (ordering at scale, SQL errors, several
// instances) test on formssql: a SQLite file under t.TempDir() is fast
// and exact.
package formstest

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Fake is an in-memory forms.Store, safe for concurrent use. It keeps
// times as the SQL store does (UTC, microseconds) and copies values in and
// out, so callers never share memory with it. CreateSubmission calls its
// callback with a nil transaction.
type Fake struct {
	mu            sync.Mutex
	nextID        int64
	forms         map[int64]forms.Form
	fields        map[int64]forms.Field
	steps         map[int64]forms.Step
	submissions   map[int64]forms.Submission
	notifications map[int64]forms.Notification
}

var _ forms.Store = (*Fake)(nil)

// NewFake returns an empty store.
func NewFake() *Fake {
	return &Fake{forms: map[int64]forms.Form{}, fields: map[int64]forms.Field{}, steps: map[int64]forms.Step{},
		submissions: map[int64]forms.Submission{}, notifications: map[int64]forms.Notification{}}
}

func (f *Fake) id() int64 {
	f.nextID++
	return f.nextID
}

func norm(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// deep copies v through JSON, as a database round trip would.
func deep[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// deepForm is deep for a form, keeping its version (not part of its JSON).
func deepForm(fm forms.Form) forms.Form {
	out := deep(fm)
	out.Version = fm.Version
	return out
}

// counts fills a form's submission counts.
func (f *Fake) counts(fm forms.Form) forms.Form {
	fm.TotalSubmissions, fm.UnreadSubmissions = 0, 0
	for _, s := range f.submissions {
		if s.FormID == fm.ID {
			fm.TotalSubmissions++
			if !s.IsRead {
				fm.UnreadSubmissions++
			}
		}
	}
	return fm
}

// bump increments a form's version: its definition changed.
func (f *Fake) bump(formID int64) {
	if fm, ok := f.forms[formID]; ok {
		fm.Version++
		f.forms[formID] = fm
	}
}

func (f *Fake) slugTaken(slug string, except int64) bool {
	for _, fm := range f.forms {
		if fm.Slug == slug && fm.ID != except {
			return true
		}
	}
	return false
}

// CreateForm implements forms.Store.
func (f *Fake) CreateForm(_ context.Context, fm *forms.Form) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.slugTaken(fm.Slug, 0) {
		return forms.ErrSlugTaken
	}
	fm.ID, fm.Version = f.id(), 1
	fm.CreatedAt, fm.UpdatedAt = norm(fm.CreatedAt), norm(fm.UpdatedAt)
	fm.TotalSubmissions, fm.UnreadSubmissions = 0, 0
	f.forms[fm.ID] = deepForm(*fm)
	return nil
}

// UpdateForm implements forms.Store.
func (f *Fake) UpdateForm(_ context.Context, fm *forms.Form) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	old, ok := f.forms[fm.ID]
	if !ok {
		return forms.ErrNotFound
	}
	if f.slugTaken(fm.Slug, fm.ID) {
		return forms.ErrSlugTaken
	}
	next := deepForm(*fm)
	next.CreatedAt, next.UpdatedAt = old.CreatedAt, norm(fm.UpdatedAt)
	next.Version = old.Version + 1
	next.TotalSubmissions, next.UnreadSubmissions = 0, 0
	fm.Version = next.Version
	f.forms[fm.ID] = next
	return nil
}

// DeleteForm implements forms.Store.
func (f *Fake) DeleteForm(_ context.Context, id int64) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.forms[id]; !ok {
		return nil, forms.ErrNotFound
	}
	var keys []string
	for _, s := range f.sortedSubmissions(id) {
		for _, u := range s.Uploads {
			keys = append(keys, u.Key)
		}
		delete(f.submissions, s.ID)
	}
	slices.Sort(keys)
	delete(f.forms, id)
	for k, v := range f.fields {
		if v.FormID == id {
			delete(f.fields, k)
		}
	}
	for k, v := range f.steps {
		if v.FormID == id {
			delete(f.steps, k)
		}
	}
	for k, v := range f.notifications {
		if v.FormID == id {
			delete(f.notifications, k)
		}
	}
	return keys, nil
}

// Form implements forms.Store.
func (f *Fake) Form(_ context.Context, id int64) (*forms.Form, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fm, ok := f.forms[id]
	if !ok {
		return nil, forms.ErrNotFound
	}
	out := deepForm(fm)
	return &out, nil
}

// SubmissionCounts implements forms.Store.
func (f *Fake) SubmissionCounts(_ context.Context, formID int64) (int, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.counts(forms.Form{ID: formID})
	return c.TotalSubmissions, c.UnreadSubmissions, nil
}

// FormWithFields implements forms.Store.
func (f *Fake) FormWithFields(ctx context.Context, id int64, slug string) (*forms.Form, []forms.Field, error) {
	var fm *forms.Form
	var err error
	if slug != "" {
		fm, err = f.FormBySlug(ctx, slug)
	} else {
		fm, err = f.Form(ctx, id)
	}
	if err != nil {
		return nil, nil, err
	}
	fields, err := f.Fields(ctx, fm.ID)
	return fm, fields, err
}

// FormBySlug implements forms.Store.
func (f *Fake) FormBySlug(_ context.Context, slug string) (*forms.Form, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fm := range f.forms {
		if fm.Slug == slug {
			out := deepForm(fm)
			return &out, nil
		}
	}
	return nil, forms.ErrNotFound
}

// newestFirst orders by creation time, then ID, both descending.
func newestFirst(a, b time.Time, aID, bID int64) int {
	if c := b.Compare(a); c != 0 {
		return c
	}
	return cmp.Compare(bID, aID)
}

// ListForms implements forms.Store.
func (f *Fake) ListForms(_ context.Context, q forms.FormQuery) ([]forms.Form, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []forms.Form
	for _, fm := range f.forms {
		if q.Active == nil || fm.IsActive == *q.Active {
			all = append(all, deepForm(f.counts(fm)))
		}
	}
	slices.SortFunc(all, func(a, b forms.Form) int { return newestFirst(a.CreatedAt, b.CreatedAt, a.ID, b.ID) })
	return storetest.Page(all, q.Offset, q.Limit), len(all), nil
}

// SlugsLike implements forms.Store.
func (f *Fake) SlugsLike(_ context.Context, base string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, fm := range f.forms {
		if fm.Slug == base || strings.HasPrefix(fm.Slug, base+"-") {
			out = append(out, fm.Slug)
		}
	}
	return out, nil
}

func sameStep(a, b *int64) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

// Fields implements forms.Store.
func (f *Fake) Fields(_ context.Context, formID int64) ([]forms.Field, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fieldsOf(formID), nil
}

func (f *Fake) fieldsOf(formID int64) []forms.Field {
	out := []forms.Field{}
	for _, fd := range f.fields {
		if fd.FormID == formID {
			out = append(out, deep(fd))
		}
	}
	slices.SortFunc(out, func(a, b forms.Field) int {
		return cmp.Or(cmp.Compare(a.SortOrder, b.SortOrder), cmp.Compare(a.ID, b.ID))
	})
	return out
}

func (f *Fake) nameTaken(formID int64, name string, except int64) bool {
	for _, fd := range f.fields {
		if fd.FormID == formID && fd.Name == name && fd.ID != except {
			return true
		}
	}
	return false
}

func (f *Fake) lastFieldOrder(formID int64, step *int64) int {
	last := 0
	for _, fd := range f.fields {
		if fd.FormID == formID && sameStep(fd.StepID, step) {
			last = max(last, fd.SortOrder)
		}
	}
	return last
}

// CreateField implements forms.Store.
func (f *Fake) CreateField(_ context.Context, fd *forms.Field) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nameTaken(fd.FormID, fd.Name, 0) {
		return forms.ErrConflict
	}
	fd.ID = f.id()
	fd.SortOrder = f.lastFieldOrder(fd.FormID, fd.StepID) + 1
	fd.CreatedAt, fd.UpdatedAt = norm(fd.CreatedAt), norm(fd.UpdatedAt)
	if fd.FieldConfig == nil {
		fd.FieldConfig = map[string]any{}
	}
	f.fields[fd.ID] = deep(*fd)
	f.bump(fd.FormID)
	return nil
}

// UpdateField implements forms.Store.
func (f *Fake) UpdateField(_ context.Context, fd *forms.Field) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	old, ok := f.fields[fd.ID]
	if !ok || old.FormID != fd.FormID {
		return forms.ErrNotFound
	}
	if f.nameTaken(fd.FormID, fd.Name, fd.ID) {
		return forms.ErrConflict
	}
	next := deep(*fd)
	next.UUID, next.CreatedAt, next.UpdatedAt = old.UUID, old.CreatedAt, norm(fd.UpdatedAt)
	if next.FieldConfig == nil {
		next.FieldConfig = map[string]any{}
	}
	f.fields[fd.ID] = next
	f.bump(fd.FormID)
	return nil
}

// DeleteField implements forms.Store.
func (f *Fake) DeleteField(_ context.Context, formID, id int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fd, ok := f.fields[id]; !ok || fd.FormID != formID {
		return forms.ErrNotFound
	}
	delete(f.fields, id)
	f.bump(formID)
	return nil
}

// SetFieldOrder implements forms.Store.
func (f *Fake) SetFieldOrder(_ context.Context, formID int64, order []forms.FieldPlace) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range order {
		if fd, ok := f.fields[p.ID]; !ok || fd.FormID != formID {
			return forms.ErrNotFound
		}
	}
	for _, p := range order {
		fd := f.fields[p.ID]
		fd.StepID, fd.SortOrder = deep(p.StepID), p.SortOrder
		f.fields[p.ID] = fd
	}
	f.bump(formID)
	return nil
}

// Steps implements forms.Store.
func (f *Fake) Steps(_ context.Context, formID int64) ([]forms.Step, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []forms.Step{}
	for _, s := range f.steps {
		if s.FormID == formID {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b forms.Step) int {
		return cmp.Or(cmp.Compare(a.SortOrder, b.SortOrder), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// CreateStep implements forms.Store.
func (f *Fake) CreateStep(_ context.Context, s *forms.Step) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	last := 0
	for _, st := range f.steps {
		if st.FormID == s.FormID {
			last = max(last, st.SortOrder)
		}
	}
	s.ID, s.SortOrder = f.id(), last+1
	s.CreatedAt, s.UpdatedAt = norm(s.CreatedAt), norm(s.UpdatedAt)
	f.steps[s.ID] = *s
	f.bump(s.FormID)
	return nil
}

// UpdateStep implements forms.Store.
func (f *Fake) UpdateStep(_ context.Context, s *forms.Step) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	old, ok := f.steps[s.ID]
	if !ok || old.FormID != s.FormID {
		return forms.ErrNotFound
	}
	old.Title, old.Description, old.NextButtonText, old.PrevButtonText = s.Title, s.Description, s.NextButtonText, s.PrevButtonText
	old.UpdatedAt = norm(s.UpdatedAt)
	f.steps[s.ID] = old
	f.bump(s.FormID)
	return nil
}

// DeleteStep implements forms.Store.
func (f *Fake) DeleteStep(_ context.Context, formID, id int64, moveTo *int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if st, ok := f.steps[id]; !ok || st.FormID != formID {
		return forms.ErrNotFound
	}
	last := f.lastFieldOrder(formID, moveTo)
	for k, fd := range f.fields {
		if fd.FormID == formID && fd.StepID != nil && *fd.StepID == id {
			fd.StepID, fd.SortOrder = deep(moveTo), fd.SortOrder+last
			f.fields[k] = fd
		}
	}
	delete(f.steps, id)
	f.bump(formID)
	return nil
}

// SetStepOrder implements forms.Store.
func (f *Fake) SetStepOrder(_ context.Context, formID int64, ids []int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		if st, ok := f.steps[id]; !ok || st.FormID != formID {
			return forms.ErrNotFound
		}
	}
	for i, id := range ids {
		st := f.steps[id]
		st.SortOrder = i + 1
		f.steps[id] = st
	}
	f.bump(formID)
	return nil
}

// CreateSubmission implements forms.Store.
func (f *Fake) CreateSubmission(ctx context.Context, s *forms.Submission, then func(context.Context, *sql.Tx) error) error {
	f.mu.Lock()
	if fm, ok := f.forms[s.FormID]; !ok || (s.FormVersion != 0 && fm.Version != s.FormVersion) {
		f.mu.Unlock()
		if s.FormVersion != 0 {
			return forms.ErrStale
		}
		return forms.ErrNotFound
	}
	s.ID = f.id()
	s.CreatedAt, s.UpdatedAt = norm(s.CreatedAt), norm(s.UpdatedAt)
	uploadIDs := map[string]int64{}
	for i := range s.Uploads {
		u := &s.Uploads[i]
		u.ID, u.SubmissionID, u.CreatedAt = f.id(), s.ID, norm(u.CreatedAt)
		uploadIDs[u.FieldName] = u.ID
	}
	for i := range s.Values {
		v := &s.Values[i]
		v.ID, v.SubmissionID, v.CreatedAt = f.id(), s.ID, norm(v.CreatedAt)
		if id, ok := uploadIDs[v.FieldName]; ok && v.FieldType == forms.TypeFile {
			v.UploadID = &id
		}
	}
	sub := copySubmission(*s)
	f.submissions[sub.ID] = sub
	f.mu.Unlock()
	if then != nil {
		if err := then(ctx, nil); err != nil {
			f.mu.Lock()
			delete(f.submissions, sub.ID)
			f.mu.Unlock()
			return err
		}
	}
	return nil
}

// copySubmission copies s deeply, keeping the fields JSON leaves out.
func copySubmission(s forms.Submission) forms.Submission {
	out := deep(s)
	out.IPAddress, out.UserAgent = s.IPAddress, s.UserAgent
	if out.Values == nil {
		out.Values = []forms.Value{}
	}
	if out.Uploads == nil {
		out.Uploads = []forms.Upload{}
	}
	for i := range out.Uploads {
		out.Uploads[i].Key, out.Uploads[i].StoredName = s.Uploads[i].Key, s.Uploads[i].StoredName
	}
	return out
}

// Submission implements forms.Store.
func (f *Fake) Submission(_ context.Context, formID, id int64) (*forms.Submission, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.submissions[id]
	if !ok || s.FormID != formID {
		return nil, forms.ErrNotFound
	}
	out := copySubmission(s)
	return &out, nil
}

func (f *Fake) sortedSubmissions(formID int64) []forms.Submission {
	var all []forms.Submission
	for _, s := range f.submissions {
		if s.FormID == formID {
			all = append(all, s)
		}
	}
	slices.SortFunc(all, func(a, b forms.Submission) int { return newestFirst(a.CreatedAt, b.CreatedAt, a.ID, b.ID) })
	return all
}

func matches(flag *bool, v bool) bool { return flag == nil || *flag == v }

// ListSubmissions implements forms.Store.
func (f *Fake) ListSubmissions(_ context.Context, q forms.SubmissionQuery) ([]forms.Submission, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []forms.Submission
	for _, s := range f.sortedSubmissions(q.FormID) {
		if matches(q.IsRead, s.IsRead) && matches(q.IsSpam, s.IsSpam) && matches(q.IsStarred, s.IsStarred) {
			all = append(all, copySubmission(s))
		}
	}
	return storetest.Page(all, q.Offset, q.Limit), len(all), nil
}

// EachSubmission implements forms.Store.
func (f *Fake) EachSubmission(_ context.Context, formID int64, fn func(*forms.Submission) error) error {
	f.mu.Lock()
	all := f.sortedSubmissions(formID)
	for i := range all {
		all[i] = copySubmission(all[i])
	}
	f.mu.Unlock()
	for i := range all {
		if err := fn(&all[i]); err != nil {
			return err
		}
	}
	return nil
}

// UpdateSubmission implements forms.Store.
func (f *Fake) UpdateSubmission(_ context.Context, s *forms.Submission) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	old, ok := f.submissions[s.ID]
	if !ok || old.FormID != s.FormID {
		return forms.ErrNotFound
	}
	old.IsRead, old.IsSpam, old.IsStarred, old.AdminNotes, old.UpdatedAt = s.IsRead, s.IsSpam, s.IsStarred, s.AdminNotes, norm(s.UpdatedAt)
	f.submissions[s.ID] = old
	return nil
}

// SetSubmissionFlag implements forms.Store.
func (f *Fake) SetSubmissionFlag(_ context.Context, formID int64, ids []int64, flag forms.Flag, value bool, at time.Time) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, id := range ids {
		s, ok := f.submissions[id]
		if !ok || s.FormID != formID {
			continue
		}
		switch flag {
		case forms.FlagRead:
			s.IsRead = value
		case forms.FlagSpam:
			s.IsSpam = value
		case forms.FlagStarred:
			s.IsStarred = value
		}
		s.UpdatedAt = norm(at)
		f.submissions[id] = s
		n++
	}
	return n, nil
}

// DeleteSubmissions implements forms.Store.
func (f *Fake) DeleteSubmissions(_ context.Context, formID int64, ids []int64) (int, []string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	var keys []string
	for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		s, ok := f.submissions[id]
		if !ok || s.FormID != formID {
			continue
		}
		for _, u := range s.Uploads {
			keys = append(keys, u.Key)
		}
		delete(f.submissions, id)
		n++
	}
	return n, keys, nil
}

// Upload implements forms.Store.
func (f *Fake) Upload(_ context.Context, submissionID, id int64) (*forms.Upload, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.submissions[submissionID]
	if !ok {
		return nil, forms.ErrNotFound
	}
	for _, u := range copySubmission(s).Uploads {
		if u.ID == id {
			return &u, nil
		}
	}
	return nil, forms.ErrNotFound
}

// Notifications implements forms.Store.
func (f *Fake) Notifications(_ context.Context, formID int64) ([]forms.Notification, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []forms.Notification{}
	for _, n := range f.notifications {
		if n.FormID == formID {
			out = append(out, deep(n))
		}
	}
	slices.SortFunc(out, func(a, b forms.Notification) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// Notification implements forms.Store.
func (f *Fake) Notification(_ context.Context, formID, id int64) (*forms.Notification, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.notifications[id]
	if !ok || n.FormID != formID {
		return nil, forms.ErrNotFound
	}
	out := deep(n)
	return &out, nil
}

// CreateNotification implements forms.Store.
func (f *Fake) CreateNotification(_ context.Context, n *forms.Notification) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n.ID = f.id()
	n.CreatedAt, n.UpdatedAt = norm(n.CreatedAt), norm(n.UpdatedAt)
	f.notifications[n.ID] = deep(*n)
	f.bump(n.FormID)
	return nil
}

// UpdateNotification implements forms.Store.
func (f *Fake) UpdateNotification(_ context.Context, n *forms.Notification) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	old, ok := f.notifications[n.ID]
	if !ok || old.FormID != n.FormID {
		return forms.ErrNotFound
	}
	next := deep(*n)
	next.CreatedAt, next.UpdatedAt = old.CreatedAt, norm(n.UpdatedAt)
	f.notifications[n.ID] = next
	f.bump(n.FormID)
	return nil
}

// DeleteNotification implements forms.Store.
func (f *Fake) DeleteNotification(_ context.Context, formID, id int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, ok := f.notifications[id]; !ok || n.FormID != formID {
		return forms.ErrNotFound
	}
	delete(f.notifications, id)
	f.bump(formID)
	return nil
}
