package formssql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"golang.org/x/sync/errgroup"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
)

func submissionFilter(q forms.SubmissionQuery, dialect store.Dialect) (string, []any) {
	return filterBy(q, dialect, false)
}

// filterBy is submissionFilter, its answers probed per submission when
// probe is set: a filter that most submissions pass reads a page by
// walking the list and asking each submission (EXISTS, on the index by
// submission) rather than by first reading every submission that passes
// (IN, on the index by answer), which is what a filter few pass wants.
// An answer the index by answer does not hold (free text) is always
// probed.
func filterBy(q forms.SubmissionQuery, dialect store.Dialect, probe bool) (string, []any) {
	where, args := []string{"form_id = ?"}, []any{q.FormID}
	if q.FormID == 0 && q.Payment != "" {
		where, args = nil, nil // every form's, by their payment
	}
	if q.Payment != "" {
		where, args = append(where, "payment_status = ?"), append(args, q.Payment)
	}
	for _, f := range []struct {
		col string
		v   *bool
	}{{"is_read", q.IsRead}, {"is_spam", q.IsSpam}, {"is_starred", q.IsStarred}} {
		if f.v != nil {
			where, args = append(where, f.col+" = ?"), append(args, *f.v)
		}
	}
	for _, a := range q.Answers {
		var match string
		keyed := slices.Contains(answerIndexTypes, a.Type)
		args = append(args, a.Field)
		switch multi := a.Type == forms.TypeCheckboxGroup || a.Type == forms.TypeSelectMultiple || a.Type == forms.TypeMatrix; {
		case a.Rank > 0 && dialect == store.Postgres:
			// A ranking's item at its place in the list.
			match, args = `v.value_array->>(?::int) = ?`, append(args, a.Rank-1, a.Value)
		case a.Rank > 0:
			match, args = `json_extract(v.value_array, ?) = ?`, append(args, "$["+strconv.Itoa(a.Rank-1)+"]", a.Value)
		case multi && dialect == store.Postgres:
			// A list is kept as jsonb: the item in it.
			list, _ := json.Marshal([]string{a.Value})
			match, args = `v.value_array @> ?::jsonb`, append(args, string(list))
		case multi:
			// A list is kept as JSON: the item, quoted as JSON quotes it,
			// anywhere in it.
			item, _ := json.Marshal(a.Value)
			match, args = `v.value_array LIKE ? ESCAPE '\'`, append(args, "%"+likeEscaper.Replace(string(item))+"%")
		case len(a.AnyOf) > 0:
			// One of a few short values (an NPS group's scores).
			match = `substr(v.value, 1, 200) IN (?` + strings.Repeat(`, ?`, len(a.AnyOf)-1) + `)`
			for _, v := range a.AnyOf {
				args = append(args, v)
			}
		case utf8.RuneCountInString(a.Value) < answerIndexChars:
			// The index holds a value's first 200 characters: a shorter
			// value is found whole in it; a longer one by them, then
			// compared whole.
			match, args = `substr(v.value, 1, 200) = ?`, append(args, a.Value)
		default:
			match, args = `substr(v.value, 1, 200) = substr(?, 1, 200) AND v.value = ?`, append(args, a.Value, a.Value)
		}
		if keyed {
			// As the index holds them: answers kept as of those types
			// (an answer kept before its field changed type is not).
			match = `v.field_type IN ` + answerIndexed + ` AND ` + match
		}
		if probe || !keyed {
			where = append(where, `EXISTS (SELECT 1 FROM forms_values v WHERE v.submission_id = forms_submissions.id AND v.field_name = ? AND `+match+`)`)
		} else {
			where = append(where, `id IN (SELECT v.submission_id FROM forms_values v WHERE v.field_name = ? AND `+match+`)`)
		}
	}
	if q.Search != "" {
		// Any answer holding it: a value, or an item of a list (kept as
		// JSON text on SQLite, jsonb on Postgres).
		list := "v.value_array"
		if dialect == store.Postgres {
			list = "v.value_array::text"
		}
		pattern := "%" + likeEscaper.Replace(strings.ToLower(q.Search)) + "%"
		where = append(where, `EXISTS (SELECT 1 FROM forms_values v WHERE v.submission_id = forms_submissions.id AND
			(lower(v.value) LIKE ? ESCAPE '\' OR lower(`+list+`) LIKE ? ESCAPE '\'))`)
		args = append(args, pattern, pattern)
	}
	return strings.Join(where, " AND "), args
}

