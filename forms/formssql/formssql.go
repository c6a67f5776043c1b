// Package formssql is the [forms.Store] on SQLite and Postgres.
package formssql

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"golang.org/x/sync/errgroup"

	"github.com/groundwork-go/groundwork/forms"
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
	CreatedAt           store.Time `db:"created_at"`
	UpdatedAt           store.Time `db:"updated_at"`
	Version             int64      `db:"version"`
	Total               int        `db:"total"`
	Unread              int        `db:"unread"`
}

func (r formRow) form() forms.Form {
	return forms.Form{ID: r.ID, Name: r.Name, Slug: r.Slug, Description: r.Description, SubmitButtonText: r.SubmitButtonText,
		SuccessMessage: r.SuccessMessage, RedirectURL: r.RedirectURL, IsActive: r.IsActive, IsMultiStep: r.IsMultiStep,
		ShowProgressBar: r.ShowProgressBar, AllowStepNavigation: r.AllowStepNavigation, MinFillSeconds: new(r.MinFillSeconds), CreatedAt: r.CreatedAt.Time,
		UpdatedAt: r.UpdatedAt.Time, Version: r.Version, TotalSubmissions: r.Total, UnreadSubmissions: r.Unread}
}

const formColumns = `f.id, f.name, f.slug, f.description, f.submit_button_text, f.success_message, f.redirect_url,
	f.is_active, f.is_multi_step, f.show_progress_bar, f.allow_step_navigation, f.min_fill_seconds, f.created_at, f.updated_at, f.version,
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
	err := s.db.QueryRowxContext(ctx, s.q(`INSERT INTO forms_forms (name, slug, description, submit_button_text,
		success_message, redirect_url, is_active, is_multi_step, show_progress_bar, allow_step_navigation, min_fill_seconds, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id, version`),
		f.Name, f.Slug, f.Description, f.SubmitButtonText, f.SuccessMessage, f.RedirectURL, f.IsActive, f.IsMultiStep,
		f.ShowProgressBar, f.AllowStepNavigation, minFillSeconds(f), store.NewTime(f.CreatedAt), store.NewTime(f.UpdatedAt)).Scan(&f.ID, &f.Version)
	if err != nil {
		return fmt.Errorf("formssql: create form: %w", slugError(err))
	}
	return nil
}

// UpdateForm implements forms.Store.
func (s *Store) UpdateForm(ctx context.Context, f *forms.Form) error {
	err := s.db.QueryRowxContext(ctx, s.q(`UPDATE forms_forms SET name = ?, slug = ?, description = ?, submit_button_text = ?,
		success_message = ?, redirect_url = ?, is_active = ?, is_multi_step = ?, show_progress_bar = ?,
		allow_step_navigation = ?, min_fill_seconds = ?, updated_at = ?, version = version + 1 WHERE id = ? RETURNING version`),
		f.Name, f.Slug, f.Description, f.SubmitButtonText, f.SuccessMessage, f.RedirectURL, f.IsActive, f.IsMultiStep,
		f.ShowProgressBar, f.AllowStepNavigation, minFillSeconds(f), store.NewTime(f.UpdatedAt), f.ID).Scan(&f.Version)
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
func (s *Store) Form(ctx context.Context, id int64) (*forms.Form, error) {
	return s.formWhere(ctx, "f.id = ?", id)
}

// FormBySlug implements forms.Store.
func (s *Store) FormBySlug(ctx context.Context, slug string) (*forms.Form, error) {
	return s.formWhere(ctx, "f.slug = ?", slug)
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
	allWhere, allArgs := submissionFilter(forms.SubmissionQuery{FormID: formID})
	unreadWhere, unreadArgs := submissionFilter(unreadQ)
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
func (s *Store) ListForms(ctx context.Context, q forms.FormQuery) ([]forms.Form, int, error) {
	where, args := "1 = 1", []any{}
	if q.Active != nil {
		where, args = "is_active = ?", append(args, *q.Active)
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

// ---- fields ----

type fieldRow struct {
	ID               int64                             `db:"id"`
	FormID           int64                             `db:"form_id"`
	StepID           *int64                            `db:"step_id"`
	UUID             string                            `db:"uuid"`
	Name             string                            `db:"name"`
	Type             string                            `db:"type"`
	Label            string                            `db:"label"`
	Placeholder      string                            `db:"placeholder"`
	HelpText         string                            `db:"help_text"`
	IsRequired       bool                              `db:"is_required"`
	ValidationRules  store.JSON[forms.ValidationRules] `db:"validation_rules"`
	FieldConfig      store.JSON[map[string]any]        `db:"field_config"`
	DefaultValue     string                            `db:"default_value"`
	ConditionalLogic store.JSON[*forms.Logic]          `db:"conditional_logic"`
	Width            string                            `db:"width"`
	CSSClasses       string                            `db:"css_classes"`
	SortOrder        int                               `db:"sort_order"`
	CreatedAt        store.Time                        `db:"created_at"`
	UpdatedAt        store.Time                        `db:"updated_at"`
}

const fieldColumns = `id, form_id, step_id, uuid, name, type, label, placeholder, help_text, is_required, validation_rules,
	field_config, default_value, conditional_logic, width, css_classes, sort_order, created_at, updated_at`

func (r fieldRow) field() forms.Field {
	cfg := r.FieldConfig.V
	if cfg == nil {
		cfg = map[string]any{}
	}
	return forms.Field{ID: r.ID, FormID: r.FormID, StepID: r.StepID, UUID: r.UUID, Name: r.Name, Type: r.Type, Label: r.Label,
		Placeholder: r.Placeholder, HelpText: r.HelpText, IsRequired: r.IsRequired, ValidationRules: r.ValidationRules.V,
		FieldConfig: cfg, DefaultValue: r.DefaultValue, ConditionalLogic: r.ConditionalLogic.V, Width: r.Width,
		CSSClasses: r.CSSClasses, SortOrder: r.SortOrder, CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time}
}

func config(f *forms.Field) store.JSON[map[string]any] {
	if f.FieldConfig == nil {
		return store.JSON[map[string]any]{V: map[string]any{}}
	}
	return store.JSON[map[string]any]{V: f.FieldConfig}
}

// logic stores nil logic as NULL.
func logic(l *forms.Logic) any {
	if l == nil {
		return nil
	}
	return store.JSON[*forms.Logic]{V: l}
}

// Fields implements forms.Store.
func (s *Store) Fields(ctx context.Context, formID int64) ([]forms.Field, error) {
	var rows []fieldRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(`SELECT `+fieldColumns+` FROM forms_fields WHERE form_id = ?
		ORDER BY sort_order, id`), formID); err != nil {
		return nil, fmt.Errorf("formssql: fields: %w", err)
	}
	out := make([]forms.Field, len(rows))
	for i, r := range rows {
		out[i] = r.field()
	}
	return out, nil
}

// stepScope is the SQL condition for "the same step as ?", NULL included.
const stepScope = `(step_id = ? OR (step_id IS NULL AND CAST(? AS BIGINT) IS NULL))`

// CreateField implements forms.Store.
func (s *Store) CreateField(ctx context.Context, f *forms.Field) error {
	err := s.changeDefinition(ctx, f.FormID, func(tx *sqlx.Tx) error {
		return tx.QueryRowxContext(ctx, tx.Rebind(`INSERT INTO forms_fields (form_id, step_id, uuid, name, type, label, placeholder,
		help_text, is_required, validation_rules, field_config, default_value, conditional_logic, width, css_classes, sort_order,
		created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
			(SELECT COALESCE(MAX(sort_order), 0) + 1 FROM forms_fields WHERE form_id = ? AND `+stepScope+`), ?, ?)
		RETURNING id, sort_order`),
			f.FormID, f.StepID, f.UUID, f.Name, f.Type, f.Label, f.Placeholder, f.HelpText, f.IsRequired,
			store.JSON[forms.ValidationRules]{V: f.ValidationRules}, config(f), f.DefaultValue, logic(f.ConditionalLogic), f.Width,
			f.CSSClasses, f.FormID, f.StepID, f.StepID, store.NewTime(f.CreatedAt), store.NewTime(f.UpdatedAt)).Scan(&f.ID, &f.SortOrder)
	})
	if err != nil {
		if store.IsUniqueViolation(err) {
			return forms.ErrConflict
		}
		return fmt.Errorf("formssql: create field: %w", err)
	}
	return nil
}

// UpdateField implements forms.Store.
func (s *Store) UpdateField(ctx context.Context, f *forms.Field) error {
	err := s.changeDefinition(ctx, f.FormID, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE forms_fields SET step_id = ?, name = ?, type = ?, label = ?, placeholder = ?,
		help_text = ?, is_required = ?, validation_rules = ?, field_config = ?, default_value = ?, conditional_logic = ?,
		width = ?, css_classes = ?, sort_order = ?, updated_at = ? WHERE id = ? AND form_id = ?`),
			f.StepID, f.Name, f.Type, f.Label, f.Placeholder, f.HelpText, f.IsRequired, store.JSON[forms.ValidationRules]{V: f.ValidationRules},
			config(f), f.DefaultValue, logic(f.ConditionalLogic), f.Width, f.CSSClasses, f.SortOrder, store.NewTime(f.UpdatedAt), f.ID, f.FormID)
		if store.IsUniqueViolation(err) {
			return forms.ErrConflict
		}
		return affected("update field", res, err)
	})
	return definitionError("update field", err)
}

