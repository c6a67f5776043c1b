package formssql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"golang.org/x/sync/errgroup"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
)

// ---- submissions ----

type submissionRow struct {
	ID          int64                         `db:"id"`
	FormID      int64                         `db:"form_id"`
	PageURL     string                        `db:"page_url"`
	ReferrerURL string                        `db:"referrer_url"`
	IPAddress   string                        `db:"ip_address"`
	UserAgent   string                        `db:"user_agent"`
	IsRead      bool                          `db:"is_read"`
	IsSpam      bool                          `db:"is_spam"`
	IsStarred   bool                          `db:"is_starred"`
	AdminNotes  string                        `db:"admin_notes"`
	CreatedAt   store.Time                    `db:"created_at"`
	UpdatedAt   store.Time                    `db:"updated_at"`
	Routed      store.JSON[*forms.Routed]     `db:"routed"`
	Visit       store.JSON[*groundwork.Visit] `db:"visit"`
	Payment     store.JSON[*forms.Payment]    `db:"payment"`
}

const submissionColumns = `id, form_id, page_url, referrer_url, ip_address, user_agent, is_read, is_spam, is_starred,
	admin_notes, created_at, updated_at, routed, visit, payment`

func (r submissionRow) submission() forms.Submission {
	return forms.Submission{ID: r.ID, FormID: r.FormID, PageURL: r.PageURL, ReferrerURL: r.ReferrerURL, IPAddress: r.IPAddress,
		UserAgent: r.UserAgent, IsRead: r.IsRead, IsSpam: r.IsSpam, IsStarred: r.IsStarred, AdminNotes: r.AdminNotes,
		CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time, Values: []forms.Value{}, Uploads: []forms.Upload{}, Routed: r.Routed.V,
		Visit: r.Visit.V, Payment: r.Payment.V}
}

