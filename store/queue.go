package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
)

// Enqueuer puts jobs on the queue. Domains take one to schedule their
// background work; [Queue] is the implementation.
type Enqueuer interface {
	// Enqueue inserts a job now, outside any transaction.
	Enqueue(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) error
	// EnqueueTx inserts a job inside tx: it runs only if tx commits, and
	// is certain to exist once it has. On SQLite tx must come from the
	// same DB as the queue.
	EnqueueTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) error
	// EnqueueMany inserts several jobs in one batch: inside tx when it is
	// not nil (as EnqueueTx), else now.
	EnqueueMany(ctx context.Context, tx *sql.Tx, jobs []river.InsertManyParams) error
}

// Queue defaults.
const (
	// QueueMaxWorkersDefault is how many jobs run at once on the default
	// queue.
	QueueMaxWorkersDefault = 100
	// QueueFetchPollIntervalDefault is how often the queue looks for new
	// jobs. Neither River driver used here listens for inserts, so a job
	// committed in a transaction waits up to this long; River's own
	// default is one second.
	QueueFetchPollIntervalDefault = 200 * time.Millisecond
	// QueueFetchCooldownDefault is the shortest gap between two fetches.
	QueueFetchCooldownDefault = 20 * time.Millisecond
	// QueueStopTimeoutDefault is how long Stop lets running jobs finish
	// when its context has no deadline.
	QueueStopTimeoutDefault = 30 * time.Second
)

// QueueOptions configures [NewQueue]. The zero value means the defaults
// above.
type QueueOptions struct {
	// MaxWorkers is how many jobs run at once on the default queue.
	// Default QueueMaxWorkersDefault.
	MaxWorkers int
	// Queues are further named queues and how many jobs each runs at once
	// (a domain whose jobs should not wait behind the others', such as
	// webhook deliveries).
	Queues map[string]int
	// FetchPollInterval: default QueueFetchPollIntervalDefault.
	FetchPollInterval time.Duration
	// FetchCooldown: default QueueFetchCooldownDefault.
	FetchCooldown time.Duration
	// JobTimeout bounds one run of a job; River's default (one minute)
	// when zero.
	JobTimeout time.Duration
	// Logger receives River's warnings and errors (not its info
	// records). Nil discards them.
	Logger *slog.Logger
	// TestOnly turns off River's start-up jitter, for tests.
	TestOnly bool
}

// Queue is River on the DB's write pool: riversqlite on SQLite,
// riverdatabasesql on Postgres, so on both it is a river.Client[*sql.Tx]
// and jobs can be inserted in the same transaction as the rows that caused
// them. Register workers and periodic jobs before Start.
//
// A Queue always runs two jobs of its own, each hourly: one deletes
// the expired windows of [SQLRateLimiter], the other
// the expired records of [Idempotency].
//
// On Postgres every instance may run a Queue on the same database; River
// elects one leader, and only the leader runs periodic jobs.
type Queue struct {
	client  *river.Client[*sql.Tx]
	workers *river.Workers
	db      *DB
	started bool
}

var _ Enqueuer = (*Queue)(nil)

