package main

import (
	"cmp"
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// readyz answers 200 when the instance can take traffic: not stopping,
// the database answers, its schema is current, the job queue runs and,
// after a request the database refused, it takes a write again; else 503
// with the reasons.
func (a *app) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	var reasons []string
	if a.stopping.Load() {
		reasons = append(reasons, "shutting down")
	}
	if err := a.db.Ping(ctx); err != nil {
		reasons = append(reasons, "the database does not answer")
	} else if !a.migrated.Load() {
		switch pending, err := store.Pending(ctx, a.db, migrations...); {
		case err != nil:
			reasons = append(reasons, "the schema could not be read")
		case len(pending) > 0:
			reasons = append(reasons, "migrations not applied: "+strings.Join(pending, ", "))
		default:
			a.migrated.Store(true)
		}
	}
	if !a.queue.Running() {
		reasons = append(reasons, "the job queue is not running")
	}
	// After a request the database refused (a read-only file or a full
	// disk let a ping through), a write tells whether it takes writes
	// again.
	if o, ok := api.LastOutage(); ok && len(reasons) == 0 {
		if err := a.probeWrite(ctx); err != nil {
			cause, _ := driverless.Unavailable(err)
			reasons = append(reasons, "writes fail: "+cmp.Or(cause, err.Error()))
		} else {
			api.OutageOver(o)
		}
	}
	if len(reasons) > 0 {
		reply.WriteJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "reasons": reasons})
		return
	}
	reply.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// probeWrite writes one row of the shared rate-limit table (a key no
// limiter uses, already reset), so a database that reads but does not
// write is seen.
func (a *app) probeWrite(ctx context.Context) error {
	_, err := a.db.ExecContext(ctx, a.db.Rebind(`INSERT INTO groundwork_rate_limits (key, hits, reset_at) VALUES ('readyz:probe', 0, ?)
		ON CONFLICT (key) DO UPDATE SET reset_at = excluded.reset_at`), time.Now().UTC())
	return err
}

func (a *app) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := a.db.Ping(ctx); err != nil {
		reply.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	reply.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