// CreateSubmission implements forms.Store.
//
// On Postgres a submission without uploads is one statement (a
// data-modifying WITH), and with no limit, quota, respondent or partial to
// check it runs without a transaction of its own: one round trip instead
// of four (in the caller's transaction, when ctx carries one).
func (s *Store) CreateSubmission(ctx context.Context, sub *forms.Submission) error {
	oneStatement := s.db.Dialect() == store.Postgres && len(sub.Uploads) == 0
	var err error
	if oneStatement && sub.Limit == 0 && len(sub.Quotas) == 0 && sub.Respondent == "" && sub.ResumeHash == "" {
		err = store.MapError(insertSubmissionPostgres(ctx, s.db.On(ctx), sub))
	} else {
		err = s.db.InTx(ctx, func(tx *sqlx.Tx) error {
			if err := s.checkLimit(ctx, tx, sub); err != nil {
				return err
			}
			if oneStatement {
				if err := insertSubmissionPostgres(ctx, tx, sub); err != nil {
					return err
				}
			} else if err := s.checkVersion(ctx, tx, sub); err != nil {
				return err
			} else if err := s.insertSubmission(ctx, tx, sub); err != nil {
				return err
			}
			if sub.Respondent != "" {
				// One row a form and person: a second is a unique violation.
				if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO forms_respondents (form_id, respondent, submission_id) VALUES (?, ?, ?)`),
					sub.FormID, sub.Respondent, sub.ID); err != nil {
					if store.IsUniqueViolation(err) {
						return forms.ErrResponded
					}
					return err
				}
			}
			if sub.ResumeHash != "" {
				// The partial it finishes goes with it; its files are the
				// submission's now.
				if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM forms_partials WHERE form_id = ? AND token_hash = ?`),
					sub.FormID, sub.ResumeHash); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if store.IsForeignKeyViolation(err) {
		// The form was deleted since the caller read it.
		return fmt.Errorf("formssql: create submission: %w: %w", noForm(sub), err)
	}
	if _, full := errors.AsType[*forms.QuotaError](err); full || errors.Is(err, forms.ErrStale) || errors.Is(err, forms.ErrNotFound) ||
		errors.Is(err, forms.ErrFull) || errors.Is(err, forms.ErrResponded) {
		return err
	}
	if err != nil {
		return fmt.Errorf("formssql: create submission: %w", err)
	}
	s.lists.wrote(sub.FormID)
	return nil
}

// insertSubmissionPostgres stores a submission without uploads and its
// values in one statement; the values travel as arrays, so the statement
// text (and its prepared plan) is the same for every form.
func insertSubmissionPostgres(ctx context.Context, q sqlx.QueryerContext, sub *forms.Submission) error {
	n := len(sub.Values)
	fieldIDs, names, labels, types := make([]*int64, n), make([]string, n), make([]string, n), make([]string, n)
	values, arrays, displays, created := make([]*string, n), make([]*string, n), make([]string, n), make([]time.Time, n)
	for i := range sub.Values {
		v := &sub.Values[i]
		fieldIDs[i], names[i], labels[i], types[i], values[i], displays[i] = v.FieldID, v.FieldName, v.FieldLabel, string(v.FieldType), v.Value, v.DisplayValue
		created[i] = store.NewTime(v.CreatedAt).Time
		if v.ValueArray != nil {
			b, err := json.Marshal(v.ValueArray)
			if err != nil {
				return err
			}
			a := string(b)
			arrays[i] = &a
		}
	}
	// f is the form, if it still has the version the submission was
	// validated against; without it nothing is inserted.
	rows, err := q.QueryContext(ctx, `WITH f AS (
		SELECT id FROM forms_forms WHERE id = $1 AND ($20::bigint = 0 OR version = $20::bigint)
	), s AS (
		INSERT INTO forms_submissions (form_id, page_url, referrer_url, ip_address, user_agent, is_read, is_spam, is_starred,
			admin_notes, created_at, updated_at, routed, visit)
		SELECT f.id, $2::text, $3::text, $4::text, $5::text, $6::boolean, $7::boolean, $8::boolean, $9::text,
			$10::timestamptz, $11::timestamptz, $21::text, $22::text FROM f RETURNING id
	), v AS (
		INSERT INTO forms_values (submission_id, field_id, field_name, field_label, field_type, value, value_array,
			display_value, created_at)
		SELECT s.id, x.field_id, x.field_name, x.field_label, x.field_type, x.value, x.value_array::jsonb, x.display_value, x.created_at
		FROM s, unnest($12::bigint[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::timestamptz[])
			AS x(field_id, field_name, field_label, field_type, value, value_array, display_value, created_at)
		RETURNING id, field_name
	)
	SELECT s.id, v.id, v.field_name FROM s LEFT JOIN v ON TRUE`,
		sub.FormID, sub.PageURL, sub.ReferrerURL, sub.IPAddress, sub.UserAgent, sub.IsRead, sub.IsSpam, sub.IsStarred,
		sub.AdminNotes, store.NewTime(sub.CreatedAt), store.NewTime(sub.UpdatedAt),
		fieldIDs, names, labels, types, values, arrays, displays, created, sub.FormVersion, jsonColumn(sub.Routed), jsonColumn(sub.Visit))
	if err != nil {
		return err
	}
	ids := make(map[string]int64, n)
	sub.ID = 0
	for rows.Next() {
		var id int64
		var valueID *int64
		var name *string
		if err := rows.Scan(&id, &valueID, &name); err != nil {
			rows.Close()
			return err
		}
		sub.ID = id
		if valueID != nil && name != nil {
			ids[*name] = *valueID
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if sub.ID == 0 {
		return noForm(sub)
	}
	return setValueIDs(sub, ids)
}

// noForm is the error for a submission whose form is gone or, when it
// carries a version, has another version.
func noForm(sub *forms.Submission) error {
	if sub.FormVersion != 0 {
		return forms.ErrStale
	}
	return forms.ErrNotFound
}

// checkVersion refuses, inside tx, a submission whose form has changed
// since it was validated (as the single Postgres statement does).
func (s *Store) checkVersion(ctx context.Context, tx *sqlx.Tx, sub *forms.Submission) error {
	if sub.FormVersion == 0 {
		return nil // the foreign key stands for a missing form
	}
	var version int64
	err := s.stmts.QueryRowContext(ctx, tx, s.q(`SELECT version FROM forms_forms WHERE id = ?`), sub.FormID).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && version != sub.FormVersion) {
		return forms.ErrStale
	}
	return err
}

// setValueIDs sets the submission's ID on its values and their own IDs
// from ids (by field name: unique within a submission, and RETURNING
// promises no order).
func setValueIDs(sub *forms.Submission, ids map[string]int64) error {
	for i := range sub.Values {
		v := &sub.Values[i]
		id, ok := ids[v.FieldName]
		if !ok {
			return fmt.Errorf("no id returned for value %q", v.FieldName)
		}
		v.SubmissionID, v.ID = sub.ID, id
	}
	return nil
}

// insertSubmission stores a submission, its uploads and its values with
// one statement each, in tx, each prepared once (see store.StmtCache).
func (s *Store) insertSubmission(ctx context.Context, tx *sqlx.Tx, sub *forms.Submission) error {
	created := store.NewTime(sub.CreatedAt)
	if err := s.stmts.QueryRowContext(ctx, tx, s.q(`INSERT INTO forms_submissions (form_id, page_url, referrer_url, ip_address,
			user_agent, is_read, is_spam, is_starred, admin_notes, created_at, updated_at, routed, visit) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			RETURNING id`), sub.FormID, sub.PageURL, sub.ReferrerURL, sub.IPAddress, sub.UserAgent, sub.IsRead, sub.IsSpam,
		sub.IsStarred, sub.AdminNotes, created, store.NewTime(sub.UpdatedAt), jsonColumn(sub.Routed), jsonColumn(sub.Visit)).Scan(&sub.ID); err != nil {
		return err
	}
	uploadIDs := map[string]int64{}
	for i := range sub.Uploads {
		u := &sub.Uploads[i]
		u.SubmissionID = sub.ID
		if err := s.stmts.QueryRowContext(ctx, tx, s.q(`INSERT INTO forms_uploads (submission_id, field_id, original_name,
				stored_name, blob_key, mime_type, size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			sub.ID, u.FieldID, u.OriginalName, u.StoredName, u.Key, u.MimeType, u.Size, store.NewTime(u.CreatedAt)).Scan(&u.ID); err != nil {
			return err
		}
		uploadIDs[u.FieldName] = u.ID
	}
	if len(sub.Values) > 0 {
		var b strings.Builder
		args := make([]any, 0, len(sub.Values)*10)
		b.WriteString(`INSERT INTO forms_values (submission_id, field_id, field_name, field_label, field_type, value,
				value_array, display_value, upload_id, created_at) VALUES `)
		for i := range sub.Values {
			v := &sub.Values[i]
			v.SubmissionID = sub.ID
			if id, ok := uploadIDs[v.FieldName]; ok && v.FieldType == forms.TypeFile {
				v.UploadID = &id
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			var arr any
			if v.ValueArray != nil {
				arr = store.JSON[[]string]{V: v.ValueArray}
			}
			args = append(args, sub.ID, v.FieldID, v.FieldName, v.FieldLabel, v.FieldType, v.Value, arr, v.DisplayValue,
				v.UploadID, store.NewTime(v.CreatedAt))
		}
		b.WriteString(" RETURNING id, field_name")
		rows, err := s.stmts.QueryContext(ctx, tx, s.q(b.String()), args...)
		if err != nil {
			return err
		}
		// The order of RETURNING rows is not promised; names are
		// unique within a submission.
		ids := make(map[string]int64, len(sub.Values))
		for rows.Next() {
			var id int64
			var name string
			if err := rows.Scan(&id, &name); err != nil {
				rows.Close()
				return err
			}
			ids[name] = id
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return setValueIDs(sub, ids)
	}
	return nil
}

// attach loads the values and uploads of subs, the two at once.
func (s *Store) attach(ctx context.Context, subs []forms.Submission) error {
	if len(subs) == 0 {
		return nil
	}
	ids := make([]int64, len(subs))
	index := make(map[int64]int, len(subs))
	for i, sub := range subs {
		ids[i] = sub.ID
		index[sub.ID] = i
	}
	db := s.db.Reader()
	var values []valueRow
	var uploads []uploadRow
	var g errgroup.Group
	g.Go(func() error {
		query, args, err := sqlx.In(`SELECT id, submission_id, field_id, field_name, field_label, field_type, value, value_array,
			display_value, upload_id, created_at FROM forms_values WHERE submission_id IN (?) ORDER BY submission_id, id`, ids)
		if err == nil {
			err = db.SelectContext(ctx, &values, s.q(query), args...)
		}
		if err != nil {
			return fmt.Errorf("values: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		query, args, err := sqlx.In(`SELECT id, submission_id, field_id, original_name, stored_name, blob_key, mime_type, size,
			created_at FROM forms_uploads WHERE submission_id IN (?) ORDER BY submission_id, id`, ids)
		if err == nil {
			err = db.SelectContext(ctx, &uploads, s.q(query), args...)
		}
		if err != nil {
			return fmt.Errorf("uploads: %w", err)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return err
	}
	for _, v := range values {
		i := index[v.SubmissionID]
		subs[i].Values = append(subs[i].Values, v.value())
	}
	for _, u := range uploads {
		i := index[u.SubmissionID]
		subs[i].Uploads = append(subs[i].Uploads, u.upload())
	}
	return nil
}

type valueRow struct {
	ID           int64                `db:"id"`
	SubmissionID int64                `db:"submission_id"`
	FieldID      *int64               `db:"field_id"`
	FieldName    string               `db:"field_name"`
	FieldLabel   string               `db:"field_label"`
	FieldType    string               `db:"field_type"`
	Value        *string              `db:"value"`
	ValueArray   store.JSON[[]string] `db:"value_array"`
	DisplayValue string               `db:"display_value"`
	UploadID     *int64               `db:"upload_id"`
	CreatedAt    store.Time           `db:"created_at"`
}

func (r valueRow) value() forms.Value {
	return forms.Value{ID: r.ID, SubmissionID: r.SubmissionID, FieldID: r.FieldID, FieldName: r.FieldName, FieldLabel: r.FieldLabel,
		FieldType: forms.FieldType(r.FieldType), Value: r.Value, ValueArray: r.ValueArray.V, DisplayValue: r.DisplayValue, UploadID: r.UploadID,
		CreatedAt: r.CreatedAt.Time}
}

type uploadRow struct {
	ID           int64      `db:"id"`
	SubmissionID int64      `db:"submission_id"`
	FieldID      *int64     `db:"field_id"`
	OriginalName string     `db:"original_name"`
	StoredName   string     `db:"stored_name"`
	Key          string     `db:"blob_key"`
	MimeType     string     `db:"mime_type"`
	Size         int64      `db:"size"`
	CreatedAt    store.Time `db:"created_at"`
}

func (r uploadRow) upload() forms.Upload {
	return forms.Upload{ID: r.ID, SubmissionID: r.SubmissionID, FieldID: r.FieldID, OriginalName: r.OriginalName,
		StoredName: r.StoredName, Key: r.Key, MimeType: r.MimeType, Size: r.Size, CreatedAt: r.CreatedAt.Time}
}

// Submission implements forms.Store.
func (s *Store) Submission(ctx context.Context, formID, id int64) (*forms.Submission, error) {
	var r submissionRow
	if err := s.db.Reader().GetContext(ctx, &r, s.q(`SELECT `+submissionColumns+` FROM forms_submissions
		WHERE id = ? AND form_id = ?`), id, formID); err != nil {
		return nil, notFound("submission", err)
	}
	subs := []forms.Submission{r.submission()}
	if err := s.attach(ctx, subs); err != nil {
		return nil, fmt.Errorf("formssql: submission: %w", err)
	}
	return &subs[0], nil
}

// jsonColumn is a submission's routed or visit column: NULL for none.
func jsonColumn[T any](r *T) *string {
	if r == nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil
	}
	s := string(b)
	return &s
}

// UpdateSubmission implements forms.Store, in the caller's transaction
// when ctx carries one.
func (s *Store) UpdateSubmission(ctx context.Context, sub *forms.Submission) error {
	routed := jsonColumn(sub.Routed)
	res, err := s.db.On(ctx).ExecContext(ctx, s.q(`UPDATE forms_submissions SET is_read = ?, is_spam = ?, is_starred = ?, admin_notes = ?,
		updated_at = ?, routed = ? WHERE id = ? AND form_id = ?`), sub.IsRead, sub.IsSpam, sub.IsStarred, sub.AdminNotes,
		store.NewTime(sub.UpdatedAt), routed, sub.ID, sub.FormID)
	s.lists.wrote(sub.FormID)
	return affected("update submission", res, err)
}

// SetPayment implements forms.Store: one statement, in the caller's
// transaction when ctx carries one.
func (s *Store) SetPayment(ctx context.Context, formID, id int64, from string, p *forms.Payment) error {
	cond, args := `payment_status IS NULL`, []any{jsonColumn(p), p.Status, formID, id}
	if from != "" {
		cond, args = `payment_status = ?`, append(args, from)
	}
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE forms_submissions SET payment = ?, payment_status = ? WHERE form_id = ? AND id = ? AND `+cond), args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("submission %d: %w", id, forms.ErrConflict)
		}
		if p.Status != "unpaid" {
			return nil
		}
		// Unpaid, it is not the person's one response either.
		_, err = tx.ExecContext(ctx, tx.Rebind(`DELETE FROM forms_respondents WHERE submission_id = ?`), id)
		return err
	})
	s.lists.wrote(formID)
	if err != nil {
		return fmt.Errorf("formssql: set payment: %w", err)
	}
	return nil
}

// ReleaseSpam implements forms.Store: one statement.
func (s *Store) ReleaseSpam(ctx context.Context, formID int64, ids []int64, at time.Time) ([]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	query, args, err := sqlx.In(`UPDATE forms_submissions SET is_spam = ?, updated_at = ? WHERE form_id = ? AND is_spam = ? AND id IN (?)
		RETURNING id`, false, store.NewTime(at), formID, true, ids)
	if err != nil {
		return nil, err
	}
	var released []int64
	err = sqlx.SelectContext(ctx, s.db.On(ctx), &released, s.q(query), args...)
	s.lists.wrote(formID)
	if err != nil {
		return nil, fmt.Errorf("formssql: release spam: %w", err)
	}
	slices.Sort(released)
	return released, nil
}

// SetSubmissionFlag implements forms.Store.
func (s *Store) SetSubmissionFlag(ctx context.Context, formID int64, ids []int64, flag forms.Flag, value bool, at time.Time) (int, error) {
	switch flag {
	case forms.FlagRead, forms.FlagSpam, forms.FlagStarred:
	default:
		return 0, fmt.Errorf("formssql: unknown flag %q", flag)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	query, args, err := sqlx.In(`UPDATE forms_submissions SET `+string(flag)+` = ?, updated_at = ? WHERE form_id = ? AND id IN (?)`,
		value, store.NewTime(at), formID, ids)
	if err != nil {
		return 0, err
	}
	res, err := s.db.ExecContext(ctx, s.q(query), args...)
	if err != nil {
		return 0, fmt.Errorf("formssql: flag submissions: %w", err)
	}
	s.lists.wrote(formID)
	n, err := res.RowsAffected()
	return int(n), err
}

// DeleteSubmissions implements forms.Store.
func (s *Store) DeleteSubmissions(ctx context.Context, formID int64, ids []int64) (int, []string, error) {
	if len(ids) == 0 {
		return 0, nil, nil
	}
	var n int64
	var keys []string
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		query, args, err := sqlx.In(`SELECT u.blob_key FROM forms_uploads u JOIN forms_submissions s ON s.id = u.submission_id
			WHERE s.form_id = ? AND s.id IN (?) ORDER BY u.id`, formID, ids)
		if err != nil {
			return err
		}
		if err := tx.SelectContext(ctx, &keys, tx.Rebind(query), args...); err != nil {
			return err
		}
		query, args, err = sqlx.In(`DELETE FROM forms_submissions WHERE form_id = ? AND id IN (?)`, formID, ids)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, tx.Rebind(query), args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, nil, fmt.Errorf("formssql: delete submissions: %w", err)
	}
	s.lists.wrote(formID)
	return int(n), keys, nil
}

// Upload implements forms.Store.
func (s *Store) Upload(ctx context.Context, submissionID, id int64) (*forms.Upload, error) {
	var r uploadRow
	var formID int64
	row := struct {
		uploadRow
		FormID *int64 `db:"form_id"`
	}{}
	if err := s.db.Reader().GetContext(ctx, &row, s.q(`SELECT u.id, u.submission_id, u.field_id, u.original_name, u.stored_name, u.blob_key,
		u.mime_type, u.size, u.created_at, s.form_id FROM forms_uploads u LEFT JOIN forms_submissions s ON s.id = u.submission_id
		WHERE u.id = ? AND u.submission_id = ?`), id, submissionID); err != nil {
		return nil, notFound("upload", err)
	}
	if row.FormID != nil {
		formID = *row.FormID
	}
	r = row.uploadRow
	u := r.upload()
	u.FormID = formID
	return &u, nil
}

// checkLimit refuses sub with forms.ErrFull when its form already has
// sub.Limit accepted submissions. The form's row is locked first (on
// Postgres; SQLite's writers take turns), so submissions racing on
// several instances are counted one after another.
func (s *Store) checkLimit(ctx context.Context, tx *sqlx.Tx, sub *forms.Submission) error {
	if sub.Limit <= 0 && len(sub.Quotas) == 0 {
		return nil
	}
	if s.db.Dialect() == store.Postgres {
		var id int64
		if err := tx.GetContext(ctx, &id, `SELECT id FROM forms_forms WHERE id = $1 FOR UPDATE`, sub.FormID); err != nil {
			return err
		}
	}
	// A limit read from a definition since changed is no limit to keep:
	// the caller validates again against the new one.
	if err := s.checkVersion(ctx, tx, sub); err != nil {
		return err
	}
	if sub.Limit > 0 {
		var n int64
		if err := tx.GetContext(ctx, &n, tx.Rebind(`SELECT COUNT(*) FROM forms_submissions WHERE form_id = ? AND is_spam = ?`+holds), sub.FormID, false); err != nil {
			return err
		}
		if n >= sub.Limit {
			return forms.ErrFull
		}
	}
	for _, q := range sub.Quotas {
		var n int64
		if err := tx.GetContext(ctx, &n, tx.Rebind(choiceCount+` AND v.value = ?`), sub.FormID, false, q.Field, q.Value); err != nil {
			return err
		}
		if n >= q.Limit {
			return &forms.QuotaError{Quota: q}
		}
	}
	return nil
}

// choiceCount counts the accepted submissions of a form answering a field
// (form_id, is_spam false, field_name) that hold their place.
const choiceCount = `SELECT COUNT(*) FROM forms_values v JOIN forms_submissions s ON s.id = v.submission_id
	WHERE s.form_id = ? AND s.is_spam = ? AND v.field_name = ? AND (s.payment_status IS NULL OR s.payment_status <> 'unpaid')`

// holds keeps the submissions that hold a place: all but those left
// unpaid.
const holds = ` AND (payment_status IS NULL OR payment_status <> 'unpaid')`

// ChoiceCounts implements forms.Store.
func (s *Store) ChoiceCounts(ctx context.Context, formID int64, field string) (map[string]int64, error) {
	var rows []struct {
		Value *string `db:"value"`
		N     int64   `db:"n"`
	}
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(`SELECT v.value AS value, COUNT(*) AS n FROM forms_values v
		JOIN forms_submissions s ON s.id = v.submission_id WHERE s.form_id = ? AND s.is_spam = ? AND v.field_name = ?
		AND (s.payment_status IS NULL OR s.payment_status <> 'unpaid') GROUP BY v.value`),
		formID, false, field); err != nil {
		return nil, fmt.Errorf("formssql: choice counts: %w", err)
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		if r.Value != nil {
			out[*r.Value] = r.N
		}
	}
	return out, nil
}

// Responded implements forms.Store.
func (s *Store) Responded(ctx context.Context, formID int64, respondent string) (bool, error) {
	var n int
	if err := s.db.Reader().GetContext(ctx, &n, s.q(`SELECT COUNT(*) FROM forms_respondents WHERE form_id = ? AND respondent = ?`),
		formID, respondent); err != nil {
		return false, fmt.Errorf("formssql: responded: %w", err)
	}
	return n > 0, nil
}
