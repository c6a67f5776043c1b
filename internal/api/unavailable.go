package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// RetryAfterUnavailable is how long a client is told to wait when the
// database cannot serve at the moment: a restart or a failover takes seconds.
const RetryAfterUnavailable = 5 * time.Second

// outageLogEvery is how often a run of requests refused for the same
// outage is logged: the first at once, then a line with the count.
const outageLogEvery = 10 * time.Second

// Outage is the last time a request failed because the database could
// not serve, and why.
type Outage struct {
	Cause string
	At    time.Time
}

var outages struct {
	sync.Mutex
	last     Outage
	logged   time.Time // when the last line was written
	unlogged int       // failures since
}

// LastOutage is the last failure [Unavailable] recognised in this
// process; ok is false when there has been none.
func LastOutage() (o Outage, ok bool) {
	outages.Lock()
	defer outages.Unlock()
	return outages.last, !outages.last.At.IsZero()
}

// OutageOver forgets the outage o (a write went through since): a later
// one is kept.
func OutageOver(o Outage) {
	outages.Lock()
	defer outages.Unlock()
	if outages.last == o {
		outages.last = Outage{}
	}
}

// StatusClientClosedRequest is the status a request is logged and counted
// with when its client went away before its answer (nginx's 499): the
// failure that follows (a query canceled with the request) is the
// client's leaving, not the server's or the database's.
const StatusClientClosedRequest = 499

// ClientGone reports whether r's client has gone away while it was
// served: it closed its side of the connection or gave up, so the
// request's context was canceled (not timed out).
func ClientGone(r *http.Request) bool { return errors.Is(r.Context().Err(), context.Canceled) }

// AnswerClientGone ends a request whose client went away: nothing but
// the status StatusClientClosedRequest (no body, the connection closed),
// logged at debug; no error and no outage is recorded, so /readyz and the
// error log see nothing of it.
func AnswerClientGone(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	if logger != nil {
		logger.DebugContext(context.WithoutCancel(r.Context()), "client went away before its answer",
			"method", r.Method, "path", r.URL.Path, "error", err)
	}
	w.Header().Set("Connection", "close")
	w.WriteHeader(StatusClientClosedRequest)
}

// Unavailable is the answer for err when it says the database cannot serve
// at the moment (see driverless.Unavailable): 503 with a Retry-After, the cause
// logged (the first failure at once, then once every ten seconds with how
// many there were), so a request never answers 500 for an outage that
// passes by itself. nil when err is not such a failure.
func Unavailable(ctx context.Context, logger *slog.Logger, err error) *Error {
	cause, ok := driverless.Unavailable(err)
	if !ok || errors.Is(ctx.Err(), context.Canceled) {
		// A request whose client left fails its queries with it: not an
		// outage.
		return nil
	}
	now := time.Now()
	outages.Lock()
	outages.last = Outage{Cause: cause, At: now}
	outages.unlogged++
	n, log := outages.unlogged, now.Sub(outages.logged) >= outageLogEvery
	if log {
		outages.logged, outages.unlogged = now, 0
	}
	outages.Unlock()
	if log && logger != nil && ctx.Err() == nil {
		logger.ErrorContext(ctx, "database unavailable: answering 503", "cause", cause, "requests", n, "error", err)
	}
	return &Error{Status: http.StatusServiceUnavailable, Message: reply.MsgUnavailable, Err: err, Logged: true,
		Header: http.Header{"Retry-After": {strconv.Itoa(int(RetryAfterUnavailable / time.Second))}}}
}
