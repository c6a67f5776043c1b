// Package formssql is the [forms.Store] on SQLite and Postgres.
package formssql

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formsstore"
	"github.com/groundwork-go/groundwork/store"
)

//go:embed migrations
var migrations embed.FS

// Migrations is the forms schema; pass it to store.Migrate.
var Migrations = store.MigrationsFrom("forms", migrations, "migrations")

// Store is the forms.Store on a store.DB.
//
// Lists of 20,000 or more submissions (per filter) are paged from an
// index of their keys that this Store keeps and refreshes in the
// background: any page of a million submissions reads in about a
// millisecond, and the total it reports may be a few seconds old.
type Store struct {
	db    *store.DB
	lists *listIndexes
	stmts *store.StmtCache
}

var _ forms.Store = (*Store)(nil)

// New returns a Store on db, which must be migrated with [Migrations].
func New(db *store.DB) *Store {
	s := &Store{db: db, stmts: store.NewStmtCache(db)}
	s.lists = newListIndexes(s.buildListIndex)
	return s
}

// q rebinds a query written with "?" for the database.
// RunInTx implements forms.Store: a transaction of the store's DB
// ([store.DB.RunInTx]), which the methods called with its context join.
func (s *Store) RunInTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.db.RunInTx(ctx, fn)
}

func (s *Store) q(query string) string { return s.db.Rebind(query) }

// notFound turns sql.ErrNoRows into forms.ErrNotFound and wraps the rest.
func notFound(what string, err error) error {
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		return forms.ErrNotFound
	}
	return fmt.Errorf("formssql: %s: %w", what, err)
}

