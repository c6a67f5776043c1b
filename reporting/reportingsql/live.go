package reportingsql

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/store"
)

// A day still being written, read exactly from memory: a base copy of its
// rows read at some version, and the rows of every visitor written since
// (an overlay, each visitor's rows as they are now) that hide the same
// visitor's rows in the base. A report brings the copy up to the day's
// version by reading which visitors each batch since wrote
// (reporting_day_changes, written by touchDays in the batch's
// transaction) and reading only those visitors' rows again, by the
// primary key. So the report sees every batch committed before it began,
// as the SQL does, without scanning the day.

// changesKept is how long reporting_day_changes keeps a batch's row; a
// copy older than that reads its day again.
const changesKept = 10 * time.Minute

// liveDay is the copy of a day still being written.
type liveDay struct {
	mu sync.Mutex // held while the copy is brought up to date
	// base is the day's rows read at baseVersion or later (nil: too large
	// for columns, read in SQL); nums its visitors' numbers by ordinal.
	base        *daySeg
	tooBig      bool
	nums        []int64
	baseVersion int64
	// version is the day's version the copy is up to; rows the current
	// rows of each visitor written after baseVersion; overlay those rows
	// by column and hide the base's visitors among them.
	version    int64
	caught     time.Time // when the copy was last brought up to version
	rows       map[int64]*liveRows
	overlay    *daySeg
	hide       []bool
	rebuilding bool
}

// liveRows are a visitor's rows of reporting_views and
// reporting_visitor_events.
type liveRows struct {
	views  []liveView
	events []liveEvent
}

type liveView struct {
	vals   [viewDimCount]string
	counts [5]int64
}

type liveEvent struct {
	event, prop string
	n           int64
}

// size is the bytes the copy keeps (with its lock held).
func (ld *liveDay) size() int64 {
	var n int64
	for _, d := range []*daySeg{ld.base, ld.overlay} {
		if d != nil {
			n += d.size
		}
	}
	return n + int64(8*len(ld.nums)+len(ld.hide)+200*len(ld.rows))
}

// exactName is the memory's name of the exact copy of a day still being
// written.
func exactName(site, day string) string { return site + "\x00exact/" + day }

// liveView is day's copy brought up to version: the base, the base's
// visitors hidden, and the overlay. A nil base means the day is read in
// SQL (its counts do not fit columns, or the memory was emptied).
func (s *Store) liveView(ctx context.Context, day string, version int64) (base *daySeg, hide []bool, overlay *daySeg, err error) {
	m, site := s.mem, siteOf(ctx)
	m.mu.Lock()
	m.clock++
	k := m.days[exactName(site, day)]
	if k == nil || k.live == nil {
		k = &memDay{live: &liveDay{}}
		m.keep(exactName(site, day), k)
	}
	k.used = m.clock
	ld := k.live
	m.mu.Unlock()

	ld.mu.Lock()
	defer ld.mu.Unlock()
	if stale := ld.base != nil && ld.base.gen != s.gen(); (ld.base == nil && !ld.tooBig) || stale {
		if err := s.rebase(ctx, day, ld); err != nil {
			return nil, nil, nil, err
		}
	}
	// With Lag, a copy brought up to date less than Lag ago is read as it
	// is.
	young := s.Lag > 0 && s.now().Sub(ld.caught) < s.Lag
	if version > ld.version && !ld.tooBig && !young {
		ok, err := s.catchUp(ctx, day, ld, version)
		if err == nil && !ok {
			// The batches since the copy are no longer noted: read it
			// all again.
			if err = s.rebase(ctx, day, ld); err == nil {
				ok, err = s.catchUp(ctx, day, ld, version)
			}
		}
		if err != nil || !ok {
			return nil, nil, nil, err
		}
	}
	if ld.base == nil {
		return nil, nil, nil, nil
	}
	if len(ld.rows) > ld.base.visitors()/5+s.rebaseFloor() && !ld.rebuilding {
		// The overlay has grown: read a new base in the background,
		// while reports read this one.
		ld.rebuilding = true
		go func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			fresh := &liveDay{}
			err := s.rebase(ctx, day, fresh)
			ld.mu.Lock()
			defer ld.mu.Unlock()
			ld.rebuilding = false
			if err == nil && fresh.baseVersion >= ld.baseVersion {
				ld.base, ld.tooBig, ld.nums, ld.baseVersion = fresh.base, fresh.tooBig, fresh.nums, fresh.baseVersion
				ld.version, ld.caught, ld.rows, ld.overlay, ld.hide = fresh.baseVersion, fresh.caught, map[int64]*liveRows{}, nil, nil
				// The next report reads the batches since the new base.
				s.resize(site, day, ld)
			}
		}()
	}
	return ld.base, ld.hide, ld.overlay, nil
}

