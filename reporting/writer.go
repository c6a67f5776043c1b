package reporting

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/groundwork-go/groundwork"
)

// The collector's writing: hits taken by Collect wait in memory and are
// written in bounded batches, every FlushInterval or as soon as
// FlushSize wait, and every one still waiting when Run's context ends.

// Flush writes the hits waiting, in one transaction. When that fails
// they are kept, ahead of newer ones, for the next flush: nothing taken is
// dropped (Collect refuses more once MaxPending wait).
func (a *Analytics) Flush(ctx context.Context) error {
	a.flushMu.Lock()
	defer a.flushMu.Unlock()
	a.mu.Lock()
	// The oldest first; the rest wait for the next flush.
	batch := a.pending.take(a.o.FlushBatch * a.o.FlushWriters)
	a.writing = len(batch)
	a.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	parts := split(batch, a.o.FlushWriters)
	reached := a.goalsReached()
	errs := make([]error, len(parts))
	done := make([]int, len(parts)) // hits of each part written
	var wg sync.WaitGroup
	for i, part := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A share is written in transactions of at most FlushBatch, in
			// order; the first that fails leaves the rest for later.
			for chunk := range slices.Chunk(part, a.o.FlushBatch) {
				if errs[i] = a.store.Record(ctx, chunk, reached); errs[i] != nil {
					return
				}
				done[i] += len(chunk)
			}
		}()
	}
	wg.Wait()
	var failed []Hit
	written := 0
	for i, part := range parts {
		written += done[i]
		failed = append(failed, part[done[i]:]...)
	}
	a.mu.Lock()
	a.pending.pushFront(failed)
	a.writing = 0
	close(a.room) // views waiting for room may come in
	a.room = make(chan struct{})
	a.mu.Unlock()
	if a.o.Meter != nil && written > 0 {
		a.o.Meter.Add(groundwork.MetricViews, float64(written), "flushed")
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("reporting: flush: %w", err)
	}
	return nil
}

// split shares hits among n parts by visitor (the last byte of its hash),
// each part in the hits' order; one part when n is 1. Empty parts are
// left out.
func split(hits []Hit, n int) [][]Hit {
	if n <= 1 {
		return [][]Hit{hits}
	}
	parts := make([][]Hit, n)
	for _, h := range hits {
		i := 0
		if h.Visitor != "" {
			i = int(h.Visitor[len(h.Visitor)-1]) % n
		}
		parts[i] = append(parts[i], h)
	}
	return slices.DeleteFunc(parts, func(p []Hit) bool { return len(p) == 0 })
}

// Pending is how many collected hits wait to be written.
func (a *Analytics) Pending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pending.len() + a.writing
}

// lastFlush writes every hit still waiting, however long that takes,
// saying every lastFlushReport how many it has written and how many
// wait. A failed write is tried again, a quarter of a second later and
// doubling up to five seconds; it gives up only when no write has
// succeeded for ShutdownFlush (the database away), logging the views it
// could not write.
func (a *Analytics) lastFlush() {
	start, waiting := time.Now(), a.Pending()
	if waiting == 0 {
		return
	}
	a.o.Logger.Info("reporting: last flush: writing the views still waiting", "waiting", waiting)
	written, lastWrite, lastReport := 0, start, start
	pause := 250 * time.Millisecond
	for {
		before := a.Pending()
		if before == 0 {
			break
		}
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		err := a.Flush(ctx)
		cancel()
		now := time.Now()
		if n := before - a.Pending(); n > 0 {
			written, lastWrite, pause = written+n, now, 250*time.Millisecond
		}
		if err != nil {
			if now.Sub(lastWrite) >= a.o.ShutdownFlush {
				a.o.Logger.Error("reporting: last flush: views not written", "views", a.Pending(), "written", written, "error", err)
				return
			}
			time.Sleep(pause)
			pause = min(2*pause, 5*time.Second)
		}
		if now.Sub(lastReport) >= lastFlushReport {
			lastReport = now
			a.o.Logger.Info("reporting: last flush: still writing", "written", written, "waiting", a.Pending(),
				"took", now.Sub(start).Round(time.Second))
		}
	}
	a.o.Logger.Info("reporting: last flush: every view written", "written", written, "took", time.Since(start).Round(time.Millisecond))
}

// housekeepInterval is how often Run forgets old salts and prunes.
const housekeepInterval = time.Hour

// Run writes collected hits every FlushInterval (sooner when FlushSize
// wait) until ctx ends, then every one still waiting, however long that
// takes, saying how far it has got (stop taking views first: shut the HTTP
// server down, then end ctx; it gives up only when no write has succeeded
// for ShutdownFlush); and
// hourly (and at the start) it housekeeps. A flush under
// way when ctx ends is not cut short.
func (a *Analytics) Run(ctx context.Context) {
	t := time.NewTicker(a.o.FlushInterval)
	defer t.Stop()
	house := time.NewTicker(housekeepInterval)
	defer house.Stop()
	if err := a.Housekeep(ctx); err != nil && ctx.Err() == nil {
		a.o.Logger.ErrorContext(ctx, "reporting: housekeeping", "error", err)
	}
	for {
		select {
		case <-ctx.Done():
			a.lastFlush()
			return
		case <-house.C:
			if err := a.Housekeep(ctx); err != nil && ctx.Err() == nil {
				a.o.Logger.ErrorContext(ctx, "reporting: housekeeping", "error", err)
			}
			continue
		case <-t.C:
		case <-a.kick:
		}
		// A writer that fell behind drains batch after batch, not waiting
		// for the next tick.
		for {
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
			err := a.Flush(fctx)
			cancel()
			if err != nil {
				a.o.Logger.ErrorContext(ctx, "reporting: flush", "error", err)
			}
			if err != nil || ctx.Err() != nil || a.Pending() < a.o.FlushSize {
				break
			}
		}
	}
}

// Housekeep forgets old salts and uniques and prunes old rollups.
func (a *Analytics) Housekeep(ctx context.Context) error {
	today, prune := a.o.Now().In(a.o.Location), ""
	if a.o.Retention > 0 {
		prune = today.Add(-a.o.Retention).Format(time.DateOnly)
	}
	_, err := a.store.Forget(ctx, today.Format(time.DateOnly), prune)
	return err
}
