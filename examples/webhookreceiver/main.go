// Command webhookreceiver receives groundwork's webhooks and checks each
// one before acting on it: deliveries signed with X-Platform-Signature are
// checked with webhooks.Verify, and those of a subscription that asked for
// Standard Webhooks headers with the Standard Webhooks library (any other
// language's library of that standard would do the same). Each delivery
// is acted on once, however often it arrives.
//
//	WEBHOOK_SECRET=whsec_... go run ./examples/webhookreceiver   # POST http://127.0.0.1:9000/hooks
package main

import (
	"errors"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/groundwork-go/groundwork/webhooks"
)

func main() {
	secret := os.Getenv("WEBHOOK_SECRET") // shown once when the subscription was made
	if secret == "" {
		log.Fatal("set WEBHOOK_SECRET to the subscription's secret")
	}
	r, err := newReceiver(secret, func(id string, body []byte) { log.Printf("delivery %s: %s", id, body) })
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:9000", r))
}

// maxBody caps what a receiver reads of one delivery.
const maxBody = 1 << 20

// receiver serves POST /hooks (X-Platform-Signature) and POST
// /hooks/standard (Standard Webhooks headers).
type receiver struct {
	secret   string
	standard *standardwebhooks.Webhook
	handle   func(id string, body []byte)

	mu   sync.Mutex
	seen map[string]bool // delivery ids acted on; a real receiver keeps them in its database
}

func newReceiver(secret string, handle func(id string, body []byte)) (http.Handler, error) {
	r := &receiver{secret: secret, handle: handle, seen: map[string]bool{}}
	standard, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return nil, err
	}
	r.standard = standard
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hooks", r.platform)
	mux.HandleFunc("POST /hooks/standard", r.standardHook)
	return mux, nil
}

// platform checks X-Platform-Signature: "t=<unix>, v1=<hex HMAC-SHA256 of
// "<t>.<body>">", within five minutes of now.
func (r *receiver) platform(w http.ResponseWriter, req *http.Request) {
	body, ok := read(w, req)
	if !ok {
		return
	}
	err := webhooks.Verify(r.secret, req.Header.Get(webhooks.HeaderSignature), body, time.Now(), 0)
	if err != nil {
		reason := "bad signature"
		if errors.Is(err, webhooks.ErrStaleTimestamp) {
			reason = "too old, or from the future"
		}
		http.Error(w, reason, http.StatusBadRequest)
		return
	}
	r.once(w, req.Header.Get(webhooks.HeaderDelivery), body)
}

// standardHook checks the webhook-id, webhook-timestamp and
// webhook-signature headers with the Standard Webhooks library.
func (r *receiver) standardHook(w http.ResponseWriter, req *http.Request) {
	body, ok := read(w, req)
	if !ok {
		return
	}
	if err := r.standard.Verify(body, req.Header); err != nil {
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	r.once(w, req.Header.Get(webhooks.HeaderStandardID), body)
}

// once acts on a delivery the first time its id is seen, and answers 2xx
// every time, so the sender stops retrying.
func (r *receiver) once(w http.ResponseWriter, id string, body []byte) {
	r.mu.Lock()
	first := !r.seen[id]
	r.seen[id] = true
	r.mu.Unlock()
	if first {
		r.handle(id, body)
	}
	w.WriteHeader(http.StatusNoContent)
}

func read(w http.ResponseWriter, req *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxBody))
	if err != nil {
		http.Error(w, "body too large or cut off", http.StatusRequestEntityTooLarge)
		return nil, false
	}
	return body, true
}