// rebaseFloor is how many visitors an overlay holds, over a fifth of
// the base's, before a new base is read.
func (s *Store) rebaseFloor() int {
	if s.overlayFloor != 0 {
		return max(0, s.overlayFloor)
	}
	return 1000
}

// gen is the memory's generation.
func (s *Store) gen() uint64 {
	s.mem.mu.RLock()
	defer s.mem.mu.RUnlock()
	return s.mem.gen
}

// resize records ld's size in the memory, the others evicted to fit
// (with ld's lock held).
func (s *Store) resize(site, day string, ld *liveDay) {
	m := s.mem
	m.mu.Lock()
	defer m.mu.Unlock()
	if k := m.days[exactName(site, day)]; k != nil && k.live == ld {
		m.keep(exactName(site, day), &memDay{live: ld, used: k.used, liveSize: ld.size()})
	}
}

// rebase reads ld's base: the day's version, then its rows (which hold
// every batch to that version, and maybe some after, which the overlay
// reads again).
func (s *Store) rebase(ctx context.Context, day string, ld *liveDay) error {
	var version int64
	site := siteOf(ctx)
	if err := s.db.Reader().GetContext(ctx, &version, s.db.Rebind(`SELECT COALESCE(MAX(version), 0) FROM reporting_days WHERE site = ? AND day = ?`),
		site, day); err != nil {
		return fmt.Errorf("read %s: %w", day, err)
	}
	b, err := loadDay(ctx, s.db, site, day)
	if err != nil {
		return fmt.Errorf("read %s: %w", day, err)
	}
	ld.caught = s.now()
	ld.baseVersion, ld.version, ld.rows, ld.overlay, ld.hide = version, version, map[int64]*liveRows{}, nil, nil
	ld.base, ld.nums, ld.tooBig = nil, nil, b == nil
	if b != nil {
		views, events, n := b.ordinals()
		ld.nums = make([]int64, n)
		for i, o := range views {
			ld.nums[o] = b.visit[i]
		}
		for i, o := range events {
			ld.nums[o] = b.evVisit[i]
		}
		s.mem.mu.Lock()
		ld.base = b.build(s.mem)
		s.mem.mu.Unlock()
	}
	s.resize(site, day, ld)
	return nil
}

// catchUp brings ld from its version to version: it reads the visitors
// each batch between wrote, then their rows. ok is false when a batch's
// note is gone (deleted as older than changesKept).
func (s *Store) catchUp(ctx context.Context, day string, ld *liveDay, version int64) (ok bool, err error) {
	var notes []struct {
		Version  int64  `db:"version"`
		Visitors []byte `db:"visitors"`
	}
	site := siteOf(ctx)
	if err := s.db.Reader().SelectContext(ctx, &notes, s.db.Rebind(`SELECT version, visitors FROM reporting_day_changes
		WHERE site = ? AND day = ? AND version > ? AND version <= ? ORDER BY version`), site, day, ld.version, version); err != nil {
		return false, fmt.Errorf("read %s's changes: %w", day, err)
	}
	if int64(len(notes)) != version-ld.version {
		return false, nil
	}
	changed := map[int64]bool{}
	for _, n := range notes {
		if err := decodeVisitors(n.Visitors, changed); err != nil {
			return false, fmt.Errorf("read %s's changes at %d: %w", day, n.Version, err)
		}
	}
	nums := slices.Sorted(maps.Keys(changed))
	fresh := make(map[int64]*liveRows, len(nums))
	for _, v := range nums {
		fresh[v] = &liveRows{}
	}
	for chunk := range slices.Chunk(nums, 500) {
		args := []any{site, day}
		for _, v := range chunk {
			args = append(args, v)
		}
		where := "site = ? AND day = ? AND visitor IN (?" + strings.Repeat(", ?", len(chunk)-1) + ")"
		err := scanDay(ctx, s.db, where, args, func(visitor int64, vals *[viewDimCount]sql.RawBytes, counts *[5]int64) {
			r := liveView{counts: *counts}
			for i, v := range vals {
				r.vals[i] = string(v)
			}
			fresh[visitor].views = append(fresh[visitor].views, r)
		}, func(visitor int64, event, prop sql.RawBytes, n int64) {
			fresh[visitor].events = append(fresh[visitor].events, liveEvent{string(event), string(prop), n})
		})
		if err != nil {
			return false, fmt.Errorf("read %s's visitors: %w", day, err)
		}
	}
	maps.Copy(ld.rows, fresh)
	ld.version, ld.caught = version, s.now()
	s.overlay(ld)
	s.resize(site, day, ld)
	return true, nil
}

