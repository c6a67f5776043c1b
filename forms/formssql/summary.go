package formssql

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formsstore"
	"github.com/groundwork-go/groundwork/store"
)

// inRange is the join and condition of the values of a form's accepted
// submissions in a range (a paid form's, once paid); its arguments are
// form, false, from, to.
const inRange = `FROM forms_values v JOIN forms_submissions s ON s.id = v.submission_id
	WHERE s.form_id = ? AND s.is_spam = ? AND s.created_at >= ? AND s.created_at < ?
	AND (s.payment_status IS NULL OR s.payment_status = 'paid')`

// Summarize implements forms.Store.
func (s *Store) Summarize(ctx context.Context, q formsstore.SummaryQuery) (*forms.AnswerStats, error) {
	db := s.db.Reader()
	from, to := store.NewTime(q.From), store.NewTime(q.To)
	out := &forms.AnswerStats{Answered: map[string]int64{}, Counts: map[string]map[string]int64{}, Numbers: map[string]forms.NumberStats{},
		Latest: map[string][]forms.LatestAnswer{}, Saved: map[int]int64{}, Abandoned: map[int]int64{}}
	fail := func(err error) (*forms.AnswerStats, error) { return nil, fmt.Errorf("formssql: summarize: %w", err) }
	if err := db.GetContext(ctx, &out.Submissions, s.q(`SELECT COUNT(*) FROM forms_submissions
		WHERE form_id = ? AND is_spam = ? AND created_at >= ? AND created_at < ?
		AND (payment_status IS NULL OR payment_status = 'paid')`), q.FormID, false, from, to); err != nil {
		return fail(err)
	}
	var answered []struct {
		Field string `db:"field_name"`
		N     int64  `db:"n"`
	}
	if err := db.SelectContext(ctx, &answered, s.q(`SELECT v.field_name, COUNT(*) AS n `+inRange+`
		AND ((v.value IS NOT NULL AND v.value <> '') OR v.value_array IS NOT NULL OR v.upload_id IS NOT NULL) GROUP BY v.field_name`),
		q.FormID, false, from, to); err != nil {
		return fail(err)
	}
	for _, a := range answered {
		out.Answered[a.Field] = a.N
	}
	for _, part := range []func(context.Context, formsstore.SummaryQuery, *forms.AnswerStats) error{s.countChoices, s.describeAnswers, s.countSteps} {
		if err := part(ctx, q, out); err != nil {
			return fail(err)
		}
	}
	return out, nil
}

