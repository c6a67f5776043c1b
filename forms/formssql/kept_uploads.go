package formssql

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
)

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