// overlay makes ld's overlay from its rows, and the base's visitors it
// hides.
func (s *Store) overlay(ld *liveDay) {
	b := &segBuilder{}
	nums := slices.Sorted(maps.Keys(ld.rows))
	ld.hide = make([]bool, ld.base.visitors())
	for _, v := range nums {
		if o, found := slices.BinarySearch(ld.nums, v); found {
			ld.hide[o] = true
		}
		r := ld.rows[v]
		for _, row := range r.views {
			b.visit = append(b.visit, v)
			for i, val := range row.vals {
				b.vals[i] = append(b.vals[i], b.idString(i, val))
			}
			for i, n := range row.counts {
				b.counts[i] = append(b.counts[i], b.count(n))
			}
		}
		for _, e := range r.events {
			b.evVisit = append(b.evVisit, v)
			b.vals[dictEvent] = append(b.vals[dictEvent], b.idString(dictEvent, e.event))
			b.vals[dictProp] = append(b.vals[dictProp], b.idString(dictProp, e.prop))
			b.evCount = append(b.evCount, b.count(e.n))
		}
	}
	if b.tooBig {
		ld.base, ld.tooBig, ld.overlay, ld.hide = nil, true, nil, nil
		return
	}
	s.mem.mu.Lock()
	ld.overlay = b.build(s.mem)
	s.mem.mu.Unlock()
}

// encodeVisitors is a batch's visitors of a day as reporting_day_changes
// keeps them: sorted, without repeats, each as the unsigned varint gap
// from the one before (the first from zero).
func encodeVisitors(nums []int64) []byte {
	nums = slices.Clone(nums)
	slices.Sort(nums)
	nums = slices.Compact(nums)
	out := binary.AppendUvarint(nil, uint64(len(nums)))
	prev := int64(0)
	for i, v := range nums {
		gap := uint64(v)
		if i > 0 {
			gap = uint64(v - prev)
		}
		out = binary.AppendUvarint(out, gap)
		prev = v
	}
	return out
}

var errVisitors = errors.New("not a list of visitors")

// decodeVisitors adds the visitors encodeVisitors wrote to into.
func decodeVisitors(data []byte, into map[int64]bool) error {
	r := reader{data: data}
	n := r.count()
	prev := int64(0)
	for i := range n {
		gap := r.uvarint()
		if i == 0 {
			prev = int64(gap)
		} else {
			prev += int64(gap)
		}
		into[prev] = true
	}
	if r.bad || len(r.data) > 0 {
		return errVisitors
	}
	return nil
}

// pruneChanges deletes the notes of batches older than changesKept, at
// most once a minute (in the batch's transaction).
func (s *Store) pruneChanges(ctx context.Context, tx *sqlx.Tx, now time.Time) error {
	last := s.pruned.Load()
	if now.Unix()-last < 60 || !s.pruned.CompareAndSwap(last, now.Unix()) {
		return nil
	}
	_, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM reporting_day_changes WHERE changed_at < ?`), store.NewTime(now.Add(-changesKept)))
	return err
}
