package auth

import (
	"context"
	"crypto/rand"
	"sync/atomic"
	"time"

	"github.com/groundwork-go/groundwork/internal/passhash"
)

// PasswordParams are argon2id's costs. The defaults are OWASP's minimum
// for argon2id (19 MiB, two passes, one lane). Hashes record the
// parameters they were made with, PHC-style
// ("$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>"), so the costs can be
// raised later: a hash made with other parameters still checks, and is
// replaced at the user's next sign-in.
type PasswordParams struct {
	// Memory in KiB.
	Memory uint32
	// Time is the number of passes.
	Time uint32
	// Threads is the parallelism (lanes).
	Threads uint8
}

// Password defaults and rules.
const (
	// PasswordMemoryDefault is argon2id's memory, in KiB (19 MiB).
	PasswordMemoryDefault = 19 * 1024
	// PasswordTimeDefault is argon2id's passes.
	PasswordTimeDefault = 2
	// PasswordThreadsDefault is argon2id's lanes.
	PasswordThreadsDefault = 1
	// PasswordMinLength is the fewest characters a new password may
	// have; no classes of characters are demanded.
	PasswordMinLength = 8
	// PasswordMaxBytes is the most bytes of a password that are checked
	// or stored: a longer one is refused, so a megabyte "password"
	// cannot cost a megabyte of hashing.
	PasswordMaxBytes = 1024
	// PasswordWaitDefault is how long a sign-in waits for its turn to
	// hash before it gives up with ErrBusy.
	PasswordWaitDefault = 10 * time.Second
)

// hashPassword makes the PHC string of password under p.
func hashPassword(password string, p PasswordParams) (string, error) {
	return passhash.Hash(password, passhash.Params(p))
}

// errBadHash is a stored hash this package cannot read.
var errBadHash = passhash.ErrBadHash

// checkPassword reports whether password matches encoded, and whether the
// hash was made with parameters other than want (so should be remade).
func checkPassword(encoded, password string, want PasswordParams) (ok, rehash bool, err error) {
	return passhash.Check(encoded, password, passhash.Params(want))
}

// hasher bounds how many passwords are hashed at once, so that a flood
// of sign-ins queues for the CPU instead of starving every other request.
type hasher struct {
	params PasswordParams
	slots  chan struct{}
	wait   time.Duration
	// dummy is a hash of a random password, checked when a sign-in names
	// no user, so an unknown email costs what a wrong password costs.
	dummy string
	// checks counts the argon2id computations check has run.
	checks atomic.Int64
}

func newHasher(p PasswordParams, concurrency int, wait time.Duration) (*hasher, error) {
	dummy, err := hashPassword(rand.Text(), p)
	if err != nil {
		return nil, err
	}
	return &hasher{params: p, slots: make(chan struct{}, concurrency), wait: wait, dummy: dummy}, nil
}

// turn waits for a hashing slot; release it with the returned func.
func (h *hasher) turn(ctx context.Context) (func(), error) {
	select {
	case h.slots <- struct{}{}:
		return func() { <-h.slots }, nil
	default:
	}
	timer := time.NewTimer(h.wait)
	defer timer.Stop()
	select {
	case h.slots <- struct{}{}:
		return func() { <-h.slots }, nil
	case <-timer.C:
		return nil, ErrBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// hash makes a hash of password in its turn.
func (h *hasher) hash(ctx context.Context, password string) (string, error) {
	release, err := h.turn(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return hashPassword(password, h.params)
}

// check compares password with encoded ("" for no user: the dummy is
// checked and the answer is false) in its turn.
func (h *hasher) check(ctx context.Context, encoded, password string) (ok, rehash bool, err error) {
	release, err := h.turn(ctx)
	if err != nil {
		return false, false, err
	}
	defer release()
	h.checks.Add(1)
	if encoded == "" || len(password) > PasswordMaxBytes {
		_, _, _ = checkPassword(h.dummy, password[:min(len(password), PasswordMaxBytes)], h.params)
		return false, false, nil
	}
	return checkPassword(encoded, password, h.params)
}
