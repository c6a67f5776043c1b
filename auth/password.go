package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/argon2"
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

const (
	saltBytes = 16
	keyBytes  = 32
)

var b64 = base64.RawStdEncoding

// hashPassword makes the PHC string of password under p.
func hashPassword(password string, p PasswordParams) (string, error) {
	salt := make([]byte, saltBytes)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, keyBytes)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// errBadHash is a stored hash this package cannot read.
var errBadHash = errors.New("auth: unreadable password hash")

// decodeHash reads a PHC argon2id string.
func decodeHash(encoded string) (p PasswordParams, salt, key []byte, err error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, nil, nil, errBadHash
	}
	var m, t, threads uint64
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, perr := strconv.ParseUint(v, 10, 32)
		if perr != nil {
			return p, nil, nil, errBadHash
		}
		switch k {
		case "m":
			m = n
		case "t":
			t = n
		case "p":
			threads = n
		default:
			return p, nil, nil, errBadHash
		}
	}
	// Bound what a stored hash can make us spend (1 GiB, 16 passes).
	if m < 8 || m > 1<<20 || t < 1 || t > 16 || threads < 1 || threads > 255 {
		return p, nil, nil, errBadHash
	}
	salt, err1 := b64.DecodeString(parts[4])
	key, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(key) < 16 {
		return p, nil, nil, errBadHash
	}
	return PasswordParams{Memory: uint32(m), Time: uint32(t), Threads: uint8(threads)}, salt, key, nil
}

// checkPassword reports whether password matches encoded, and whether the
// hash was made with parameters other than want (so should be remade).
func checkPassword(encoded, password string, want PasswordParams) (ok, rehash bool, err error) {
	p, salt, key, err := decodeHash(encoded)
	if err != nil {
		return false, false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, p != want || len(key) != keyBytes || len(salt) != saltBytes, nil
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
