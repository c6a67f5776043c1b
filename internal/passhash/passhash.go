// Package passhash hashes passwords with argon2id as PHC strings
// ("$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>"), which record the
// parameters they were made with, so the costs can be raised later: a
// hash made with other parameters still checks, and says it should be
// remade.
package passhash

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id's costs.
type Params struct {
	// Memory in KiB.
	Memory uint32
	// Time is the number of passes.
	Time uint32
	// Threads is the parallelism (lanes).
	Threads uint8
}

const (
	saltBytes = 16
	keyBytes  = 32
)

var b64 = base64.RawStdEncoding

// Hash makes the PHC string of password under p.
func Hash(password string, p Params) (string, error) {
	salt := make([]byte, saltBytes)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, keyBytes)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// ErrBadHash is a stored hash this package cannot read.
var ErrBadHash = errors.New("passhash: unreadable password hash")

// decodeHash reads a PHC argon2id string.
func decodeHash(encoded string) (p Params, salt, key []byte, err error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, nil, nil, ErrBadHash
	}
	var m, t, threads uint64
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, perr := strconv.ParseUint(v, 10, 32)
		if perr != nil {
			return p, nil, nil, ErrBadHash
		}
		switch k {
		case "m":
			m = n
		case "t":
			t = n
		case "p":
			threads = n
		default:
			return p, nil, nil, ErrBadHash
		}
	}
	// Bound what a stored hash can make us spend (1 GiB, 16 passes).
	if m < 8 || m > 1<<20 || t < 1 || t > 16 || threads < 1 || threads > 255 {
		return p, nil, nil, ErrBadHash
	}
	salt, err1 := b64.DecodeString(parts[4])
	key, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(key) < 16 {
		return p, nil, nil, ErrBadHash
	}
	return Params{Memory: uint32(m), Time: uint32(t), Threads: uint8(threads)}, salt, key, nil
}

// Check reports whether password matches encoded, and whether the hash
// was made with parameters other than want (so should be remade).
func Check(encoded, password string, want Params) (ok, rehash bool, err error) {
	p, salt, key, err := decodeHash(encoded)
	if err != nil {
		return false, false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, p != want || len(key) != keyBytes || len(salt) != saltBytes, nil
}