// countChoices counts the answers of the choice fields, single and
// several.
func (s *Store) countChoices(ctx context.Context, q formsstore.SummaryQuery, out *forms.AnswerStats) error {
	db := s.db.Reader()
	from, to := store.NewTime(q.From), store.NewTime(q.To)
	if len(q.Choices) > 0 {
		query, args, err := sqlx.In(`SELECT v.field_name, v.value, COUNT(*) AS n `+inRange+`
			AND v.field_name IN (?) AND v.value IS NOT NULL GROUP BY v.field_name, v.value`, q.FormID, false, from, to, q.Choices)
		if err != nil {
			return err
		}
		var rows []struct {
			Field string `db:"field_name"`
			Value string `db:"value"`
			N     int64  `db:"n"`
		}
		if err := db.SelectContext(ctx, &rows, s.q(query), args...); err != nil {
			return err
		}
		for _, r := range rows {
			count(out.Counts, r.Field, r.Value, r.N)
		}
	}
	if lists := slices.Concat(q.Lists, q.Ranks); len(lists) > 0 {
		// Several choices are kept as a JSON list a row: counted here,
		// the list read once; a ranking's items at their places.
		query, args, err := sqlx.In(`SELECT v.field_name, v.value_array `+inRange+`
			AND v.field_name IN (?) AND v.value_array IS NOT NULL`, q.FormID, false, from, to, lists)
		if err != nil {
			return err
		}
		rows, err := db.QueryxContext(ctx, s.q(query), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var field, raw string
			if err := rows.Scan(&field, &raw); err != nil {
				return err
			}
			var items []string
			if json.Unmarshal([]byte(raw), &items) == nil {
				ranked := slices.Contains(q.Ranks, field)
				for i, it := range items {
					if ranked {
						it += "=" + strconv.Itoa(i+1)
					}
					count(out.Counts, field, it, 1)
				}
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// describeAnswers gives the number fields' count, average, least and
// most, and the text fields' latest answers.
func (s *Store) describeAnswers(ctx context.Context, q formsstore.SummaryQuery, out *forms.AnswerStats) error {
	db := s.db.Reader()
	from, to := store.NewTime(q.From), store.NewTime(q.To)
	if len(q.Numbers) > 0 {
		query, args, err := sqlx.In(`SELECT v.field_name, COUNT(*) AS n, AVG(CAST(v.value AS DOUBLE PRECISION)) AS average,
			MIN(CAST(v.value AS DOUBLE PRECISION)) AS least, MAX(CAST(v.value AS DOUBLE PRECISION)) AS most `+inRange+`
			AND v.field_name IN (?) AND v.value IS NOT NULL AND v.value <> '' GROUP BY v.field_name`, q.FormID, false, from, to, q.Numbers)
		if err != nil {
			return err
		}
		var rows []struct {
			Field   string  `db:"field_name"`
			N       int64   `db:"n"`
			Average float64 `db:"average"`
			Least   float64 `db:"least"`
			Most    float64 `db:"most"`
		}
		if err := db.SelectContext(ctx, &rows, s.q(query), args...); err != nil {
			return err
		}
		for _, r := range rows {
			out.Numbers[r.Field] = forms.NumberStats{Count: r.N, Average: r.Average, Min: r.Least, Max: r.Most}
		}
	}
	for _, field := range q.Texts {
		var rows []struct {
			Value string     `db:"value"`
			At    store.Time `db:"created_at"`
		}
		if err := db.SelectContext(ctx, &rows, s.q(`SELECT v.value, s.created_at `+inRange+`
			AND v.field_name = ? AND v.value IS NOT NULL AND v.value <> '' ORDER BY s.created_at DESC, s.id DESC LIMIT ?`),
			q.FormID, false, from, to, field, q.Latest); err != nil {
			return err
		}
		for _, r := range rows {
			out.Latest[field] = append(out.Latest[field], forms.LatestAnswer{Value: r.Value, At: r.At.Time})
		}
	}
	return nil
}

// countSteps counts the saved and the abandoned answers by the last step
// they reached.
func (s *Store) countSteps(ctx context.Context, q formsstore.SummaryQuery, out *forms.AnswerStats) error {
	db := s.db.Reader()
	from, to := store.NewTime(q.From), store.NewTime(q.To)
	var steps []struct {
		Step int   `db:"last_step"`
		N    int64 `db:"n"`
	}
	if err := db.SelectContext(ctx, &steps, s.q(`SELECT last_step, COUNT(*) AS n FROM forms_partials
		WHERE form_id = ? AND created_at >= ? AND created_at < ? GROUP BY last_step`), q.FormID, from, to); err != nil {
		return err
	}
	for _, st := range steps {
		out.Saved[st.Step] = st.N
	}
	steps = nil
	if err := db.SelectContext(ctx, &steps, s.q(`SELECT last_step, SUM(count) AS n FROM forms_abandoned
		WHERE form_id = ? AND day >= ? AND day < ? GROUP BY last_step`), q.FormID, q.From.UTC().Format(time.DateOnly),
		q.To.UTC().Format(time.DateOnly)); err != nil {
		return err
	}
	for _, st := range steps {
		out.Abandoned[st.Step] = st.N
	}
	return nil
}

// count adds n to counts[field][value].
func count(counts map[string]map[string]int64, field, value string, n int64) {
	if counts[field] == nil {
		counts[field] = map[string]int64{}
	}
	counts[field][value] += n
}