// definitionError passes the store's sentinels through and wraps the rest.
func definitionError(what string, err error) error {
	if err == nil || errors.Is(err, forms.ErrNotFound) || errors.Is(err, forms.ErrConflict) {
		return err
	}
	return fmt.Errorf("formssql: %s: %w", what, err)
}

// DeleteField implements forms.Store.
func (s *Store) DeleteField(ctx context.Context, formID, id int64) error {
	return definitionError("delete field", s.changeDefinition(ctx, formID, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM forms_fields WHERE id = ? AND form_id = ?`), id, formID)
		return affected("delete field", res, err)
	}))
}

// SetFieldOrder implements forms.Store.
func (s *Store) SetFieldOrder(ctx context.Context, formID int64, order []forms.FieldPlace) error {
	err := s.changeDefinition(ctx, formID, func(tx *sqlx.Tx) error {
		stmt, err := tx.PreparexContext(ctx, tx.Rebind(`UPDATE forms_fields SET step_id = ?, sort_order = ? WHERE id = ? AND form_id = ?`))
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, p := range order {
			res, err := stmt.ExecContext(ctx, p.StepID, p.SortOrder, p.ID, formID)
			if err := affected("order field", res, err); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, forms.ErrNotFound) {
		return fmt.Errorf("formssql: order fields: %w", err)
	}
	return err
}

// ---- steps ----

type stepRow struct {
	ID             int64      `db:"id"`
	FormID         int64      `db:"form_id"`
	Title          string     `db:"title"`
	Description    string     `db:"description"`
	NextButtonText string     `db:"next_button_text"`
	PrevButtonText string     `db:"prev_button_text"`
	SortOrder      int        `db:"sort_order"`
	CreatedAt      store.Time `db:"created_at"`
	UpdatedAt      store.Time `db:"updated_at"`
}

func (r stepRow) step() forms.Step {
	return forms.Step{ID: r.ID, FormID: r.FormID, Title: r.Title, Description: r.Description, NextButtonText: r.NextButtonText,
		PrevButtonText: r.PrevButtonText, SortOrder: r.SortOrder, CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time}
}

// Steps implements forms.Store.
func (s *Store) Steps(ctx context.Context, formID int64) ([]forms.Step, error) {
	var rows []stepRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(`SELECT id, form_id, title, description, next_button_text,
		prev_button_text, sort_order, created_at, updated_at FROM forms_steps WHERE form_id = ? ORDER BY sort_order, id`), formID); err != nil {
		return nil, fmt.Errorf("formssql: steps: %w", err)
	}
	out := make([]forms.Step, len(rows))
	for i, r := range rows {
		out[i] = r.step()
	}
	return out, nil
}

// CreateStep implements forms.Store.
func (s *Store) CreateStep(ctx context.Context, st *forms.Step) error {
	err := s.changeDefinition(ctx, st.FormID, func(tx *sqlx.Tx) error {
		return tx.QueryRowxContext(ctx, tx.Rebind(`INSERT INTO forms_steps (form_id, title, description, next_button_text,
		prev_button_text, sort_order, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(sort_order), 0) + 1 FROM forms_steps WHERE form_id = ?), ?, ?)
		RETURNING id, sort_order`),
			st.FormID, st.Title, st.Description, st.NextButtonText, st.PrevButtonText, st.FormID,
			store.NewTime(st.CreatedAt), store.NewTime(st.UpdatedAt)).Scan(&st.ID, &st.SortOrder)
	})
	if err != nil {
		return fmt.Errorf("formssql: create step: %w", store.MapError(err))
	}
	return nil
}

// UpdateStep implements forms.Store.
func (s *Store) UpdateStep(ctx context.Context, st *forms.Step) error {
	return definitionError("update step", s.changeDefinition(ctx, st.FormID, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE forms_steps SET title = ?, description = ?, next_button_text = ?,
			prev_button_text = ?, updated_at = ? WHERE id = ? AND form_id = ?`),
			st.Title, st.Description, st.NextButtonText, st.PrevButtonText, store.NewTime(st.UpdatedAt), st.ID, st.FormID)
		return affected("update step", res, err)
	}))
}

