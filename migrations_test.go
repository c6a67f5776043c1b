package groundwork_test

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/emaillist/emaillistsql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// before is where the migrations that v0.1.0's baselines folded are kept,
// a directory per line and dialect, as the code before the baselines
// embedded them.
const before = "testdata/migrations-before-0.1.0"

// migrateBefore does to db what the code before the baselines did: River's
// tables, then each old file of each line applied once and recorded in
// groundwork_migrations under its version and name.
func migrateBefore(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	stamp := "TIMESTAMP"
	if db.Dialect() == store.Postgres {
		stamp = "TIMESTAMPTZ"
	}
	_, err := db.ExecContext(ctx, `CREATE TABLE groundwork_migrations (line TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, `+
		`applied_at `+stamp+` NOT NULL, PRIMARY KEY (line, version))`)
	require.NoError(t, err)
	fsys := os.DirFS(before)
	lines, err := fs.ReadDir(fsys, ".")
	require.NoError(t, err)
	name := regexp.MustCompile(`^([0-9]{4})_([a-z0-9_]+)\.sql$`)
	for _, line := range lines {
		dir := path.Join(line.Name(), string(db.Dialect()))
		files, err := fs.ReadDir(fsys, dir)
		require.NoError(t, err)
		for _, f := range files {
			m := name.FindStringSubmatch(f.Name())
			require.NotNil(t, m, f.Name())
			body, err := fs.ReadFile(fsys, path.Join(dir, f.Name()))
			require.NoError(t, err)
			require.NoError(t, db.InTx(ctx, func(tx *sqlx.Tx) error {
				if _, err := tx.ExecContext(ctx, string(body)); err != nil {
					return fmt.Errorf("%s/%s: %w", dir, f.Name(), err)
				}
				version, _ := strconv.Atoi(m[1])
				_, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO groundwork_migrations (line, version, name, applied_at) VALUES (?, ?, ?, ?)`),
					line.Name(), version, m[2], store.NewTime(time.Now()))
				return err
			}))
		}
	}
	// River's tables and the one line no baseline replaced (emaillist's
	// single file, unchanged).
	require.NoError(t, store.Migrate(ctx, db, emaillistsql.Migrations))
}

// allLines are the lines a host joining every domain migrates.
var allLines = []store.Migrations{authsql.Migrations, formssql.Migrations, bookingssql.Migrations, webhookssql.Migrations,
	reportingsql.Migrations, emaillistsql.Migrations}

// Each baseline makes the schema its folded files made, column for
// column, index for index, constraint for constraint, on both databases;
// the files after a baseline then take both to one schema.
func TestBaselinesMatchTheFilesTheyFolded(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		old, err := store.Open(ctx, storetest.DSN(t, d))
		require.NoError(t, err)
		t.Cleanup(func() { old.Close() })
		migrateBefore(t, old)
		require.NoError(t, store.Migrate(ctx, old, allLines...), "the files after the baselines")
		fresh := storetest.OpenDSN(t, storetest.DSN(t, d), allLines...)
		want, got := schemaOf(t, old), schemaOf(t, fresh)
		require.Greater(t, len(want), 100, "the description reached the tables")
		added, removed := lineDiff(want, got)
		require.Empty(t, append(added, removed...), "the baselines' schema differs from the old files' (+ only in the baselines, - only in the old)")
	})
}

// schemaOf describes every table of db's schema but the migrations
// ledger, a sorted line per column, index, constraint and table option.
func schemaOf(t *testing.T, db *store.DB) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	if db.Dialect() == store.Postgres {
		var rows []struct {
			Line string `db:"line"`
		}
		require.NoError(t, db.SelectContext(ctx, &rows, `
			SELECT 'column ' || table_name || '.' || column_name || ' ' || ordinal_position || ' ' || data_type || ' ' || is_nullable || ' ' ||
				coalesce(column_default, '-') || ' ' || is_identity || ' ' || coalesce(identity_generation, '-') AS line
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'groundwork_migrations'
			UNION ALL
			SELECT 'index ' || indexname || ' ' || replace(indexdef, current_schema() || '.', '') FROM pg_indexes WHERE schemaname = current_schema()
			UNION ALL
			SELECT 'constraint ' || c.conrelid::regclass::text || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid)
			FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = current_schema()`))
		for _, r := range rows {
			out = append(out, r.Line)
		}
		slices.Sort(out)
		return out
	}
	var tables []struct {
		Name string `db:"name"`
		SQL  string `db:"sql"`
	}
	require.NoError(t, db.SelectContext(ctx, &tables, `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' `+
		`AND name <> 'groundwork_migrations'`))
	check := regexp.MustCompile(`(?i)CHECK\s*\(([^()]|\([^()]*\))*\)`)
	space := regexp.MustCompile(`\s+`)
	for _, tb := range tables {
		rows, err := db.QueryxContext(ctx, `SELECT 'column '||name||' '||cid||' '||type||' '||"notnull"||' '||coalesce(dflt_value,'-')||' '||pk||' '||hidden `+
			`FROM pragma_table_xinfo(?) UNION ALL SELECT 'fk '||"table"||' '||"from"||' '||coalesce("to",'-')||' '||on_update||' '||on_delete `+
			`FROM pragma_foreign_key_list(?) UNION ALL SELECT 'index '||il.name||' '||il."unique"||' '||il.origin||' '||il.partial||' '||`+
			`(SELECT group_concat(coalesce(ix.name,'-')||':'||ix."desc"||':'||ix.coll, ',') FROM pragma_index_xinfo(il.name) ix WHERE ix.key)||' '||`+
			`coalesce((SELECT substr(sql, instr(upper(sql), ' WHERE ')) FROM sqlite_master m WHERE m.name = il.name AND instr(upper(sql), ' WHERE ') > 0), '') `+
			`FROM pragma_index_list(?) il`, tb.Name, tb.Name, tb.Name)
		require.NoError(t, err)
		for rows.Next() {
			var line string
			require.NoError(t, rows.Scan(&line))
			out = append(out, tb.Name+" "+space.ReplaceAllString(line, " "))
		}
		require.NoError(t, rows.Err())
		rows.Close()
		for _, c := range check.FindAllString(tb.SQL, -1) {
			out = append(out, tb.Name+" check "+space.ReplaceAllString(c, " "))
		}
		if strings.Contains(strings.ToUpper(tb.SQL), "WITHOUT ROWID") {
			out = append(out, tb.Name+" without rowid")
		}
	}
	slices.Sort(out)
	return out
}

// A database the code before the baselines made, holding a token, a form
// and its submission, a booking with its manage link, a webhook
// subscription with its sealed secret and a day of page views, opens
// under today's code: Migrate runs only the files after the baselines,
// nothing is pending, and every one of them reads back.
func TestDatabaseFromBeforeTheBaselinesOpens(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dsn := storetest.DSN(t, d)
		db, err := store.Open(ctx, dsn)
		require.NoError(t, err)
		migrateBefore(t, db)
		require.NoError(t, db.Close())

		// Written by the domains on the schema the old files made.
		site := joinSite(t, dsn)
		token, _, err := site.auth.Service.CreateToken(ctx, auth.NewToken{Name: "old", Abilities: []string{"*"}})
		require.NoError(t, err)
		// Today's submissions write the routed column of the file after
		// the baseline (forms 0012): it runs first on the old schema.
		require.NoError(t, store.Migrate(ctx, site.db, formssql.Migrations))
		form := &forms.Form{Name: "Contact", IsActive: true}
		require.NoError(t, site.forms.Service.CreateForm(ctx, form))
		require.NoError(t, site.forms.Service.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeEmail, Name: "email", Label: "Email"}))
		fields, err := site.forms.Service.Fields(ctx, form.ID)
		require.NoError(t, err)
		formToken := site.forms.Service.FormToken(form.ID)
		site.clock.Advance(5 * time.Second) // a person takes a moment; sooner is spam
		sent, err := site.forms.Service.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{"email": {"ann@example.test"}},
			FormToken: formToken})
		require.NoError(t, err)
		require.False(t, sent.Spam)
		// Today's bookings write the payment column of the file after the
		// baseline (bookings 0010): it runs first on the old schema.
		require.NoError(t, store.Migrate(ctx, site.db, bookingssql.Migrations))
		b := site.bookings.Service
		name, slug, minutes, zone, who, whoSlug := "Call", "call", 30, "UTC", "Sam", "sam"
		_, err = b.CreateService(ctx, bookings.OfferingInput{Name: &name, Slug: &slug, Duration: &minutes, TimeZone: &zone})
		require.NoError(t, err)
		p, err := b.CreateProvider(ctx, bookings.ProviderInput{Name: &who, Slug: &whoSlug, TimeZone: &zone})
		require.NoError(t, err)
		require.NoError(t, b.Link(ctx, slug, p.ID, bookings.LinkInput{}))
		from, to := "00:00", "24:00"
		for day := range 7 {
			_, err := b.AddHours(ctx, p.ID, bookings.HoursInput{DayOfWeek: &day, Start: &from, End: &to})
			require.NoError(t, err)
		}
		start := site.clock.Now().Truncate(time.Hour).Add(48 * time.Hour)
		booking, manage, err := b.Create(ctx, bookings.NewBooking{ServiceSlug: slug, Start: start, CustomerName: "Grace",
			CustomerEmail: "grace@example.test"})
		require.NoError(t, err)
		hook, secret, target := "receiver", "whsec_"+strings.Repeat("c2VjcmV0", 4), "http://127.0.0.1:9/in"
		sub, err := site.webhooks.Service.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: &hook, URL: &target, Events: []string{"*"},
			Secret: &secret})
		require.NoError(t, err)
		// The analytics as the code before wrote them (today's writes the
		// visitors' days of reporting 0010): a day's rollups, and a row a
		// visitor and value they were counted for.
		day, at := site.clock.Now().Format(time.DateOnly), store.NewTime(site.clock.Now())
		for _, q := range []string{
			`INSERT INTO reporting_daily (day, dim, key, label, views, visitors, sessions, duration_seconds, bounces) VALUES (?, 'total', '', '', 24, 5, 5, 0, 5)`,
			`INSERT INTO reporting_daily (day, dim, key, label, views, visitors, sessions, duration_seconds, bounces) VALUES (?, 'source', 'search.example', '', 24, 5, 5, 0, 5)`,
			`INSERT INTO reporting_seen (day, visitor, scope, last_seen, page, entry, hits) VALUES (?, 'v1', 't:', ?, '/page/0', '/page/0', 1)`,
			`INSERT INTO reporting_seen (day, visitor, scope, last_seen) VALUES (?, 'v1', 'p:/page/0', ?)`,
		} {
			args := []any{day}
			if strings.Contains(q, "reporting_seen") {
				args = append(args, at)
			}
			_, err := site.db.ExecContext(ctx, site.db.Rebind(q), args...)
			require.NoError(t, err)
		}
		require.NoError(t, site.db.Close()) // the environment borrows the DB: closing it is the host's

		// Opened by today's code: the baselines stand for what is there,
		// and only the files after them run (reporting 0010 to 0016, forms 0014 to 0017, bookings 0015, auth 0004 and 0005).
		site = joinSite(t, dsn)
		require.NoError(t, site.env.Migrate(ctx))
		pending, err := store.Pending(ctx, site.db, allLines...)
		require.NoError(t, err)
		require.Empty(t, pending)
		for line, last := range map[string]int{"forms": 17, "bookings": 15, "reporting": 16, "auth": 7, "core": 3} {
			versions, err := store.AppliedVersions(ctx, site.db, line)
			require.NoError(t, err)
			require.Len(t, versions, last, "%s: the old versions and the files after the baseline", line)
		}
		var seen []string
		require.NoError(t, site.db.SelectContext(ctx, &seen, `SELECT seen FROM reporting_seen`))
		require.Equal(t, []string{"t:\x1ep:/page/0\x1e"}, seen, "the visitor's rows folded into their day")

		tok, err := site.auth.Service.Authenticate(ctx, token)
		require.NoError(t, err)
		require.Equal(t, "old", tok.Name)
		got, err := site.forms.Service.Form(ctx, form.Slug)
		require.NoError(t, err)
		subs, total, err := site.forms.Service.ListSubmissions(ctx, forms.SubmissionQuery{FormID: got.ID, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, 1, total)
		answer, err := site.forms.Service.Submission(ctx, got.ID, subs[0].ID)
		require.NoError(t, err)
		require.Contains(t, fmt.Sprint(answer.Values), "ann@example.test")
		managed, _, err := site.bookings.Service.Managed(ctx, manage)
		require.NoError(t, err, "the sealed manage link opens its booking")
		require.Equal(t, booking.ID, managed.ID)
		require.Equal(t, "grace@example.test", managed.CustomerEmail)
		revealed, err := site.webhooks.Service.RevealSecret(ctx, sub.ID)
		require.NoError(t, err)
		require.Equal(t, secret, revealed, "the sealed secret unseals")
		ov, err := site.reporting.Analytics.Overview(ctx, reporting.AnalyticsQuery{Days: 1})
		require.NoError(t, err)
		require.Equal(t, 24.0, ov.Totals.PageViews)
		// And today's code writes on it.
		require.NoError(t, site.reporting.Analytics.Collect(ctx, reporting.View{URL: "https://site.example/page/0",
			IP: "192.0.2.1", UserAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"}))
		require.NoError(t, site.reporting.Analytics.Flush(ctx))
		ov, err = site.reporting.Analytics.Overview(ctx, reporting.AnalyticsQuery{Days: 1})
		require.NoError(t, err)
		require.Equal(t, 25.0, ov.Totals.PageViews)
		sources, err := site.reporting.Analytics.Breakdown(ctx, reporting.DimSource, reporting.AnalyticsQuery{Days: 1})
		require.NoError(t, err)
		require.NotEmpty(t, sources.Rows)
	})
}

type joinedSite struct {
	env       *store.Env
	db        *store.DB
	clock     *testkit.Clock
	auth      *auth.Module
	forms     *forms.Module
	bookings  *bookings.Module
	webhooks  *webhooks.Module
	reporting *reporting.Module
}

// joinSite opens dsn as a host does, joining the domains with one
// secret, and migrates nothing.
func joinSite(t *testing.T, dsn string) joinedSite {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dsn)
	require.NoError(t, err)
	clock := testkit.NewClock(time.Now().UTC())
	env, err := store.EnvOn(db, &store.EnvOptions{Secret: []byte("0123456789abcdef0123456789abcdef"), Now: clock.Now,
		BaseURL: &url.URL{Scheme: "https", Host: "site.example"}, Queue: &store.QueueOptions{TestOnly: true}})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	s := joinedSite{env: env, db: db, clock: clock}
	s.auth, err = authsql.Join(env, nil)
	require.NoError(t, err)
	s.forms, err = formssql.Join(env, nil)
	require.NoError(t, err)
	s.bookings, err = bookingssql.Join(env, nil)
	require.NoError(t, err)
	// The subscription's receiver is this machine's, in a test.
	s.webhooks, err = webhookssql.Join(env, &webhooks.ModuleOptions{Service: webhooks.Options{AllowPrivateHosts: true, AllowInsecureURLs: true}})
	require.NoError(t, err)
	s.reporting, err = reportingsql.Join(env, nil)
	require.NoError(t, err)
	return s
}
