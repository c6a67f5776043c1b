package store_test

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// files is a line's directory for both dialects (the statements here are
// the same in each).
func files(names map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, sql := range names {
		fsys["sqlite/"+name] = &fstest.MapFile{Data: []byte(sql)}
		fsys["postgres/"+name] = &fstest.MapFile{Data: []byte(sql)}
	}
	return fsys
}

// A baseline stands for the versions it folded: a fresh database runs it
// alone, a database the earlier files made is taken as at it and goes on
// from there, and one the earlier files left half way is refused with
// what to do, its tables untouched.
func TestMigrateBaseline(t *testing.T) {
	t.Parallel()
	before := files(map[string]string{
		"0001_widgets.sql": "CREATE TABLE widgets (id INTEGER PRIMARY KEY);",
		"0002_name.sql":    "ALTER TABLE widgets ADD COLUMN name TEXT NOT NULL DEFAULT '';",
	})
	after := files(map[string]string{
		"0002_baseline.sql": "CREATE TABLE widgets (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');",
		"0003_size.sql":     "ALTER TABLE widgets ADD COLUMN size INTEGER NOT NULL DEFAULT 0;",
	})
	// Each database is migrated here, not copied from storetest's image of
	// a line's name: the line "widgets" has three histories below.
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()

		fresh := storetest.OpenDSN(t, storetest.DSN(t, d))
		require.NoError(t, store.Migrate(ctx, fresh, store.Migrations{Line: "widgets", FS: after}))
		versions, err := store.AppliedVersions(ctx, fresh, "widgets")
		require.NoError(t, err)
		require.Equal(t, []int{2, 3}, versions)

		old := storetest.OpenDSN(t, storetest.DSN(t, d), store.Migrations{Line: "widgets", FS: before})
		_, err = old.ExecContext(ctx, old.Rebind(`INSERT INTO widgets (id, name) VALUES (?, ?)`), 1, "kept")
		require.NoError(t, err)
		require.NoError(t, store.Migrate(ctx, old, store.Migrations{Line: "widgets", FS: after}))
		versions, err = store.AppliedVersions(ctx, old, "widgets")
		require.NoError(t, err)
		require.Equal(t, []int{1, 2, 3}, versions, "the baseline is not run over the files it folded")
		var row struct {
			Name string `db:"name"`
			Size int    `db:"size"`
		}
		require.NoError(t, old.GetContext(ctx, &row, `SELECT name, size FROM widgets WHERE id = 1`))
		require.Equal(t, "kept", row.Name)
		pending, err := store.Pending(ctx, old, store.Migrations{Line: "widgets", FS: after})
		require.NoError(t, err)
		require.Empty(t, pending)

		halfWay := storetest.OpenDSN(t, storetest.DSN(t, d), store.Migrations{Line: "widgets", FS: fstest.MapFS{
			string(d) + "/0001_widgets.sql": before[string(d)+"/0001_widgets.sql"],
		}})
		err = store.Migrate(ctx, halfWay, store.Migrations{Line: "widgets", FS: after})
		require.ErrorContains(t, err, "older than its baseline (0002_baseline)")
		require.ErrorContains(t, err, "migrate it with that older code first")
		versions, err = store.AppliedVersions(ctx, halfWay, "widgets")
		require.NoError(t, err)
		require.Equal(t, []int{1}, versions)

		misplaced := files(map[string]string{"0001_widgets.sql": "SELECT 1;", "0002_baseline.sql": "SELECT 1;"})
		err = store.Migrate(ctx, storetest.OpenDSN(t, storetest.DSN(t, d)), store.Migrations{Line: "widgets", FS: misplaced})
		require.ErrorContains(t, err, "a baseline comes first")
	})
}
