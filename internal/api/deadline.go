package api

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// How long a client has to send a request's body, once its headers are
// in: short for JSON and forms, longer for uploads (multipart bodies).
const (
	BodyTimeoutDefault   = 15 * time.Second
	UploadTimeoutDefault = 2 * time.Minute
)

// WithBodyDeadline gives each request's body a read deadline on its
// connection: long for a multipart body, short for any other. A client
// that sends its headers and then too little finds its read failed when
// the time is up: [ReadJSONBody] answers 408 and the connection closes,
// so a slow client cannot hold connections open. The server resets the
// deadline for the connection's next request.
func WithBodyDeadline(next http.Handler, short, long time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			d := short
			if strings.HasPrefix(strings.ToLower(r.Header.Get("Content-Type")), "multipart/") {
				d = long
			}
			deadline := time.Now().Add(d)
			_ = http.NewResponseController(w).SetReadDeadline(deadline)
			r = r.WithContext(context.WithValue(r.Context(), bodyDeadlineKey{}, deadline))
		}
		next.ServeHTTP(w, r)
	})
}

type bodyDeadlineKey struct{}

// bodyDeadline is the read deadline WithBodyDeadline gave r's body.
func bodyDeadline(r *http.Request) (time.Time, bool) {
	d, ok := r.Context().Value(bodyDeadlineKey{}).(time.Time)
	return d, ok
}
