package forms

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/tenant"
)

// ListSubmissions lists a form's submissions, newest first.
func (s *Service) ListSubmissions(ctx context.Context, q SubmissionQuery) ([]Submission, int, error) {
	subs, total, err := s.store.ListSubmissions(ctx, q)
	if err != nil {
		return nil, 0, fmt.Errorf("forms: list submissions: %w", err)
	}
	return subs, total, nil
}

// answerFiltersMax is the most answers a list may be filtered by.
const answerFiltersMax = 5

// AnswerFilters reads the answer filters of a list's query:
// field[<name>]=<value>, each a field of form that takes answers, at
// most answerFiltersMax; anything else is a *ValidationError at the
// parameter.
func (s *Service) AnswerFilters(ctx context.Context, form *Form, query url.Values) ([]AnswerFilter, error) {
	var names []string
	for key := range query {
		if name, ok := strings.CutPrefix(key, "field["); ok && strings.HasSuffix(name, "]") {
			names = append(names, strings.TrimSuffix(name, "]"))
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	slices.Sort(names)
	fields, err := s.Fields(ctx, form.ID)
	if err != nil {
		return nil, err
	}
	v := &api.Validator{}
	if len(names) > answerFiltersMax {
		v.Add("field", fmt.Sprintf("A list may be filtered by at most %d answers.", answerFiltersMax))
	}
	var out []AnswerFilter
	for _, key := range names {
		name, part, parted := strings.Cut(key, ".")
		key = "field[" + key + "]"
		i := slices.IndexFunc(fields, func(f Field) bool { return f.Name == name })
		switch {
		case i < 0 || isLayout(fields[i].Type) || fields[i].Type == TypeFile:
			v.Add(key, "The form has no field "+strconv.Quote(name)+" that takes answers to filter by.")
		case parted && fields[i].Type != TypeMatrix && fields[i].Type != TypeRanking:
			v.Add(key, "The field "+strconv.Quote(name)+" has no parts: filter by field["+name+"].")
		case len(query[key]) != 1:
			v.Add(key, "Give one value for "+key+".")
		default:
			a := AnswerFilter{Field: name, Value: query[key][0], Type: fields[i].Type}
			if group, ok := npsGroups[a.Value]; ok && a.Type == TypeNPS {
				a.AnyOf = group
			}
			if err := partFilter(&a, part, parted); err != "" {
				v.Add(key, err)
				continue
			}
			out = append(out, a)
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// partFilter reads a matrix's or a ranking's filter: field[m.row]=column
// keeps the answers with that column in that row; field[r.item]=2 those
// that put the item second, and field[r]=item those that put it first.
// It returns what is wrong, or "".
func partFilter(a *AnswerFilter, part string, parted bool) string {
	switch {
	case a.Type == TypeMatrix && parted:
		a.Value = part + "=" + a.Value
	case a.Type == TypeMatrix:
		if !strings.Contains(a.Value, "=") {
			return "Filter a matrix by a row's answer: field[" + a.Field + ".row]=answer."
		}
	case a.Type == TypeRanking && parted:
		place, err := strconv.Atoi(a.Value)
		if err != nil || place < 1 || place > partsMax {
			return fmt.Sprintf("Give a place from 1 to %d.", partsMax)
		}
		a.Value, a.Rank = part, place
	case a.Type == TypeRanking:
		a.Rank = 1
	}
	return ""
}

// npsGroups are the scores of an NPS field's groups, which a list filters
// by as by a score (?field[nps]=promoters).
var npsGroups = map[string][]string{"promoters": {"9", "10"}, "passives": {"7", "8"}, "detractors": {"0", "1", "2", "3", "4", "5", "6"}}

// Submission returns one submission of a form, with values and uploads.
func (s *Service) Submission(ctx context.Context, formID, id int64) (*Submission, error) {
	sub, err := s.store.Submission(ctx, formID, id)
	if err != nil {
		return nil, fmt.Errorf("forms: submission: %w", wrapNotFound(err, "Submission"))
	}
	return sub, nil
}

// UpdateSubmission saves a submission's flags and admin notes; its values
// never change.
func (s *Service) UpdateSubmission(ctx context.Context, sub *Submission) error {
	v := &api.Validator{}
	maxChars(v, "admin_notes", sub.AdminNotes, 5000)
	if err := v.Err(); err != nil {
		return err
	}
	if !sub.IsSpam {
		if _, err := s.releaseSpam(ctx, sub.FormID, []int64{sub.ID}); err != nil {
			return fmt.Errorf("forms: update submission: %w", wrapNotFound(err, "Submission"))
		}
	}
	sub.UpdatedAt = s.now()
	if err := s.store.UpdateSubmission(ctx, sub); err != nil {
		return fmt.Errorf("forms: update submission: %w", wrapNotFound(err, "Submission"))
	}
	return nil
}

// DeleteSubmission deletes a submission and its files.
func (s *Service) DeleteSubmission(ctx context.Context, formID, id int64) error {
	n, keys, err := s.store.DeleteSubmissions(ctx, formID, []int64{id})
	if err != nil {
		return fmt.Errorf("forms: delete submission: %w", err)
	}
	if n == 0 {
		return notFound("Submission")
	}
	s.removeBlobs(ctx, keys)
	return nil
}

// releaseSpam marks those of the listed submissions of the form kept as
// spam as not spam, and treats each as a submission just made: its
// notifications are queued and the Tx hooks run in the same transaction,
// the other hooks once it has committed. Of two admins releasing one
// submission at once, one does it. It returns how many it released.
func (s *Service) releaseSpam(ctx context.Context, formID int64, ids []int64) (int, error) {
	spam := map[int64]*Submission{}
	for _, id := range ids {
		sub, err := s.store.Submission(ctx, formID, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if sub.IsSpam {
			spam[id] = sub
		}
	}
	if len(spam) == 0 {
		return 0, nil
	}
	form, err := s.store.Form(ctx, formID, "")
	if err != nil {
		return 0, err
	}
	fields, err := s.store.Fields(ctx, formID)
	if err != nil {
		return 0, err
	}
	names := fieldNames(fields)
	var notifications []Notification
	if s.enqueuer != nil {
		if notifications, err = s.store.Notifications(ctx, formID); err != nil {
			return 0, err
		}
	}
	txHooks := s.hooks.submissionTx.All()
	// The release and what it sets off (the notifications' jobs, the
	// hosts' hooks) commit together.
	var events []SubmissionEvent
	err = s.store.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		released, err := s.store.ReleaseSpam(ctx, formID, slices.Collect(maps.Keys(spam)), s.now())
		if err != nil {
			return err
		}
		events = events[:0]
		for _, id := range released {
			sub := spam[id]
			sub.IsSpam = false
			event := SubmissionEvent{Form: form, Submission: sub}
			if err := s.acceptTx(ctx, tx, notifications, txHooks, event, storedAnswers(sub), names); err != nil {
				return err
			}
			events = append(events, event)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, event := range events {
		s.fireAccepted(ctx, event)
	}
	return len(events), nil
}

// storedAnswers are a stored submission's answers, by field name, as
// the notifications' conditions read them.
func storedAnswers(sub *Submission) answers {
	a := make(answers, len(sub.Values))
	for _, v := range sub.Values {
		switch {
		case len(v.ValueArray) > 0:
			a[v.FieldName] = v.ValueArray
		case v.Value != nil:
			a[v.FieldName] = []string{*v.Value}
		}
	}
	return a
}

// BulkAction is what Bulk does to the submissions it is given.
type BulkAction string

// Bulk actions on submissions.
const (
	BulkMarkRead    BulkAction = "mark_read"
	BulkMarkUnread  BulkAction = "mark_unread"
	BulkMarkSpam    BulkAction = "mark_spam"
	BulkMarkNotSpam BulkAction = "mark_not_spam"
	BulkDelete      BulkAction = "delete"
)

// Bulk applies action to the listed submissions of a form and returns how
// many it touched; IDs of other forms or of nothing are left alone.
func (s *Service) Bulk(ctx context.Context, formID int64, action BulkAction, ids []int64) (int, error) {
	v := &api.Validator{}
	if action == "" {
		v.Add("action", api.MsgRequired("action"))
	} else if !slices.Contains([]BulkAction{BulkMarkRead, BulkMarkUnread, BulkMarkSpam, BulkMarkNotSpam, BulkDelete}, action) {
		v.Add("action", api.MsgSelected("action"))
	}
	if len(ids) == 0 {
		v.Add("ids", api.MsgRequired("ids"))
	}
	if len(ids) > 1000 {
		v.Add("ids", api.MsgMaxItems("ids", 1000))
	}
	if err := v.Err(); err != nil {
		return 0, err
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	var n int
	var err error
	switch action {
	case BulkDelete:
		var keys []string
		n, keys, err = s.store.DeleteSubmissions(ctx, formID, ids)
		if err == nil {
			s.removeBlobs(ctx, keys)
		}
	case BulkMarkRead, BulkMarkUnread:
		n, err = s.store.SetSubmissionFlag(ctx, formID, ids, FlagRead, action == BulkMarkRead, s.now())
	case BulkMarkNotSpam:
		if _, err = s.releaseSpam(ctx, formID, ids); err == nil {
			n, err = s.store.SetSubmissionFlag(ctx, formID, ids, FlagSpam, false, s.now())
		}
	default:
		n, err = s.store.SetSubmissionFlag(ctx, formID, ids, FlagSpam, true, s.now())
	}
	if err != nil {
		return 0, fmt.Errorf("forms: bulk %s: %w", action, err)
	}
	return n, nil
}

// OpenUpload returns an upload of a submission and its content; an upload
// of another submission, or of another tenant's form when ctx acts for a
// tenant, is not found. The caller closes it.
func (s *Service) OpenUpload(ctx context.Context, submissionID, uploadID int64) (*Upload, io.ReadCloser, error) {
	u, err := s.store.Upload(ctx, submissionID, uploadID)
	if _, scoped := tenant.Of(ctx); err == nil && scoped {
		var f *Form
		if f, err = s.store.Form(ctx, u.FormID, ""); err == nil && !tenant.Sees(ctx, f.Tenant) {
			err = ErrNotFound
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("forms: upload: %w", wrapNotFound(err, "Upload"))
	}
	if s.blobs == nil {
		return nil, nil, notFound("File")
	}
	r, err := s.blobs.Open(ctx, u.Key)
	if err != nil {
		s.logger.WarnContext(ctx, "forms: an upload's file is missing", "key", u.Key, "error", err)
		return nil, nil, notFound("File")
	}
	return u, r, nil
}
