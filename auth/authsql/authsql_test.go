package authsql_test

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/authtest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		authtest.RunStoreTests(t, func(t *testing.T) auth.Store {
			return authsql.New(storetest.Open(t, d, authsql.Migrations))
		})
	})
}

// A token made before users existed (schema 0001 only) still works once
// the users migration has run, and belongs to nobody.
func TestTokensSurviveTheUsersMigration(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		dir := "migrations/" + string(d)
		first, err := fs.ReadFile(authsql.MigrationFiles, dir+"/0001_api_tokens.sql")
		require.NoError(t, err)
		old := store.MigrationsFrom("auth", fstest.MapFS{dir + "/0001_api_tokens.sql": {Data: first}}, "migrations")
		require.NoError(t, store.Migrate(ctx, db, old))
		hash := sha256.Sum256([]byte("gw_" + strings.Repeat("a", 40)))
		_, err = db.ExecContext(ctx, db.Rebind(`INSERT INTO auth_api_tokens (name, secret_hash, abilities, created_at) VALUES (?, ?, ?, ?)`),
			"old", hash[:], `["*"]`, store.NewTime(time.Now()))
		require.NoError(t, err)

		require.NoError(t, store.Migrate(ctx, db, authsql.Migrations))
		svc, err := auth.NewService(authsql.New(db), nil)
		require.NoError(t, err)
		tok, err := svc.Authenticate(ctx, "1|gw_"+strings.Repeat("a", 40))
		require.NoError(t, err)
		require.Equal(t, "old", tok.Name)
		require.Nil(t, tok.UserID)
		require.Equal(t, "token:1", auth.CallerID(tok))
	})
}
