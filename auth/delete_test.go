package auth_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The OnUserDeleting hooks and the deletion share one transaction, begun
// by the service: a host's rows written in a hook go with the deletion,
// and a hook that refuses keeps the user, their tokens and the host's
// rows as they were.
func TestDeleteUserWithHooks(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d, authsql.Migrations)
		_, err := db.ExecContext(ctx, `CREATE TABLE host_erasures (user_id BIGINT NOT NULL)`)
		require.NoError(t, err)
		svc, err := auth.NewService(authsql.New(db), &auth.Options{Password: cheap})
		require.NoError(t, err)
		u, err := svc.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse",
			Capabilities: []string{"forms:*"}})
		require.NoError(t, err)
		token, _, err := svc.CreateUserToken(ctx, u, auth.NewToken{Name: "ci", Abilities: []string{"forms:*"}, UserID: u.ID})
		require.NoError(t, err)

		refuse := true
		svc.OnUserDeleting(func(ctx context.Context, tx *sql.Tx, gone auth.User) error {
			if _, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO host_erasures (user_id) VALUES (?)`), gone.ID); err != nil {
				return err
			}
			if refuse {
				return errors.New("the host keeps this account")
			}
			return nil
		})
		erasures := func() int {
			var n int
			require.NoError(t, db.Reader().GetContext(ctx, &n, `SELECT COUNT(*) FROM host_erasures`))
			return n
		}

		require.ErrorContains(t, svc.DeleteUser(ctx, u.ID), "the host keeps this account")
		_, err = svc.User(ctx, u.ID)
		require.NoError(t, err, "kept")
		_, err = svc.Authenticate(ctx, token)
		require.NoError(t, err, "their token kept")
		require.Zero(t, erasures(), "the hook's write undone with the deletion")

		refuse = false
		require.NoError(t, svc.DeleteUser(ctx, u.ID))
		_, err = svc.User(ctx, u.ID)
		require.ErrorIs(t, err, auth.ErrNotFound)
		_, err = svc.Authenticate(ctx, token)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
		require.Equal(t, 1, erasures(), "the hook's write committed with it")
		require.ErrorIs(t, svc.DeleteUser(ctx, u.ID), auth.ErrNotFound)
		require.Equal(t, 1, erasures(), "a deletion of no one undoes its hooks' writes")
	})
}
