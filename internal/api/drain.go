package api

import (
	"io"
	"net/http"
	"time"
)

// Bounds of what is read of a refused body.
const (
	// DrainMaxBytes is the most read: past it the connection is closed,
	// and a client still writing may see a reset instead of the answer.
	DrainMaxBytes = 4 << 20
	// DrainTimeout is the longest the reading may take.
	DrainTimeout = 5 * time.Second
)

// ServeDrained serves h, and when h refused the request (a 4xx or 5xx:
// 413 above all, but also a 401 or 415 answered before the body was read)
// reads and discards what is left of the request body, up to
// DrainMaxBytes in DrainTimeout, before the connection closes. A client
// that writes its whole body before it reads (most do) then sees the
// answer rather than a connection reset: a server that closes with unread
// data makes the peer's kernel answer with a reset, which throws away the
// answer already sent. (net/http itself reads only 256 KiB, and nothing
// once a MaxBytesReader has hit its limit.) Requests without a
// body, over HTTP/2, or that wait for 100 Continue (and so never sent the
// body) are served as they are.
func ServeDrained(w http.ResponseWriter, r *http.Request, h http.Handler) {
	if r.Body == nil || r.Body == http.NoBody || r.ProtoMajor != 1 || r.Header.Get("Expect") != "" {
		h.ServeHTTP(w, r)
		return
	}
	body := r.Body // before a handler wraps it in a MaxBytesReader
	// A StatusWriter around w that has seen nothing written yet (the
	// metrics' own) learns the status as well as a new one would.
	sw, ok := w.(*StatusWriter)
	if !ok || sw.Status != 0 {
		sw = &StatusWriter{ResponseWriter: w}
	}
	h.ServeHTTP(sw, r)
	if sw.Status < 400 {
		return
	}
	// Never past the body's own deadline: a client too slow to send its
	// body is not waited for again.
	deadline := time.Now().Add(DrainTimeout)
	if d, ok := bodyDeadline(r); ok && d.Before(deadline) {
		deadline = d
	}
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	if time.Until(deadline) <= 0 {
		return
	}
	_ = rc.SetReadDeadline(deadline)
	_, _ = io.CopyN(io.Discard, body, DrainMaxBytes)
}

// StatusWriter remembers the status a handler answered with (Status;
// 0 until it wrote anything).
type StatusWriter struct {
	http.ResponseWriter
	Status int
}

// WriteHeader records the first status and passes it on.
func (s *StatusWriter) WriteHeader(code int) {
	if s.Status == 0 {
		s.Status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Write records 200 when no status came first, and passes b on.
func (s *StatusWriter) Write(b []byte) (int, error) {
	if s.Status == 0 {
		s.Status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Flush passes a flush on, for streamed answers.
func (s *StatusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (s *StatusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
