// Package store is the database plumbing every groundwork domain stands on:
// one [Open] for SQLite and Postgres, column types that read back what they
// wrote on both, one error vocabulary, a migration runner, River as the job
// queue, and rate-limit counters.
//
// # Databases
//
// [Open] takes "sqlite:PATH" (or a bare path) or a "postgres://" URL.
// SQLite is the embedded default: WAL, a busy timeout, foreign keys,
// immediate transactions, and a write pool of one connection beside a
// read-only pool ([DB.Reader]). Postgres is the scale-out path: many
// instances on one database.
//
// A host that owns its pool passes it to [New] instead: a *sql.DB on
// modernc.org/sqlite or pgx's stdlib driver, whose dialect New reads off
// the driver. groundwork's tables then live beside the host's, and the
// host keeps the pool (New checks the SQLite settings groundwork needs;
// [SQLiteDSN] spells them out). Importing store registers both drivers
// with database/sql, "sqlite" (modernc.org/sqlite, pure Go) and "pgx"
// (github.com/jackc/pgx/v5/stdlib), so a host needs no blank import of its
// own:
//
//	pool, err := sql.Open("sqlite", store.SQLiteDSN("app.db"))
//	pool, err := sql.Open("pgx", "postgres://app@db/app")
//
// Queries are written with "?" placeholders and passed through
// [DB.Rebind]. Times are stored with [Time] (UTC, microseconds, comparable
// in SQL on both databases) and JSON values with [JSON]. Pass times from Go
// rather than using the database's clock, so that tests can control them.
//
// # Errors
//
// [MapError] turns sql.ErrNoRows into [ErrNotFound] and a unique violation
// from either driver into [ErrConflict]; [DB.InTx] applies it for you.
//
// # Migrations
//
// Each domain embeds its schema as a [Migrations] value with one directory
// per dialect. [Migrate] applies River's migrations, [CoreMigrations] and
// then the domains', idempotently and safely when several instances start
// at once. A host that runs no queue migrates with
// [MigrateOptions].WithoutQueue and gets no River tables (nor any
// background work: see there).
//
// A store or queue used before its migrations fails with [ErrNotMigrated],
// whose text names the missing call (store.Migrate(ctx, db,
// formssql.Migrations)) rather than "no such table": a pool [Open] makes
// explains every error of its connections; on a host's pool ([New]) the
// explanation comes through [MapError] and in the HTTP handlers' log line
// of a failed request, and [Pending] lists what has not run, for a check at
// start.
//
// # Keys
//
// Instances that share a database must share its keys (the key that seals
// webhook secrets, say). [RecordKey] keeps a fingerprint of a key (a keyed
// hash, never the key) and [CheckKey] refuses another key with a
// [KeyMismatchError]; check before migrating, record after.
//
// # Jobs
//
// [Queue] is a river.Client[*sql.Tx] on the same database, so a job can be
// inserted in the transaction that wrote the rows it is about
// ([Enqueuer.EnqueueTx]): it runs only if that transaction commits.
// Domains take an [Enqueuer]; hosts register the domains' workers on
// [Queue.Workers] and their periodic jobs with [Queue.AddPeriodicJobs]
// before [Queue.Start].
//
// # Rate limits
//
// groundwork.RateLimiter (package store/driverless, which needs no driver) counts hits
// in fixed windows; driverless.MemoryRateLimiter serves one instance;
// [SQLRateLimiter] keeps the counters in the database so a limit holds
// across every instance.
//
// # Tests
//
// Package storetest gives each test a fresh database of each dialect.
package store