// NewQueue creates a queue on db. It does not start working jobs; until
// Start it can only insert them.
func NewQueue(db *DB, opts *QueueOptions) (*Queue, error) {
	if opts == nil {
		opts = &QueueOptions{}
	}
	if opts.MaxWorkers < 0 || opts.FetchPollInterval < 0 || opts.FetchCooldown < 0 {
		return nil, errors.New("store: new queue: negative option")
	}
	logger := slog.New(slog.DiscardHandler)
	if opts.Logger != nil {
		// River reports every start and stop at info; keep its warnings.
		logger = slog.New(leveledHandler{Handler: opts.Logger.Handler(), min: slog.LevelWarn})
	}
	queues := map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cmp.Or(opts.MaxWorkers, QueueMaxWorkersDefault)}}
	for name, n := range opts.Queues {
		if name == "" || n < 1 {
			return nil, fmt.Errorf("store: new queue: queue %q needs a name and a positive number of workers", name)
		}
		if name != river.QueueDefault {
			queues[name] = river.QueueConfig{MaxWorkers: n}
		}
	}
	workers := river.NewWorkers()
	config := &river.Config{
		FetchCooldown:     cmp.Or(opts.FetchCooldown, QueueFetchCooldownDefault),
		FetchPollInterval: cmp.Or(opts.FetchPollInterval, QueueFetchPollIntervalDefault),
		JobTimeout:        opts.JobTimeout,
		Logger:            logger,
		Queues:            queues,
		// Jobs may be inserted for kinds this process does not work: on
		// Postgres another instance may. River reports an unknown kind
		// when it fetches the job, rather than failing the insert (and the
		// transaction that caused it).
		SkipUnknownJobCheck: true,
		TestOnly:            opts.TestOnly,
		Workers:             workers,
	}
	var driver riverdriver.Driver[*sql.Tx]
	if db.dialect == Postgres {
		driver = riverdatabasesql.New(db.DB.DB)
	} else {
		driver = riversqlite.New(db.DB.DB)
	}
	river.AddWorker(workers, &rateLimitSweepWorker{db: db})
	river.AddWorker(workers, &idempotencySweepWorker{db: db})
	config.PeriodicJobs = []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(rateLimitSweepInterval),
			func() (river.JobArgs, *river.InsertOpts) { return RateLimitSweepArgs{}, nil },
			&river.PeriodicJobOpts{ID: RateLimitSweepArgs{}.Kind()}),
		river.NewPeriodicJob(river.PeriodicInterval(idempotencySweepInterval),
			func() (river.JobArgs, *river.InsertOpts) { return IdempotencySweepArgs{}, nil },
			&river.PeriodicJobOpts{ID: IdempotencySweepArgs{}.Kind()}),
	}
	client, err := river.NewClient(driver, config)
	if err != nil {
		return nil, fmt.Errorf("store: new queue: %w", err)
	}
	return &Queue{client: client, workers: workers, db: db}, nil
}

// Workers is the bundle the queue works from; add workers to it with
// river.AddWorker before Start.
func (q *Queue) Workers() *river.Workers { return q.workers }

// AddPeriodicJobs schedules jobs that River inserts on their schedule,
// on the leader only.
func (q *Queue) AddPeriodicJobs(jobs ...*river.PeriodicJob) {
	q.client.PeriodicJobs().AddMany(jobs)
}

// Client is the underlying River client, for what this type does not
// wrap (subscriptions, job lists, cancelling).
func (q *Queue) Client() *river.Client[*sql.Tx] { return q.client }

// Start begins working jobs. It returns once the queue is running; ctx
// governs the queue's life, and Stop ends it gracefully.
func (q *Queue) Start(ctx context.Context) error {
	if err := q.client.Start(ctx); err != nil {
		return fmt.Errorf("store: start queue: %w", MapError(err))
	}
	q.started = true
	return nil
}

// Running reports whether the queue works jobs: started, and its client
// not stopped (by Stop, or by its context ending).
func (q *Queue) Running() bool {
	if !q.started {
		return false
	}
	select {
	case <-q.client.Stopped():
		return false
	default:
		return true
	}
}

// QueueCount is how many jobs of one queue are in one state.
type QueueCount struct {
	Queue string `db:"queue"`
	State string `db:"state"`
	N     int64  `db:"n"`
}

// Waiting counts the jobs not finished, by queue and state (available,
// scheduled, retryable, running), across every instance on the database.
func (q *Queue) Waiting(ctx context.Context) ([]QueueCount, error) {
	var out []QueueCount
	err := q.db.Reader().SelectContext(ctx, &out, `SELECT queue, state, COUNT(*) AS n FROM river_job
		WHERE state IN ('available', 'scheduled', 'retryable', 'running') GROUP BY queue, state ORDER BY queue, state`)
	if err != nil {
		return nil, fmt.Errorf("store: jobs waiting: %w", MapError(err))
	}
	return out, nil
}

