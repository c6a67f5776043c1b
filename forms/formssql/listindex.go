package formssql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/groundwork-go/groundwork/store"
)

// A list of many submissions would otherwise pay, on every page, a COUNT
// over all of them and an OFFSET that steps over every row before the
// page: at a million rows, tens of milliseconds each. So for each filter
// of a large list the store keeps a list index: the number of rows, and
// the key (created_at, id) of every listIndexEvery-th row in list order.
// A page then seeks to the key at or before it and steps over fewer than
// listIndexEvery rows. The index is rebuilt in the background when it is
// older than listIndexTTL (or, when this instance wrote to the form since,
// listIndexGap; and never more often than ten times its last build took),
// and the stale one serves meanwhile: a large list's total, and where its deep
// pages start, may be a few seconds old. Lists under listIndexMin rows are
// counted and paged exactly every time, which at that size is cheap.
const (
	listIndexMin   = 20_000
	listIndexEvery = 1_000
	listIndexTTL   = 5 * time.Second
	// listIndexGap is the least time between two builds of one index.
	listIndexGap = time.Second
	// listIndexMax caps the filters indexed at once; the least recently
	// used goes first.
	listIndexMax = 256
	// listIndexBuildTimeout bounds one build.
	listIndexBuildTimeout = time.Minute
)

// rowKey is a submission's place in list order.
type rowKey struct {
	createdAt store.Time
	id        int64
}

// listIndex is what is known of one filter's rows.
type listIndex struct {
	formID   int64
	total    int
	anchors  []rowKey // anchors[i] is the key of row i*every
	built    time.Time
	took     time.Duration // the last build
	dirty    bool          // this instance wrote to the form since the build
	building bool
	used     time.Time
}

// listIndexes holds the indexes of one Store.
type listIndexes struct {
	mu         sync.Mutex
	entries    map[string]*listIndex
	min, every int
	ttl, gap   time.Duration
	now        func() time.Time
	// build reads an index afresh; nil while none is wanted.
	build func(ctx context.Context, where string, args []any) (*listIndex, error)
}

func newListIndexes(build func(ctx context.Context, where string, args []any) (*listIndex, error)) *listIndexes {
	return &listIndexes{entries: map[string]*listIndex{}, min: listIndexMin, every: listIndexEvery, ttl: listIndexTTL,
		gap: listIndexGap, now: time.Now, build: build}
}

func indexKey(where string, args []any) string { return fmt.Sprint(where, args) }

// get returns a copy of the index of the filter, or nil, and starts a
// rebuild in the background when it is due.
func (l *listIndexes) get(formID int64, where string, args []any) *listIndex {
	key := indexKey(where, args)
	l.mu.Lock()
	defer l.mu.Unlock()
	idx, ok := l.entries[key]
	if !ok {
		return nil
	}
	now := l.now()
	idx.used = now
	// Rebuilding takes at most a tenth of the time, however large the
	// list: a million rows take about half a second.
	wait := l.ttl
	if idx.dirty {
		wait = l.gap
	}
	if now.Sub(idx.built) >= max(wait, 10*idx.took) && !idx.building {
		l.startBuild(formID, key, where, args)
	}
	out := *idx
	return &out
}

// counted tells the indexes a filter's exact count: a large one gets an
// index, built in the background.
func (l *listIndexes) counted(formID int64, where string, args []any, total int) {
	if total < l.min {
		return
	}
	key := indexKey(where, args)
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.entries[key]; ok {
		return
	}
	if len(l.entries) >= listIndexMax {
		l.evict()
	}
	l.entries[key] = &listIndex{formID: formID, total: total, used: l.now()}
	l.startBuild(formID, key, where, args)
}

// startBuild rebuilds the index of key in the background; l.mu is held.
func (l *listIndexes) startBuild(formID int64, key, where string, args []any) {
	idx := l.entries[key]
	idx.building = true
	idx.dirty = false
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), listIndexBuildTimeout)
		defer cancel()
		start := l.now()
		built, err := l.build(ctx, where, args)
		l.mu.Lock()
		defer l.mu.Unlock()
		cur, ok := l.entries[key]
		if !ok {
			return
		}
		cur.building = false
		switch {
		case err != nil:
			// Keep what there is; the next request tries again.
		case built.total < l.min:
			delete(l.entries, key) // small again: count it exactly
		default:
			cur.total, cur.anchors, cur.built, cur.took = built.total, built.anchors, l.now(), l.now().Sub(start)
		}
	}()
}