// affected checks that an update or delete touched a row.
func affected(what string, res sql.Result, err error) error {
	if err != nil {
		return fmt.Errorf("formssql: %s: %w", what, store.MapError(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("formssql: %s: %w", what, err)
	}
	if n == 0 {
		return forms.ErrNotFound
	}
	return nil
}

// ---- forms ----

type formRow struct {
	ID                  int64      `db:"id"`
	Name                string     `db:"name"`
	Slug                string     `db:"slug"`
	Description         string     `db:"description"`
	SubmitButtonText    string     `db:"submit_button_text"`
	SuccessMessage      string     `db:"success_message"`
	RedirectURL         *string    `db:"redirect_url"`
	IsActive            bool       `db:"is_active"`
	IsMultiStep         bool       `db:"is_multi_step"`
	ShowProgressBar     bool       `db:"show_progress_bar"`
	AllowStepNavigation bool       `db:"allow_step_navigation"`
	MinFillSeconds      int64      `db:"min_fill_seconds"`
	MaxResponses        *int64     `db:"max_responses"`
	OpensAt             store.Time `db:"opens_at"`
	ClosesAt            store.Time `db:"closes_at"`
	ClosedMessage       string     `db:"closed_message"`
	OnePerPerson        bool       `db:"one_per_person"`
	Settings            string     `db:"settings"`
	CreatedAt           store.Time `db:"created_at"`
	UpdatedAt           store.Time `db:"updated_at"`
	Version             int64      `db:"version"`
	Tenant              string     `db:"tenant"`
	Total               int        `db:"total"`
	Unread              int        `db:"unread"`
}

func (r formRow) form() forms.Form {
	return forms.Form{ID: r.ID, Name: r.Name, Slug: r.Slug, Description: r.Description, SubmitButtonText: r.SubmitButtonText,
		SuccessMessage: r.SuccessMessage, RedirectURL: r.RedirectURL, IsActive: r.IsActive, IsMultiStep: r.IsMultiStep,
		ShowProgressBar: r.ShowProgressBar, AllowStepNavigation: r.AllowStepNavigation, MinFillSeconds: new(r.MinFillSeconds), CreatedAt: r.CreatedAt.Time,
		UpdatedAt: r.UpdatedAt.Time, Version: r.Version, TotalSubmissions: r.Total, UnreadSubmissions: r.Unread,
		MaxResponses: r.MaxResponses, OpensAt: optionalTime(r.OpensAt), ClosesAt: optionalTime(r.ClosesAt), ClosedMessage: r.ClosedMessage,
		OnePerPerson: r.OnePerPerson, FormSettings: readSettings(r.Settings), Tenant: r.Tenant}
}

// readSettings reads a form's settings column; what it cannot read (it
// never wrote such) is the defaults.
func readSettings(raw string) forms.FormSettings {
	var out forms.FormSettings
	_ = json.Unmarshal([]byte(raw), &out)
	return out
}

// settingsColumn is what a form's settings store as.
func settingsColumn(f *forms.Form) (string, error) {
	b, err := json.Marshal(f.FormSettings)
	return string(b), err
}

func optionalTime(t store.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	v := t.Time
	return &v
}

func storedTime(t *time.Time) store.Time {
	if t == nil {
		return store.Time{}
	}
	return store.NewTime(*t)
}

const formColumns = `f.id, f.name, f.slug, f.description, f.submit_button_text, f.success_message, f.redirect_url,
	f.is_active, f.is_multi_step, f.show_progress_bar, f.allow_step_navigation, f.min_fill_seconds, f.created_at, f.updated_at, f.version,
	f.max_responses, f.opens_at, f.closes_at, f.closed_message, f.one_per_person, f.settings, f.tenant,
	(SELECT COUNT(*) FROM forms_submissions s WHERE s.form_id = f.id) AS total,
	(SELECT COUNT(*) FROM forms_submissions s WHERE s.form_id = f.id AND s.is_read = ?) AS unread`

func slugError(err error) error {
	if store.IsUniqueViolation(err) {
		return forms.ErrSlugTaken
	}
	return err
}

// CreateForm implements forms.Store.
func (s *Store) CreateForm(ctx context.Context, f *forms.Form) error {
	settings, err := settingsColumn(f)
	if err != nil {
		return fmt.Errorf("formssql: create form: %w", err)
	}
	err = s.db.QueryRowxContext(ctx, s.q(`INSERT INTO forms_forms (name, slug, description, submit_button_text,
		success_message, redirect_url, is_active, is_multi_step, show_progress_bar, allow_step_navigation, min_fill_seconds, created_at, updated_at,
		max_responses, opens_at, closes_at, closed_message, one_per_person, settings, tenant)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id, version`),
		f.Name, f.Slug, f.Description, f.SubmitButtonText, f.SuccessMessage, f.RedirectURL, f.IsActive, f.IsMultiStep,
		f.ShowProgressBar, f.AllowStepNavigation, minFillSeconds(f), store.NewTime(f.CreatedAt), store.NewTime(f.UpdatedAt),
		f.MaxResponses, storedTime(f.OpensAt), storedTime(f.ClosesAt), f.ClosedMessage, f.OnePerPerson, settings, f.Tenant).Scan(&f.ID, &f.Version)
	if err != nil {
		return fmt.Errorf("formssql: create form: %w", slugError(err))
	}
	return nil
}

// UpdateForm implements forms.Store.
func (s *Store) UpdateForm(ctx context.Context, f *forms.Form) error {
	settings, err := settingsColumn(f)
	if err != nil {
		return fmt.Errorf("formssql: update form: %w", err)
	}
	err = s.db.QueryRowxContext(ctx, s.q(`UPDATE forms_forms SET name = ?, slug = ?, description = ?, submit_button_text = ?,
		success_message = ?, redirect_url = ?, is_active = ?, is_multi_step = ?, show_progress_bar = ?,
		allow_step_navigation = ?, min_fill_seconds = ?, updated_at = ?, max_responses = ?, opens_at = ?, closes_at = ?, closed_message = ?,
		one_per_person = ?, settings = ?, version = version + 1 WHERE id = ? RETURNING version`),
		f.Name, f.Slug, f.Description, f.SubmitButtonText, f.SuccessMessage, f.RedirectURL, f.IsActive, f.IsMultiStep,
		f.ShowProgressBar, f.AllowStepNavigation, minFillSeconds(f), store.NewTime(f.UpdatedAt), f.MaxResponses, storedTime(f.OpensAt),
		storedTime(f.ClosesAt), f.ClosedMessage, f.OnePerPerson, settings, f.ID).Scan(&f.Version)
	if errors.Is(err, sql.ErrNoRows) {
		return forms.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("formssql: update form: %w", slugError(err))
	}
	return nil
}

// changeDefinition runs fn, a change to a form's fields, steps or
// notifications, in a
// transaction that also increments the form's version.
func (s *Store) changeDefinition(ctx context.Context, formID int64, fn func(tx *sqlx.Tx) error) error {
	return s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE forms_forms SET version = version + 1 WHERE id = ?`), formID)
		return err
	})
}

// minFillSeconds is what f's MinFillSeconds stores as: the default when nil.
func minFillSeconds(f *forms.Form) int64 {
	if f.MinFillSeconds == nil {
		return forms.MinFillSecondsDefault
	}
	return *f.MinFillSeconds
}

// DeleteForm implements forms.Store.
func (s *Store) DeleteForm(ctx context.Context, id int64) ([]string, error) {
	var keys []string
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.SelectContext(ctx, &keys, tx.Rebind(`SELECT u.blob_key FROM forms_uploads u
			JOIN forms_submissions s ON s.id = u.submission_id WHERE s.form_id = ? ORDER BY u.id`), id); err != nil {
			return err
		}
		var kept []string
		if err := tx.SelectContext(ctx, &kept, tx.Rebind(`SELECT blob_key FROM forms_kept_uploads WHERE form_id = ? ORDER BY id`), id); err != nil {
			return err
		}
		keys = append(keys, kept...)
		var partials []string
		if err := tx.SelectContext(ctx, &partials, tx.Rebind(`SELECT uploads FROM forms_partials WHERE form_id = ? ORDER BY id`), id); err != nil {
			return err
		}
		for _, raw := range partials {
			var files []forms.IncomingFile
			if json.Unmarshal([]byte(raw), &files) == nil {
				for _, f := range files {
					keys = append(keys, f.Key)
				}
			}
		}
		res, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM forms_forms WHERE id = ?`), id)
		return affected("delete form", res, err)
	})
	if err != nil {
		if errors.Is(err, forms.ErrNotFound) {
			return nil, forms.ErrNotFound
		}
		return nil, fmt.Errorf("formssql: delete form: %w", err)
	}
	s.lists.wrote(id)
	return keys, nil
}