// DeleteStep implements forms.Store.
func (s *Store) DeleteStep(ctx context.Context, formID, id int64, moveTo *int64) error {
	err := s.changeDefinition(ctx, formID, func(tx *sqlx.Tx) error {
		// Append the step's fields to the target, keeping their order.
		var last int
		if err := tx.GetContext(ctx, &last, tx.Rebind(`SELECT COALESCE(MAX(sort_order), 0) FROM forms_fields
			WHERE form_id = ? AND `+stepScope), formID, moveTo, moveTo); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE forms_fields SET step_id = ?, sort_order = sort_order + ?
			WHERE form_id = ? AND step_id = ?`), moveTo, last, formID, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM forms_steps WHERE id = ? AND form_id = ?`), id, formID)
		return affected("delete step", res, err)
	})
	if err != nil && !errors.Is(err, forms.ErrNotFound) {
		return fmt.Errorf("formssql: delete step: %w", err)
	}
	return err
}

// SetStepOrder implements forms.Store.
func (s *Store) SetStepOrder(ctx context.Context, formID int64, ids []int64) error {
	err := s.changeDefinition(ctx, formID, func(tx *sqlx.Tx) error {
		for i, id := range ids {
			res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE forms_steps SET sort_order = ? WHERE id = ? AND form_id = ?`), i+1, id, formID)
			if err := affected("order step", res, err); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, forms.ErrNotFound) {
		return fmt.Errorf("formssql: order steps: %w", err)
	}
	return err
}

// ---- submissions ----

type submissionRow struct {
	ID          int64      `db:"id"`
	FormID      int64      `db:"form_id"`
	PageURL     string     `db:"page_url"`
	ReferrerURL string     `db:"referrer_url"`
	IPAddress   string     `db:"ip_address"`
	UserAgent   string     `db:"user_agent"`
	IsRead      bool       `db:"is_read"`
	IsSpam      bool       `db:"is_spam"`
	IsStarred   bool       `db:"is_starred"`
	AdminNotes  string     `db:"admin_notes"`
	CreatedAt   store.Time `db:"created_at"`
	UpdatedAt   store.Time `db:"updated_at"`
}

const submissionColumns = `id, form_id, page_url, referrer_url, ip_address, user_agent, is_read, is_spam, is_starred,
	admin_notes, created_at, updated_at`

func (r submissionRow) submission() forms.Submission {
	return forms.Submission{ID: r.ID, FormID: r.FormID, PageURL: r.PageURL, ReferrerURL: r.ReferrerURL, IPAddress: r.IPAddress,
		UserAgent: r.UserAgent, IsRead: r.IsRead, IsSpam: r.IsSpam, IsStarred: r.IsStarred, AdminNotes: r.AdminNotes,
		CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time, Values: []forms.Value{}, Uploads: []forms.Upload{}}
}

// CreateSubmission implements forms.Store.
//
// On Postgres a submission without uploads is one statement (a
// data-modifying WITH), and with nothing for then to do it runs without
// an explicit transaction: one round trip instead of four.
func (s *Store) CreateSubmission(ctx context.Context, sub *forms.Submission, then func(context.Context, *sql.Tx) error) error {
	oneStatement := s.db.Dialect() == store.Postgres && len(sub.Uploads) == 0
	var err error
	if oneStatement && then == nil {
		err = store.MapError(insertSubmissionPostgres(ctx, s.db, sub))
	} else {
		err = s.db.InTx(ctx, func(tx *sqlx.Tx) error {
			if oneStatement {
				if err := insertSubmissionPostgres(ctx, tx, sub); err != nil {
					return err
				}
			} else if err := s.checkVersion(ctx, tx, sub); err != nil {
				return err
			} else if err := s.insertSubmission(ctx, tx, sub); err != nil {
				return err
			}
			if then != nil {
				return then(ctx, tx.Tx)
			}
			return nil
		})
	}
	if store.IsForeignKeyViolation(err) {
		// The form was deleted since the caller read it.
		return fmt.Errorf("formssql: create submission: %w: %w", noForm(sub), err)
	}
	if errors.Is(err, forms.ErrStale) || errors.Is(err, forms.ErrNotFound) {
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
		fieldIDs[i], names[i], labels[i], types[i], values[i], displays[i] = v.FieldID, v.FieldName, v.FieldLabel, v.FieldType, v.Value, v.DisplayValue
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
			admin_notes, created_at, updated_at)
		SELECT f.id, $2::text, $3::text, $4::text, $5::text, $6::boolean, $7::boolean, $8::boolean, $9::text,
			$10::timestamptz, $11::timestamptz FROM f RETURNING id
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
		fieldIDs, names, labels, types, values, arrays, displays, created, sub.FormVersion)
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
			user_agent, is_read, is_spam, is_starred, admin_notes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			RETURNING id`), sub.FormID, sub.PageURL, sub.ReferrerURL, sub.IPAddress, sub.UserAgent, sub.IsRead, sub.IsSpam,
		sub.IsStarred, sub.AdminNotes, created, store.NewTime(sub.UpdatedAt)).Scan(&sub.ID); err != nil {
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
		FieldType: r.FieldType, Value: r.Value, ValueArray: r.ValueArray.V, DisplayValue: r.DisplayValue, UploadID: r.UploadID,
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

func submissionFilter(q forms.SubmissionQuery) (string, []any) {
	where, args := []string{"form_id = ?"}, []any{q.FormID}
	for _, f := range []struct {
		col string
		v   *bool
	}{{"is_read", q.IsRead}, {"is_spam", q.IsSpam}, {"is_starred", q.IsStarred}} {
		if f.v != nil {
			where, args = append(where, f.col+" = ?"), append(args, *f.v)
		}
	}
	return strings.Join(where, " AND "), args
}

// ListSubmissions implements forms.Store. A filter with a list index
// (see Store) takes its total from it and seeks to the page by key;
// otherwise the count and the page are read at once on two connections,
// and a large count gets the filter an index for the next request.
func (s *Store) ListSubmissions(ctx context.Context, q forms.SubmissionQuery) ([]forms.Submission, int, error) {
	where, args := submissionFilter(q)
	if idx := s.lists.get(q.FormID, where, args); idx != nil {
		subs, err := s.page(ctx, where, args, q, idx)
		if err != nil {
			return nil, 0, err
		}
		return subs, idx.total, nil
	}
	var total int
	var count errgroup.Group
	count.Go(func() error {
		if err := s.db.Reader().GetContext(ctx, &total, s.q(`SELECT COUNT(*) FROM forms_submissions WHERE `+where), args...); err != nil {
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
	s.lists.counted(q.FormID, where, args, total)
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
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(query), params...); err != nil {
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
			&r.IsStarred, &r.AdminNotes, &r.CreatedAt, &r.UpdatedAt); err != nil {
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
	rows, err := s.db.Reader().QueryContext(ctx, s.q(`SELECT submission_id, field_name, display_value FROM forms_values
		WHERE submission_id IN (?`+strings.Repeat(", ?", len(ids)-1)+`) ORDER BY submission_id, id`), ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var v forms.Value
		if err := rows.Scan(&id, &v.FieldName, &v.DisplayValue); err != nil {
			return err
		}
		i := index[id]
		subs[i].Values = append(subs[i].Values, v)
	}
	return rows.Err()
}

// UpdateSubmission implements forms.Store.
func (s *Store) UpdateSubmission(ctx context.Context, sub *forms.Submission) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE forms_submissions SET is_read = ?, is_spam = ?, is_starred = ?, admin_notes = ?,
		updated_at = ? WHERE id = ? AND form_id = ?`), sub.IsRead, sub.IsSpam, sub.IsStarred, sub.AdminNotes,
		store.NewTime(sub.UpdatedAt), sub.ID, sub.FormID)
	s.lists.wrote(sub.FormID)
	return affected("update submission", res, err)
}

// ReleaseSpam implements forms.Store.
func (s *Store) ReleaseSpam(ctx context.Context, formID int64, ids []int64, at time.Time,
	then func(ctx context.Context, tx *sql.Tx, released []int64) error) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	query, args, err := sqlx.In(`UPDATE forms_submissions SET is_spam = ?, updated_at = ? WHERE form_id = ? AND is_spam = ? AND id IN (?)
		RETURNING id`, false, store.NewTime(at), formID, true, ids)
	if err != nil {
		return 0, err
	}
	var released []int64
	err = s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		released = nil
		if err := tx.SelectContext(ctx, &released, tx.Rebind(query), args...); err != nil {
			return err
		}
		if len(released) == 0 || then == nil {
			return nil
		}
		slices.Sort(released)
		return then(ctx, tx.Tx, released)
	})
	s.lists.wrote(formID)
	if err != nil {
		return 0, fmt.Errorf("formssql: release spam: %w", err)
	}
	return len(released), nil
}

// keptRow is a forms_kept_uploads row.
type keptRow struct {
	ID           string     `db:"id"`
	FormID       int64      `db:"form_id"`
	FieldName    string     `db:"field_name"`
	OriginalName string     `db:"original_name"`
	StoredName   string     `db:"stored_name"`
	Key          string     `db:"blob_key"`
	MimeType     string     `db:"mime_type"`
	Size         int64      `db:"size"`
	CreatedAt    store.Time `db:"created_at"`
}

// KeepUpload implements forms.Store.
func (s *Store) KeepUpload(ctx context.Context, k forms.KeptUpload) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO forms_kept_uploads (id, form_id, field_name, original_name, stored_name, blob_key,
		mime_type, size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`), k.ID, k.FormID, k.FieldName, k.OriginalName, k.StoredName, k.Key,
		k.MimeType, k.Size, store.NewTime(k.CreatedAt))
	if err != nil {
		return fmt.Errorf("formssql: keep upload: %w", err)
	}
	return nil
}

// TakeUpload implements forms.Store.
func (s *Store) TakeUpload(ctx context.Context, formID int64, id string) (forms.KeptUpload, error) {
	var r keptRow
	err := s.db.GetContext(ctx, &r, s.q(`DELETE FROM forms_kept_uploads WHERE form_id = ? AND id = ? RETURNING id, form_id, field_name,
		original_name, stored_name, blob_key, mime_type, size, created_at`), formID, id)
	if err != nil {
		return forms.KeptUpload{}, notFound("kept upload", err)
	}
	return forms.KeptUpload{ID: r.ID, FormID: r.FormID, CreatedAt: r.CreatedAt.Time, IncomingFile: forms.IncomingFile{FieldName: r.FieldName,
		OriginalName: r.OriginalName, StoredName: r.StoredName, Key: r.Key, MimeType: r.MimeType, Size: r.Size}}, nil
}

// DropKeptUploads implements forms.Store.
func (s *Store) DropKeptUploads(ctx context.Context, before time.Time) ([]string, error) {
	var keys []string
	err := s.db.SelectContext(ctx, &keys, s.q(`DELETE FROM forms_kept_uploads WHERE created_at < ? RETURNING blob_key`), store.NewTime(before))
	if err != nil {
		return nil, fmt.Errorf("formssql: drop kept uploads: %w", err)
	}
	slices.Sort(keys)
	return keys, nil
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
	if err := s.db.Reader().GetContext(ctx, &r, s.q(`SELECT id, submission_id, field_id, original_name, stored_name, blob_key,
		mime_type, size, created_at FROM forms_uploads WHERE id = ? AND submission_id = ?`), id, submissionID); err != nil {
		return nil, notFound("upload", err)
	}
	u := r.upload()
	return &u, nil
}

// ---- notifications ----

type notificationRow struct {
	ID               int64                    `db:"id"`
	FormID           int64                    `db:"form_id"`
	Type             string                   `db:"type"`
	Subject          string                   `db:"subject"`
	Recipients       string                   `db:"recipients"`
	Message          string                   `db:"message"`
	IsEnabled        bool                     `db:"is_enabled"`
	ConditionalLogic store.JSON[*forms.Logic] `db:"conditional_logic"`
	CreatedAt        store.Time               `db:"created_at"`
	UpdatedAt        store.Time               `db:"updated_at"`
}

func (r notificationRow) notification() forms.Notification {
	return forms.Notification{ID: r.ID, FormID: r.FormID, Type: r.Type, Subject: r.Subject, Recipients: r.Recipients,
		Message: r.Message, IsEnabled: r.IsEnabled, ConditionalLogic: r.ConditionalLogic.V, CreatedAt: r.CreatedAt.Time,
		UpdatedAt: r.UpdatedAt.Time}
}

const notificationColumns = `id, form_id, type, subject, recipients, message, is_enabled, conditional_logic, created_at, updated_at`

// Notifications implements forms.Store.
func (s *Store) Notifications(ctx context.Context, formID int64) ([]forms.Notification, error) {
	var rows []notificationRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(`SELECT `+notificationColumns+` FROM forms_notifications
		WHERE form_id = ? ORDER BY id`), formID); err != nil {
		return nil, fmt.Errorf("formssql: notifications: %w", err)
	}
	out := make([]forms.Notification, len(rows))
	for i, r := range rows {
		out[i] = r.notification()
	}
	return out, nil
}

// Notification implements forms.Store.
func (s *Store) Notification(ctx context.Context, formID, id int64) (*forms.Notification, error) {
	var r notificationRow
	if err := s.db.Reader().GetContext(ctx, &r, s.q(`SELECT `+notificationColumns+` FROM forms_notifications
		WHERE id = ? AND form_id = ?`), id, formID); err != nil {
		return nil, notFound("notification", err)
	}
	n := r.notification()
	return &n, nil
}

// CreateNotification implements forms.Store.
func (s *Store) CreateNotification(ctx context.Context, n *forms.Notification) error {
	err := s.changeDefinition(ctx, n.FormID, func(tx *sqlx.Tx) error {
		return tx.QueryRowxContext(ctx, tx.Rebind(`INSERT INTO forms_notifications (form_id, type, subject, recipients, message,
			is_enabled, conditional_logic, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			n.FormID, n.Type, n.Subject, n.Recipients, n.Message, n.IsEnabled, logic(n.ConditionalLogic),
			store.NewTime(n.CreatedAt), store.NewTime(n.UpdatedAt)).Scan(&n.ID)
	})
	if err != nil {
		return fmt.Errorf("formssql: create notification: %w", store.MapError(err))
	}
	return nil
}

// UpdateNotification implements forms.Store.
func (s *Store) UpdateNotification(ctx context.Context, n *forms.Notification) error {
	return definitionError("update notification", s.changeDefinition(ctx, n.FormID, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE forms_notifications SET type = ?, subject = ?, recipients = ?, message = ?,
			is_enabled = ?, conditional_logic = ?, updated_at = ? WHERE id = ? AND form_id = ?`),
			n.Type, n.Subject, n.Recipients, n.Message, n.IsEnabled, logic(n.ConditionalLogic), store.NewTime(n.UpdatedAt), n.ID, n.FormID)
		return affected("update notification", res, err)
	}))
}

// DeleteNotification implements forms.Store.
func (s *Store) DeleteNotification(ctx context.Context, formID, id int64) error {
	return definitionError("delete notification", s.changeDefinition(ctx, formID, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM forms_notifications WHERE id = ? AND form_id = ?`), id, formID)
		return affected("delete notification", res, err)
	}))
}
