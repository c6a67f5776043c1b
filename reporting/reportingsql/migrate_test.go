package reportingsql_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// TestVisitorDaysFoldTheMarkers: a database kept a row a visitor and
// value before a visitor's day held their values; the migration folds
// those rows into their visitor's day (one with events only gets a day
// without a session), and the next hits count nobody again for what
// they were counted for before it.
func TestVisitorDaysFoldTheMarkers(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dsn := storetest.DSN(t, d)
		old := storetest.OpenDSN(t, dsn, migrationsBefore(t, 10))
		day := "2026-06-01"
		at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
		// Visitor a viewed /pricing from ref.example (a session of one
		// view); b sent an event only.
		for _, r := range [][]any{{"a", "t:"}, {"a", "p:/pricing"}, {"a", "s:ref.example"}, {"a", "a:/pricing"}, {"a", "d:desktop"}, {"b", "e:signup"}} {
			_, err := old.ExecContext(ctx, old.Rebind(`INSERT INTO reporting_seen (day, visitor, scope, last_seen, page, entry, hits) VALUES (?, ?, ?, ?, ?, ?, ?)`),
				day, r[0], r[1], store.NewTime(at), "/pricing", "/pricing", 1)
			require.NoError(t, err)
		}
		_, err := old.ExecContext(ctx, old.Rebind(`UPDATE reporting_seen SET page = '', entry = '', hits = 0 WHERE visitor = 'b'`))
		require.NoError(t, err)

		db := storetest.OpenDSN(t, dsn, reportingsql.Migrations)
		var rows int
		require.NoError(t, db.GetContext(ctx, &rows, `SELECT COUNT(*) FROM reporting_seen`))
		require.Equal(t, 2, rows, "a row a visitor's day")
		st := reportingsql.New(db)
		n, err := st.Recent(ctx, []string{day}, at.Add(-time.Minute))
		require.NoError(t, err)
		require.Equal(t, 1, n, "a visitor now is one with a page view: a, not b")

		hit := func(visitor, path, event string, minutes int) reporting.Hit {
			return reporting.Hit{At: at.Add(time.Duration(minutes) * time.Minute), Day: day, Visitor: visitor, Path: path, Event: event,
				Source: "ref.example", Device: "desktop"}
		}
		require.NoError(t, st.Record(ctx, []reporting.Hit{
			hit("a", "/pricing", "", 5),
			hit("b", "/pricing", "", 6),
			hit("b", "", "signup", 7),
			hit("a", "", "signup", 8),
			hit("c", "/pricing", "", 9)}, nil))
		visitors := func(dim reporting.Dimension, key string) int64 {
			rows, err := st.Daily(ctx, dim, day, day, 0)
			require.NoError(t, err)
			for _, r := range rows {
				if r.Key == key {
					return r.Visitors
				}
			}
			return 0
		}
		require.Equal(t, int64(2), visitors(reporting.DimPage, "/pricing"), "b and c")
		require.Equal(t, int64(2), visitors(reporting.DimSource, "ref.example"), "b and c")
		require.Equal(t, int64(1), visitors(reporting.DimEvent, "signup"), "a")
		sessions, err := st.Daily(ctx, reporting.DimTotal, day, day, 0)
		require.NoError(t, err)
		require.Equal(t, int64(2), sessions[0].Visitors, "b and c")
		require.Equal(t, int64(2), sessions[0].Sessions, "a's goes on; b's and c's begin")
	})
}

// migrationsBefore is the reporting line without its files from version
// on, as an earlier release shipped it.
func migrationsBefore(t *testing.T, version int) store.Migrations {
	t.Helper()
	files := fstest.MapFS{}
	require.NoError(t, fs.WalkDir(reportingsql.Migrations.FS, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		var v int
		if _, err := fmt.Sscanf(filepath.Base(path), "%04d_", &v); err != nil {
			return err
		}
		if v < version {
			b, err := fs.ReadFile(reportingsql.Migrations.FS, path)
			if err != nil {
				return err
			}
			files[path] = &fstest.MapFile{Data: b}
		}
		return nil
	}))
	return store.Migrations{Line: "reporting", FS: files}
}
