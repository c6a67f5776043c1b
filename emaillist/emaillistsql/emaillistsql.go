// Package emaillistsql is the [emaillist.Store] on SQLite and Postgres.
package emaillistsql

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/store"
)

//go:embed migrations
var migrations embed.FS

// Migrations is the emaillist schema; pass it to store.Migrate.
var Migrations = store.MigrationsFrom("emaillist", migrations, "migrations")

// Store is the emaillist.Store on a store.DB.
type Store struct{ db *store.DB }

var _ emaillist.Store = (*Store)(nil)

// New returns a Store on db, which must be migrated with [Migrations].
func New(db *store.DB) *Store { return &Store{db: db} }

type feedRow struct {
	ID         int64                                   `db:"id"`
	FormID     int64                                   `db:"form_id"`
	Name       string                                  `db:"name"`
	ListFormID sql.NullInt64                           `db:"list_form_id"`
	TagIDs     store.JSON[[]int64]                     `db:"list_tag_ids"`
	FieldMap   store.JSON[map[string]string]           `db:"field_map"`
	Logic      store.JSON[*emaillist.ConditionalLogic] `db:"conditional_logic"`
	IsActive   bool                                    `db:"is_active"`
	CreatedAt  store.Time                              `db:"created_at"`
	UpdatedAt  store.Time                              `db:"updated_at"`
}

const columns = `id, form_id, name, list_form_id, list_tag_ids, field_map, conditional_logic, is_active, created_at, updated_at`

func (r feedRow) feed() emaillist.Feed {
	f := emaillist.Feed{ID: r.ID, FormID: r.FormID, Name: r.Name, ListTagIDs: r.TagIDs.V, FieldMap: r.FieldMap.V,
		ConditionalLogic: r.Logic.V, IsActive: r.IsActive, CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time}
	if r.ListFormID.Valid {
		id := r.ListFormID.Int64
		f.ListFormID = &id
	}
	if f.ListTagIDs == nil {
		f.ListTagIDs = []int64{}
	}
	return f
}

func args(f emaillist.Feed) []any {
	var list sql.NullInt64
	if f.ListFormID != nil {
		list = sql.NullInt64{Int64: *f.ListFormID, Valid: true}
	}
	tags := f.ListTagIDs
	if tags == nil {
		tags = []int64{}
	}
	var logic sql.NullString
	if f.ConditionalLogic != nil {
		v, err := store.JSON[*emaillist.ConditionalLogic]{V: f.ConditionalLogic}.Value()
		if err == nil && v != nil {
			logic = sql.NullString{String: fmt.Sprint(v), Valid: true}
		}
	}
	return []any{f.FormID, f.Name, list, store.JSON[[]int64]{V: tags}, store.JSON[map[string]string]{V: f.FieldMap}, logic,
		f.IsActive, store.NewTime(f.UpdatedAt)}
}

func mapErr(err error, what string) error {
	switch {
	case errors.Is(store.MapError(err), store.ErrNotFound):
		return emaillist.ErrNotFound
	case store.IsUniqueViolation(err):
		return emaillist.ErrNameTaken
	}
	return fmt.Errorf("emaillistsql: %s: %w", what, err)
}

// CreateFeed implements emaillist.Store.
func (s *Store) CreateFeed(ctx context.Context, f emaillist.Feed) (emaillist.Feed, error) {
	var row feedRow
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`INSERT INTO emaillist_feeds (form_id, name, list_form_id, list_tag_ids, field_map,
		conditional_logic, is_active, updated_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING `+columns),
		append(args(f), store.NewTime(f.CreatedAt))...).StructScan(&row)
	if err != nil {
		return emaillist.Feed{}, mapErr(err, "create feed")
	}
	return row.feed(), nil
}

// Feed implements emaillist.Store.
func (s *Store) Feed(ctx context.Context, id int64) (emaillist.Feed, error) {
	var row feedRow
	if err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT `+columns+` FROM emaillist_feeds WHERE id = ?`), id); err != nil {
		return emaillist.Feed{}, mapErr(err, "feed")
	}
	return row.feed(), nil
}

// UpdateFeed implements emaillist.Store.
func (s *Store) UpdateFeed(ctx context.Context, f emaillist.Feed) (emaillist.Feed, error) {
	var row feedRow
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`UPDATE emaillist_feeds SET form_id = ?, name = ?, list_form_id = ?, list_tag_ids = ?,
		field_map = ?, conditional_logic = ?, is_active = ?, updated_at = ? WHERE id = ? RETURNING `+columns),
		append(args(f), f.ID)...).StructScan(&row)
	if err != nil {
		return emaillist.Feed{}, mapErr(err, "update feed")
	}
	return row.feed(), nil
}

// DeleteFeed implements emaillist.Store.
func (s *Store) DeleteFeed(ctx context.Context, id int64) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM emaillist_feeds WHERE id = ?`), id)
	if err != nil {
		return fmt.Errorf("emaillistsql: delete feed: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("emaillistsql: delete feed: %w", err)
	} else if n == 0 {
		return emaillist.ErrNotFound
	}
	return nil
}

// ListFeeds implements emaillist.Store.
func (s *Store) ListFeeds(ctx context.Context, q emaillist.FeedQuery) ([]emaillist.Feed, error) {
	return s.listFeeds(ctx, s.db.Reader(), q)
}

// ListFeedsTx implements emaillist.Store.
func (s *Store) ListFeedsTx(ctx context.Context, tx *sql.Tx, q emaillist.FeedQuery) ([]emaillist.Feed, error) {
	if tx == nil {
		return s.ListFeeds(ctx, q)
	}
	return s.listFeeds(ctx, &sqlx.Tx{Tx: tx, Mapper: s.db.Mapper}, q)
}

func (s *Store) listFeeds(ctx context.Context, db sqlx.QueryerContext, q emaillist.FeedQuery) ([]emaillist.Feed, error) {
	where := []string{"1 = 1"}
	var params []any
	if q.FormID != 0 {
		where, params = append(where, "form_id = ?"), append(params, q.FormID)
	}
	if q.ActiveOnly {
		where = append(where, "is_active")
	}
	var rows []feedRow
	err := sqlx.SelectContext(ctx, db, &rows, s.db.Rebind(`SELECT `+columns+` FROM emaillist_feeds WHERE `+
		strings.Join(where, " AND ")+` ORDER BY id`), params...)
	if err != nil {
		return nil, mapErr(err, "list feeds")
	}
	out := make([]emaillist.Feed, len(rows))
	for i, r := range rows {
		out[i] = r.feed()
	}
	return out, nil
}
