package driverless

import "time"

// IdempotencyRecord is what is kept for one Idempotency-Key.
type IdempotencyRecord struct {
	Scope       string
	Key         string
	RequestHash string
	// Status is the response status; 0 while the first request runs.
	Status int
	Header map[string][]string
	Body   []byte
	// CreatedAt is when the key was taken; ExpiresAt when it is free
	// again.
	CreatedAt time.Time
	ExpiresAt time.Time
}