// WaitingJob is a job not finished yet: what it is, how often it was
// tried, when it runs next and why its last try failed.
type WaitingJob struct {
	ID        int64     `json:"id"`
	Kind      string    `json:"kind"`
	State     string    `json:"state"`
	Attempt   int       `json:"attempt"`
	Queued    time.Time `json:"queued_at"`
	Next      time.Time `json:"next_try_at"`
	LastError string    `json:"last_error,omitempty"`
}

// Backlog lists up to limit jobs of these kinds not finished (available,
// scheduled, retryable or running), oldest first, across every instance
// on the database: an outbox of the mail jobs, say.
func (q *Queue) Backlog(ctx context.Context, limit int, kinds ...string) ([]WaitingJob, error) {
	params := river.NewJobListParams().Kinds(kinds...).First(limit).OrderBy(river.JobListOrderByID, river.SortOrderAsc).
		States(rivertype.JobStateAvailable, rivertype.JobStateScheduled, rivertype.JobStateRetryable, rivertype.JobStateRunning)
	res, err := q.client.JobList(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("store: job backlog: %w", MapError(err))
	}
	out := make([]WaitingJob, 0, len(res.Jobs))
	for _, j := range res.Jobs {
		w := WaitingJob{ID: j.ID, Kind: j.Kind, State: string(j.State), Attempt: j.Attempt, Queued: j.CreatedAt, Next: j.ScheduledAt}
		if n := len(j.Errors); n > 0 {
			w.LastError = j.Errors[n-1].Error
		}
		out = append(out, w)
	}
	return out, nil
}

// Stop stops fetching jobs and waits for the running ones to finish, until
// ctx ends (QueueStopTimeoutDefault when ctx has no deadline); jobs still
// running then are cancelled, and River retries them later. Stop on a
// queue that never started does nothing.
func (q *Queue) Stop(ctx context.Context) error {
	if !q.started {
		return nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, QueueStopTimeoutDefault)
		defer cancel()
	}
	err := q.client.Stop(ctx)
	if err == nil {
		return nil
	}
	cancelCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if cerr := q.client.StopAndCancel(cancelCtx); cerr != nil {
		return fmt.Errorf("store: stop queue: %w", errors.Join(err, cerr))
	}
	return fmt.Errorf("store: stop queue: running jobs cancelled: %w", err)
}

// Enqueue implements [Enqueuer]. A unique job that already exists is not an
// error.
func (q *Queue) Enqueue(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) error {
	if _, err := q.client.Insert(ctx, args, opts); err != nil {
		return fmt.Errorf("store: enqueue %s: %w", args.Kind(), MapError(err))
	}
	return nil
}

// EnqueueMany implements [Enqueuer]. It uses River's InsertMany (never
// InsertManyFast, which panics on these drivers in v0.31.0).
func (q *Queue) EnqueueMany(ctx context.Context, tx *sql.Tx, jobs []river.InsertManyParams) error {
	if len(jobs) == 0 {
		return nil
	}
	var err error
	if tx != nil {
		_, err = q.client.InsertManyTx(ctx, tx, jobs)
	} else {
		_, err = q.client.InsertMany(ctx, jobs)
	}
	if err != nil {
		return fmt.Errorf("store: enqueue %d %s jobs: %w", len(jobs), jobs[0].Args.Kind(), MapError(err))
	}
	return nil
}

// EnqueueTx implements [Enqueuer].
func (q *Queue) EnqueueTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) error {
	if _, err := q.client.InsertTx(ctx, tx, args, opts); err != nil {
		return fmt.Errorf("store: enqueue %s: %w", args.Kind(), MapError(err))
	}
	return nil
}