// formOnly are the form's own columns, counts left at zero.
const formOnly = `f.id, f.name, f.slug, f.description, f.submit_button_text, f.success_message, f.redirect_url,
	f.is_active, f.is_multi_step, f.show_progress_bar, f.allow_step_navigation, f.min_fill_seconds, f.created_at, f.updated_at, f.version,
	f.max_responses, f.opens_at, f.closes_at, f.closed_message, f.one_per_person, f.settings, f.tenant,
	0 AS total, 0 AS unread`

func (s *Store) formWhere(ctx context.Context, where string, arg any) (*forms.Form, error) {
	var r formRow
	err := s.db.Reader().GetContext(ctx, &r, s.q(`SELECT `+formOnly+` FROM forms_forms f WHERE `+where), arg)
	if err != nil {
		return nil, notFound("form", err)
	}
	f := r.form()
	return &f, nil
}

// Form implements forms.Store.
func (s *Store) Form(ctx context.Context, id int64, slug string) (*forms.Form, error) {
	if id == 0 {
		return s.formWhere(ctx, "f.slug = ?", slug)
	}
	return s.formWhere(ctx, "f.id = ?", id)
}

// formFieldRow is a row of a form joined with one of its fields.
type formFieldRow struct {
	formRow
	Field fieldRow `db:"d"`
}

// formFieldColumns are formOnly and the fields' columns named "d.<column>".
var formFieldColumns = func() string {
	var b strings.Builder
	b.WriteString(formOnly)
	for c := range strings.SplitSeq(fieldColumns, ",") {
		c = strings.TrimSpace(c)
		fmt.Fprintf(&b, `, d.%s AS "d.%s"`, c, c)
	}
	return b.String()
}()

