package formssql

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
)

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
	Secret           *string                  `db:"secret"`
	CreatedAt        store.Time               `db:"created_at"`
	UpdatedAt        store.Time               `db:"updated_at"`
}

func (r notificationRow) notification() forms.Notification {
	return forms.Notification{ID: r.ID, FormID: r.FormID, Type: forms.NotificationType(r.Type), Subject: r.Subject, Recipients: r.Recipients,
		Message: r.Message, IsEnabled: r.IsEnabled, ConditionalLogic: r.ConditionalLogic.V, Secret: deref(r.Secret), CreatedAt: r.CreatedAt.Time,
		UpdatedAt: r.UpdatedAt.Time}
}

const notificationColumns = `id, form_id, type, subject, recipients, message, is_enabled, conditional_logic, secret, created_at, updated_at`

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

// CreateNotification implements forms.Store.
func (s *Store) CreateNotification(ctx context.Context, n *forms.Notification) error {
	err := s.changeDefinition(ctx, n.FormID, func(tx *sqlx.Tx) error {
		return tx.QueryRowxContext(ctx, tx.Rebind(`INSERT INTO forms_notifications (form_id, type, subject, recipients, message,
			is_enabled, conditional_logic, secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			n.FormID, n.Type, n.Subject, n.Recipients, n.Message, n.IsEnabled, logic(n.ConditionalLogic), orNull(n.Secret),
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
			is_enabled = ?, conditional_logic = ?, secret = ?, updated_at = ? WHERE id = ? AND form_id = ?`),
			n.Type, n.Subject, n.Recipients, n.Message, n.IsEnabled, logic(n.ConditionalLogic), orNull(n.Secret), store.NewTime(n.UpdatedAt),
			n.ID, n.FormID)
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

// orNull is s, or NULL when empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// deref is *p, or "" for NULL.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
