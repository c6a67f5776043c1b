package formssql

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
)

type partialRow struct {
	ID        int64      `db:"id"`
	FormID    int64      `db:"form_id"`
	TokenHash string     `db:"token_hash"`
	Answers   string     `db:"answers"`
	Uploads   string     `db:"uploads"`
	LastStep  int        `db:"last_step"`
	CreatedAt store.Time `db:"created_at"`
	UpdatedAt store.Time `db:"updated_at"`
	ExpiresAt store.Time `db:"expires_at"`
}

const partialColumns = `id, form_id, token_hash, answers, uploads, last_step, created_at, updated_at, expires_at`

func (r partialRow) partial() (forms.Partial, error) {
	p := forms.Partial{ID: r.ID, FormID: r.FormID, TokenHash: r.TokenHash, LastStep: r.LastStep, CreatedAt: r.CreatedAt.Time,
		UpdatedAt: r.UpdatedAt.Time, ExpiresAt: r.ExpiresAt.Time}
	if err := json.Unmarshal([]byte(r.Answers), &p.Values); err != nil {
		return p, fmt.Errorf("answers of partial %d: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(r.Uploads), &p.Uploads); err != nil {
		return p, fmt.Errorf("uploads of partial %d: %w", r.ID, err)
	}
	return p, nil
}

// SavePartial implements forms.Store.
func (s *Store) SavePartial(ctx context.Context, p *forms.Partial) error {
	answers, err := json.Marshal(p.Values)
	if err != nil {
		return fmt.Errorf("formssql: save partial: %w", err)
	}
	uploads, err := json.Marshal(p.Uploads)
	if err != nil {
		return fmt.Errorf("formssql: save partial: %w", err)
	}
	if p.ID == 0 {
		err = s.db.QueryRowxContext(ctx, s.q(`INSERT INTO forms_partials (form_id, token_hash, answers, uploads, last_step, created_at,
			updated_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`), p.FormID, p.TokenHash, string(answers), string(uploads),
			p.LastStep, store.NewTime(p.CreatedAt), store.NewTime(p.UpdatedAt), store.NewTime(p.ExpiresAt)).Scan(&p.ID)
		if err != nil {
			return fmt.Errorf("formssql: save partial: %w", store.MapError(err))
		}
		return nil
	}
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE forms_partials SET answers = ?, uploads = ?, last_step = ?, updated_at = ?, expires_at = ?
		WHERE id = ? AND form_id = ?`), string(answers), string(uploads), p.LastStep, store.NewTime(p.UpdatedAt), store.NewTime(p.ExpiresAt),
		p.ID, p.FormID)
	return affected("save partial", res, err)
}

// PartialByToken implements forms.Store.
func (s *Store) PartialByToken(ctx context.Context, formID int64, tokenHash string) (*forms.Partial, error) {
	var r partialRow
	err := s.db.Reader().GetContext(ctx, &r, s.q(`SELECT `+partialColumns+` FROM forms_partials WHERE form_id = ? AND token_hash = ?`),
		formID, tokenHash)
	if err != nil {
		return nil, notFound("partial", err)
	}
	p, err := r.partial()
	if err != nil {
		return nil, fmt.Errorf("formssql: partial: %w", err)
	}
	return &p, nil
}

// Partials implements forms.Store.
func (s *Store) Partials(ctx context.Context, formID int64) ([]forms.Partial, error) {
	var rows []partialRow
	err := s.db.Reader().SelectContext(ctx, &rows, s.q(`SELECT `+partialColumns+` FROM forms_partials WHERE form_id = ?
		ORDER BY updated_at DESC, id DESC`), formID)
	if err != nil {
		return nil, fmt.Errorf("formssql: partials: %w", err)
	}
	out := make([]forms.Partial, len(rows))
	for i, r := range rows {
		if out[i], err = r.partial(); err != nil {
			return nil, fmt.Errorf("formssql: partials: %w", err)
		}
	}
	return out, nil
}

// DropExpiredPartials implements forms.Store. Each partial dropped is
// counted in forms_abandoned in the same transaction.
func (s *Store) DropExpiredPartials(ctx context.Context, at time.Time) ([]string, error) {
	var uploads []string
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		var gone []struct {
			FormID    int64      `db:"form_id"`
			LastStep  int        `db:"last_step"`
			CreatedAt store.Time `db:"created_at"`
			Uploads   string     `db:"uploads"`
		}
		if err := tx.SelectContext(ctx, &gone, tx.Rebind(`DELETE FROM forms_partials WHERE expires_at <= ?
			RETURNING form_id, last_step, created_at, uploads`), store.NewTime(at)); err != nil {
			return err
		}
		type key struct {
			form int64
			day  string
			step int
		}
		counts := map[key]int64{}
		for _, g := range gone {
			uploads = append(uploads, g.Uploads)
			counts[key{g.FormID, g.CreatedAt.UTC().Format(time.DateOnly), g.LastStep}]++
		}
		for k, n := range counts {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO forms_abandoned (form_id, day, last_step, count) VALUES (?, ?, ?, ?)
				ON CONFLICT (form_id, day, last_step) DO UPDATE SET count = forms_abandoned.count + excluded.count`), k.form, k.day, k.step, n); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("formssql: drop expired partials: %w", err)
	}
	var keys []string
	for _, raw := range uploads {
		var files []forms.IncomingFile
		if json.Unmarshal([]byte(raw), &files) == nil {
			for _, f := range files {
				keys = append(keys, f.Key)
			}
		}
	}
	slices.Sort(keys)
	return keys, nil
}