// FormWithFields implements forms.Store: one query joining the form to
// its fields, and a second only for a form without fields.
func (s *Store) FormWithFields(ctx context.Context, id int64, slug string) (*forms.Form, []forms.Field, error) {
	where, arg := "f.id = ?", any(id)
	if slug != "" {
		where, arg = "f.slug = ?", slug
	}
	var rows []formFieldRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(`SELECT `+formFieldColumns+` FROM forms_forms f
		JOIN forms_fields d ON d.form_id = f.id WHERE `+where+` ORDER BY d.sort_order, d.id`), arg); err != nil {
		return nil, nil, fmt.Errorf("formssql: form with fields: %w", err)
	}
	if len(rows) == 0 {
		f, err := s.formWhere(ctx, where, arg)
		return f, []forms.Field{}, err
	}
	f := rows[0].form()
	fields := make([]forms.Field, len(rows))
	for i, r := range rows {
		fields[i] = r.Field.field()
	}
	return &f, fields, nil
}

// SubmissionCounts implements forms.Store. A large form's counts come
// from its list indexes (see Store), when it has them.
func (s *Store) SubmissionCounts(ctx context.Context, formID int64) (int, int, error) {
	unreadQ := forms.SubmissionQuery{FormID: formID, IsRead: new(bool)}
	allWhere, allArgs := submissionFilter(forms.SubmissionQuery{FormID: formID}, s.db.Dialect())
	unreadWhere, unreadArgs := submissionFilter(unreadQ, s.db.Dialect())
	all, unread := s.lists.get(formID, allWhere, allArgs), s.lists.get(formID, unreadWhere, unreadArgs)
	if all != nil && unread != nil {
		return all.total, unread.total, nil
	}
	var c struct {
		Total  int `db:"total"`
		Unread int `db:"unread"`
	}
	err := s.db.Reader().GetContext(ctx, &c, s.q(`SELECT COUNT(*) AS total,
		COALESCE(SUM(CASE WHEN is_read = ? THEN 1 ELSE 0 END), 0) AS unread FROM forms_submissions WHERE form_id = ?`), false, formID)
	if err != nil {
		return 0, 0, fmt.Errorf("formssql: submission counts: %w", err)
	}
	s.lists.counted(formID, allWhere, allArgs, c.Total)
	s.lists.counted(formID, unreadWhere, unreadArgs, c.Unread)
	return c.Total, c.Unread, nil
}

// ListForms implements forms.Store.
func (s *Store) ListForms(ctx context.Context, q formsstore.FormQuery) ([]forms.Form, int, error) {
	where, args := "1 = 1", []any{}
	if q.Active != nil {
		where, args = where+" AND is_active = ?", append(args, *q.Active)
	}
	if q.Tenant != nil {
		where, args = where+" AND tenant = ?", append(args, *q.Tenant)
	}
	var total int
	if err := s.db.Reader().GetContext(ctx, &total, s.q(`SELECT COUNT(*) FROM forms_forms WHERE `+where), args...); err != nil {
		return nil, 0, fmt.Errorf("formssql: count forms: %w", err)
	}
	var rows []formRow
	err := s.db.Reader().SelectContext(ctx, &rows, s.q(`SELECT `+formColumns+` FROM forms_forms f WHERE `+where+`
		ORDER BY f.created_at DESC, f.id DESC LIMIT ? OFFSET ?`), append(append([]any{false}, args...), q.Limit, q.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("formssql: list forms: %w", err)
	}
	out := make([]forms.Form, len(rows))
	for i, r := range rows {
		out[i] = r.form()
	}
	return out, total, nil
}

// SlugsLike implements forms.Store.
func (s *Store) SlugsLike(ctx context.Context, base string) ([]string, error) {
	var slugs []string
	// LIKE would treat '_' and '%' in base as wildcards; a range on the
	// prefix cannot, and filtering the suffix happens below.
	err := s.db.Reader().SelectContext(ctx, &slugs, s.q(`SELECT slug FROM forms_forms WHERE slug = ? OR (slug > ? AND slug < ?)`),
		base, base+"-", base+"-\U0010FFFF")
	if err != nil {
		return nil, fmt.Errorf("formssql: slugs: %w", err)
	}
	return slugs, nil
}
