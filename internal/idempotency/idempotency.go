// Package idempotency replays the answer to a request repeated with the
// same Idempotency-Key, so a client that retries a POST makes one change.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// Store keeps Idempotency-Key records; *store.Idempotency
// satisfies it.
type Store interface {
	Begin(ctx context.Context, scope, key, requestHash string, ttl, stuck time.Duration) (*driverless.IdempotencyRecord, error)
	Complete(ctx context.Context, scope, key string, status int, header map[string][]string, body []byte) error
	Release(ctx context.Context, scope, key string) error
}

// Idempotency defaults: a key is remembered a day; a retry that finds its
// first request still running waits up to IdempotencyWaitDefault.
const (
	IdempotencyTTLDefault  = 24 * time.Hour
	IdempotencyWaitDefault = 8 * time.Second
	// IdempotencyStuckDefault is how long a first request may run before
	// its key is taken over as abandoned.
	IdempotencyStuckDefault = 2 * time.Minute
	// MaxIdempotencyKey bounds the header's length.
	MaxIdempotencyKey = 255
)

// Idempotent replays the response of a request repeated with the same
// Idempotency-Key header, per caller (token, else client IP) and route,
// for TTL: the same status and body, with Idempotent-Replay: true. The
// same key with a different request is 409; while the first request still
// runs, a repeat waits up to Wait and then gets 409. Requests without the
// header pass straight through. Redact, when set, shapes the body that is
// kept for replays (to drop a secret shown once).
type Idempotent struct {
	Store          Store
	TTL            time.Duration
	Wait           time.Duration
	Redact         func(body []byte) []byte
	TrustedProxies []netip.Prefix
	Logger         *slog.Logger
}

// Wrap guards next, a handler of route (the route's pattern: part of the
// key's scope).
func (i *Idempotent) Wrap(route string, next http.HandlerFunc) http.HandlerFunc {
	ttl := i.TTL
	if ttl == 0 {
		ttl = IdempotencyTTLDefault
	}
	wait := i.Wait
	if wait == 0 {
		wait = IdempotencyWaitDefault
	}
	logger := i.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" || i.Store == nil {
			next(w, r)
			return
		}
		if len(key) > MaxIdempotencyKey {
			reply.WriteMessage(w, http.StatusBadRequest, "The Idempotency-Key header must not be longer than 255 characters.")
			return
		}
		if !driverless.ValidText(key) {
			reply.WriteMessage(w, http.StatusBadRequest, "The Idempotency-Key header must be text: valid UTF-8 without NUL characters.")
			return
		}
		body, err := api.ReadJSONBody(w, r, 0)
		if err != nil {
			api.WriteError(w, r, logger, nil, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		scope := throttle.CallerOrIP(r, i.TrustedProxies) + " " + route
		hash := requestHash(r.Method, route, r.URL.RawQuery, body)
		deadline := time.Now().Add(wait)
		for {
			rec, err := i.Store.Begin(r.Context(), scope, key, hash, ttl, IdempotencyStuckDefault)
			if err != nil {
				api.WriteError(w, r, logger, nil, err)
				return
			}
			switch {
			case rec == nil:
				i.run(w, r, scope, key, next, logger)
				return
			case rec.RequestHash != hash:
				reply.WriteMessage(w, http.StatusConflict, "This Idempotency-Key was already used for a different request.")
				return
			case rec.Status != 0:
				for k, v := range rec.Header {
					w.Header()[k] = v
				}
				w.Header().Set("Idempotent-Replay", "true")
				w.WriteHeader(rec.Status)
				_, _ = w.Write(rec.Body)
				return
			}
			if time.Now().After(deadline) {
				reply.WriteMessage(w, http.StatusConflict, "A request with this Idempotency-Key is still being processed; try again shortly.")
				return
			}
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// run serves the request that owns the key and records its response.
func (i *Idempotent) run(w http.ResponseWriter, r *http.Request, scope, key string, next http.HandlerFunc, logger *slog.Logger) {
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	finished := false
	defer func() {
		if finished {
			return
		}
		// next panicked: free the key so a retry runs the request again.
		if err := i.Store.Release(context.WithoutCancel(r.Context()), scope, key); err != nil {
			logger.ErrorContext(r.Context(), "idempotency: release", "error", err)
		}
	}()
	next(rec, r)
	finished = true
	body := rec.body.Bytes()
	if i.Redact != nil && rec.status < 300 {
		body = i.Redact(body)
	}
	header := map[string][]string{}
	for _, k := range []string{"Content-Type", "Location"} {
		if v := w.Header().Values(k); len(v) > 0 {
			header[k] = v
		}
	}
	if err := i.Store.Complete(context.WithoutCancel(r.Context()), scope, key, rec.status, header, body); err != nil {
		logger.ErrorContext(r.Context(), "idempotency: complete", "error", err)
	}
}

// requestHash identifies a request: method, route, query and the body
// (JSON re-encoded with sorted keys, so spacing and key order do not
// count).
func requestHash(method, route, query string, body []byte) string {
	canon := body
	var v any
	if len(body) > 0 && json.Unmarshal(body, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(method), []byte(route), []byte(query), canon} {
		h.Write(part)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// recorder passes a response through and keeps a copy.
type recorder struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
	body        bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	if !r.wroteHeader {
		r.status, r.wroteHeader = status, true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wroteHeader = true
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}