// evict drops the least recently used index; l.mu is held.
func (l *listIndexes) evict() {
	var oldest string
	for k, idx := range l.entries {
		if oldest == "" || idx.used.Before(l.entries[oldest].used) {
			oldest = k
		}
	}
	delete(l.entries, oldest)
}

// wrote marks the indexes of the form as out of date: this instance
// changed its submissions.
func (l *listIndexes) wrote(formID int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, idx := range l.entries {
		if idx.formID == formID {
			idx.dirty = true
		}
	}
}

// anchor is the row to seek to for a page at offset: its key and how many
// rows to step over from it. ok is false when the index has no anchor
// before offset (or none built yet): page from the top.
func (idx *listIndex) anchor(offset, every int) (key rowKey, skip int, ok bool) {
	a := min(offset/every, len(idx.anchors)-1)
	if a <= 0 {
		return rowKey{}, 0, false
	}
	return idx.anchors[a], offset - a*every, true
}

// buildListIndex reads the anchors of the filter, each a seek past the
// one before (an index range stepping over every-1 entries), then counts
// the rows from the last one on. It reads on one connection, with its
// statement prepared once.
func (s *Store) buildListIndex(ctx context.Context, where string, args []any) (*listIndex, error) {
	every := s.lists.every
	var conn interface {
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
		PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
		GetContext(ctx context.Context, dest any, query string, args ...any) error
	}
	c, err := s.db.Reader().Connx(ctx)
	if err != nil {
		return nil, fmt.Errorf("formssql: list index: %w", err)
	}
	defer c.Close()
	conn = c
	if s.db.Dialect() == store.Postgres && strings.Contains(where, "forms_values") {
		// Filtered by answer: planned for the answer, as a page is (see
		// selectPage), in a transaction of its own.
		tx, err := c.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return nil, fmt.Errorf("formssql: list index: %w", err)
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := tx.ExecContext(ctx, pagePlanning); err != nil {
			return nil, fmt.Errorf("formssql: list index: %w", err)
		}
		conn = tx
	}
	idx := &listIndex{}
	var first rowKey
	err = conn.QueryRowContext(ctx, s.q(`SELECT created_at, id FROM forms_submissions WHERE `+where+`
		ORDER BY created_at DESC, id DESC LIMIT 1`), args...).Scan(&first.createdAt, &first.id)
	if errors.Is(err, sql.ErrNoRows) {
		return idx, nil
	}
	if err != nil {
		return nil, fmt.Errorf("formssql: list index: %w", err)
	}
	idx.anchors = append(idx.anchors, first)
	next, err := conn.PrepareContext(ctx, s.q(`SELECT created_at, id FROM forms_submissions WHERE `+where+`
		AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?`))
	if err != nil {
		return nil, fmt.Errorf("formssql: list index: %w", err)
	}
	defer next.Close()
	params := append(slices.Clip(args), nil, nil, every-1)
	for {
		last := idx.anchors[len(idx.anchors)-1]
		params[len(args)], params[len(args)+1] = last.createdAt, last.id
		var k rowKey
		err := next.QueryRowContext(ctx, params...).Scan(&k.createdAt, &k.id)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("formssql: list index: %w", err)
		}
		idx.anchors = append(idx.anchors, k)
	}
	last := idx.anchors[len(idx.anchors)-1]
	var tail int
	err = conn.GetContext(ctx, &tail, s.q(`SELECT COUNT(*) FROM forms_submissions WHERE `+where+`
		AND (created_at, id) <= (?, ?)`), append(slices.Clip(args), last.createdAt, last.id)...)
	if err != nil {
		return nil, fmt.Errorf("formssql: list index: %w", err)
	}
	idx.total = (len(idx.anchors)-1)*every + tail
	return idx, nil
}

// pageQuery is the query of a page: from the top, or from an anchor.
func pageQuery(where string, fromAnchor bool) string {
	var b strings.Builder
	b.WriteString(`SELECT ` + submissionColumns + ` FROM forms_submissions
		WHERE id IN (SELECT id FROM forms_submissions WHERE ` + where)
	if fromAnchor {
		b.WriteString(` AND (created_at, id) <= (?, ?)`)
	}
	b.WriteString(` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?) ORDER BY created_at DESC, id DESC`)
	return b.String()
}
