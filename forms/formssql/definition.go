package formssql

import (
	"context"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formsstore"
	"github.com/groundwork-go/groundwork/store"
)

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
	return forms.Field{ID: r.ID, FormID: r.FormID, StepID: r.StepID, UUID: r.UUID, Name: r.Name, Type: forms.FieldType(r.Type), Label: r.Label,
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
func (s *Store) SetFieldOrder(ctx context.Context, formID int64, order []formsstore.FieldPlace) error {
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
	ID             int64                     `db:"id"`
	FormID         int64                     `db:"form_id"`
	Title          string                    `db:"title"`
	Description    string                    `db:"description"`
	NextButtonText string                    `db:"next_button_text"`
	PrevButtonText string                    `db:"prev_button_text"`
	SortOrder      int                       `db:"sort_order"`
	CreatedAt      store.Time                `db:"created_at"`
	UpdatedAt      store.Time                `db:"updated_at"`
	Jumps          store.JSON[[]forms.Logic] `db:"jumps"`
}

func (r stepRow) step() forms.Step {
	if r.Jumps.V == nil {
		r.Jumps.V = []forms.Logic{}
	}
	return forms.Step{ID: r.ID, FormID: r.FormID, Title: r.Title, Description: r.Description, NextButtonText: r.NextButtonText,
		PrevButtonText: r.PrevButtonText, SortOrder: r.SortOrder, CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time, Jumps: r.Jumps.V}
}

// jumpsOf is a step's jumps as kept: NULL for none.
func jumpsOf(st *forms.Step) any {
	if len(st.Jumps) == 0 {
		return nil
	}
	return store.JSON[[]forms.Logic]{V: st.Jumps}
}

// Steps implements forms.Store.
func (s *Store) Steps(ctx context.Context, formID int64) ([]forms.Step, error) {
	var rows []stepRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(`SELECT id, form_id, title, description, next_button_text,
		prev_button_text, sort_order, created_at, updated_at, jumps FROM forms_steps WHERE form_id = ? ORDER BY sort_order, id`), formID); err != nil {
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
		prev_button_text, sort_order, created_at, updated_at, jumps)
		VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(sort_order), 0) + 1 FROM forms_steps WHERE form_id = ?), ?, ?, ?)
		RETURNING id, sort_order`),
			st.FormID, st.Title, st.Description, st.NextButtonText, st.PrevButtonText, st.FormID,
			store.NewTime(st.CreatedAt), store.NewTime(st.UpdatedAt), jumpsOf(st)).Scan(&st.ID, &st.SortOrder)
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
			prev_button_text = ?, updated_at = ?, jumps = ? WHERE id = ? AND form_id = ?`),
			st.Title, st.Description, st.NextButtonText, st.PrevButtonText, store.NewTime(st.UpdatedAt), jumpsOf(st), st.ID, st.FormID)
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
