package main

import (
	"context"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/reply"
)

// logRequests logs a line per request: at info every one in every (all
// when every is 0 or 1, none when negative), and always at error for a
// 5xx to a client still waiting for it.
func logRequests(next http.Handler, logger *slog.Logger, every int) http.Handler {
	if every < 0 && !logger.Enabled(context.Background(), slog.LevelError) {
		return next
	}
	var n atomic.Uint64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &api.StatusWriter{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		level := slog.LevelInfo
		switch {
		case rec.Status >= 500 && r.Context().Err() == nil && !comeBack(rec):
			// (A 5xx to a client that went away is the client's doing;
			// a 503 to come back to is logged, once in a while, where
			// it is made.)
			level = slog.LevelError
		case every < 0:
			return
		case every > 1 && (n.Add(1)-1)%uint64(every) != 0:
			return
		}
		logger.LogAttrs(r.Context(), level, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rec.Status), slog.Duration("duration", time.Since(start)))
	})
}

// comeBack reports whether an answer is a 503 that says when to come
// back: the database away for a moment, or too many views waiting.
func comeBack(rec *api.StatusWriter) bool {
	return rec.Status == http.StatusServiceUnavailable && rec.Header().Get("Retry-After") != ""
}

// recoverPanics answers 500 for a handler that panics, and logs the
// stack: a panic is a bug.
func recoverPanics(next http.Handler, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				logger.Error("handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				reply.WriteMessage(w, http.StatusInternalServerError, reply.MsgServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}