// answerIndexTypes are the field types whose answers the index by answer
// holds (forms_values_answer, a partial index on them): answerIndexed in
// SQL.
var answerIndexTypes = []forms.FieldType{forms.TypeEmail, forms.TypeSelect, forms.TypeRadio, forms.TypeCheckbox, forms.TypeHidden, forms.TypeNumber,
	forms.TypePhone, forms.TypeDate}

const answerIndexed = `('email', 'select', 'radio', 'checkbox', 'hidden', 'number', 'phone', 'date')`

// selectPage reads a page's rows. A page filtered by answer is planned
// for its own answer on Postgres: a plan kept for the statement knows
// neither the answer nor how many pass, takes any answer for a rare one,
// and reads every submission that has it where a common one wants the
// list walked and each submission asked.
func (s *Store) selectPage(ctx context.Context, rows *[]submissionRow, byAnswer bool, query string, args ...any) error {
	return s.planned(ctx, byAnswer, func(q sqlx.QueryerContext) error { return sqlx.SelectContext(ctx, q, rows, query, args...) })
}

// planned runs read, a read of submissions filtered by answer when
// byAnswer, planned for its own values on Postgres (see selectPage).
func (s *Store) planned(ctx context.Context, byAnswer bool, read func(sqlx.QueryerContext) error) error {
	if !byAnswer || s.db.Dialect() != store.Postgres {
		return read(s.db.Reader())
	}
	tx, err := s.db.Reader().BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, pagePlanning); err != nil {
		return err
	}
	if err := read(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// pagePlanning plans a transaction's statements for their own values,
// without workers in parallel (not worth their start for a page).
const pagePlanning = `SET LOCAL plan_cache_mode = force_custom_plan; SET LOCAL max_parallel_workers_per_gather = 0`

// answerIndexChars is how much of a value the answer index holds.
const answerIndexChars = 200

// likeEscaper escapes LIKE's wildcards and its escape character.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// ListSubmissions implements forms.Store. A filter with a list index
// (see Store) takes its total from it and seeks to the page by key;
// otherwise the count and the page are read at once on two connections,
// and a large count gets the filter an index for the next request.
func (s *Store) ListSubmissions(ctx context.Context, q forms.SubmissionQuery) ([]forms.Submission, int, error) {
	where, args := submissionFilter(q, s.db.Dialect())
	// A list long enough to index is one many pass: it is indexed, and
	// paged, by probing each submission for its answers.
	long, longArgs := where, args
	if len(q.Answers) > 0 {
		long, longArgs = filterBy(q, s.db.Dialect(), true)
	}
	// A search is not indexed: each is its own list, typed once.
	searched := q.Search != "" || q.FormID == 0
	if idx := s.lists.get(q.FormID, long, longArgs); idx != nil && !searched {
		subs, err := s.page(ctx, long, longArgs, q, idx)
		if err != nil {
			return nil, 0, err
		}
		return subs, idx.total, nil
	}
	var total int
	var count errgroup.Group
	count.Go(func() error {
		err := s.planned(ctx, len(q.Answers) > 0, func(db sqlx.QueryerContext) error {
			return sqlx.GetContext(ctx, db, &total, s.q(`SELECT COUNT(*) FROM forms_submissions WHERE `+where), args...)
		})
		if err != nil {
			return fmt.Errorf("formssql: count submissions: %w", err)
		}
		return nil
	})
	subs, err := s.page(ctx, where, args, q, nil)
	if err := count.Wait(); err != nil {
		return nil, 0, err
	}
	if err != nil {
		return nil, 0, err
	}
	if !searched {
		s.lists.counted(q.FormID, long, longArgs, total)
	}
	return subs, total, nil
}

// page reads a page of submissions with their values and uploads: from
// the top, or from the anchor of idx before the page.
func (s *Store) page(ctx context.Context, where string, args []any, q forms.SubmissionQuery, idx *listIndex) ([]forms.Submission, error) {
	var rows []submissionRow
	// A deferred join: the page's ids come from the covering index
	// (form_id, created_at, id, flags) alone, so the rows an OFFSET steps
	// over are index entries, not table rows.
	query, params := pageQuery(where, false), append(slices.Clip(args), q.Limit, q.Offset)
	if idx != nil {
		if key, skip, ok := idx.anchor(q.Offset, s.lists.every); ok {
			query, params = pageQuery(where, true), append(slices.Clip(args), key.createdAt, key.id, q.Limit, skip)
		}
	}
	if err := s.selectPage(ctx, &rows, len(q.Answers) > 0, s.q(query), params...); err != nil {
		return nil, fmt.Errorf("formssql: list submissions: %w", err)
	}
	subs := make([]forms.Submission, len(rows))
	for i, r := range rows {
		subs[i] = r.submission()
	}
	if err := s.attach(ctx, subs); err != nil {
		return nil, fmt.Errorf("formssql: list submissions: %w", err)
	}
	return subs, nil
}

// eachBatch is how many submissions EachSubmission reads at a time.
const eachBatch = 500

// EachSubmission implements forms.Store. Batches follow one another by
// key, (created_at, id) below the last one read, which both databases
// answer from the index (form_id, created_at, id): each batch costs the
// same however deep it is. Values carry their field name and display
// value only, scanned without reflection: an export reads millions.
func (s *Store) EachSubmission(ctx context.Context, formID int64, fn func(*forms.Submission) error) error {
	db := s.db.Reader()
	first := s.q(`SELECT ` + submissionColumns + ` FROM forms_submissions WHERE form_id = ?
		ORDER BY created_at DESC, id DESC LIMIT ?`)
	next := s.q(`SELECT ` + submissionColumns + ` FROM forms_submissions WHERE form_id = ?
		AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?`)
	var last *forms.Submission
	for {
		var rows *sql.Rows
		var err error
		if last == nil {
			rows, err = db.QueryContext(ctx, first, formID, eachBatch)
		} else {
			rows, err = db.QueryContext(ctx, next, formID, store.NewTime(last.CreatedAt), last.ID, eachBatch)
		}
		if err != nil {
			return fmt.Errorf("formssql: each submission: %w", err)
		}
		subs, err := scanSubmissions(rows)
		if err == nil {
			err = s.attachDisplayValues(ctx, subs)
		}
		if err != nil {
			return fmt.Errorf("formssql: each submission: %w", err)
		}
		for i := range subs {
			if err := fn(&subs[i]); err != nil {
				return err
			}
		}
		if len(subs) < eachBatch {
			return nil
		}
		last = &subs[len(subs)-1]
	}
}

// scanSubmissions reads rows of submissionColumns and closes them.
func scanSubmissions(rows *sql.Rows) ([]forms.Submission, error) {
	defer rows.Close()
	subs := make([]forms.Submission, 0, eachBatch)
	for rows.Next() {
		var r submissionRow
		if err := rows.Scan(&r.ID, &r.FormID, &r.PageURL, &r.ReferrerURL, &r.IPAddress, &r.UserAgent, &r.IsRead, &r.IsSpam,
			&r.IsStarred, &r.AdminNotes, &r.CreatedAt, &r.UpdatedAt, &r.Routed, &r.Visit, &r.Payment); err != nil {
			return nil, err
		}
		subs = append(subs, r.submission())
	}
	return subs, rows.Err()
}

// attachDisplayValues reads the field name and display value of every
// value of subs.
func (s *Store) attachDisplayValues(ctx context.Context, subs []forms.Submission) error {
	if len(subs) == 0 {
		return nil
	}
	ids := make([]any, len(subs))
	index := make(map[int64]int, len(subs))
	for i := range subs {
		ids[i] = subs[i].ID
		index[subs[i].ID] = i
	}
	// A matrix's and a ranking's lists too: their parts take a column
	// each.
	rows, err := s.db.Reader().QueryContext(ctx, s.q(`SELECT submission_id, field_name, display_value,
		CASE WHEN field_type IN ('matrix', 'ranking') THEN value_array END FROM forms_values
		WHERE submission_id IN (?`+strings.Repeat(", ?", len(ids)-1)+`) ORDER BY submission_id, id`), ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var v forms.Value
		var list store.JSON[[]string]
		if err := rows.Scan(&id, &v.FieldName, &v.DisplayValue, &list); err != nil {
			return err
		}
		v.ValueArray = list.V
		i := index[id]
		subs[i].Values = append(subs[i].Values, v)
	}
	return rows.Err()
}
