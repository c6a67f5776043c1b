package auth_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
)

func newTestService(t *testing.T, st auth.Store, o *auth.Options) *auth.Service {
	t.Helper()
	if st == nil {
		st = newStore(t)
	}
	s, err := auth.NewService(st, o)
	require.NoError(t, err)
	return s
}

func TestPasswordHashesArePHCAndCheck(t *testing.T) {
	t.Parallel()
	p := auth.PasswordParams{Memory: auth.PasswordMemoryDefault, Time: auth.PasswordTimeDefault, Threads: auth.PasswordThreadsDefault}
	h, err := auth.HashPassword("correct horse", p)
	require.NoError(t, err)
	require.Regexp(t, `^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`, h)
	ok, rehash, err := auth.CheckPassword(h, "correct horse", p)
	require.NoError(t, err)
	require.True(t, ok)
	require.False(t, rehash)
	ok, _, err = auth.CheckPassword(h, "correct horsf", p)
	require.NoError(t, err)
	require.False(t, ok)
	// Raised parameters: the old hash still checks, and asks for a rehash.
	ok, rehash, err = auth.CheckPassword(h, "correct horse", auth.PasswordParams{Memory: 2 * auth.PasswordMemoryDefault, Time: 3, Threads: 1})
	require.NoError(t, err)
	require.True(t, ok)
	require.True(t, rehash)
	other, err := auth.HashPassword("correct horse", p)
	require.NoError(t, err)
	require.NotEqual(t, h, other, "salted")
}

func TestUnreadableHashes(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"", "plain", "$2y$10$bcrypt", "$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5",
		"$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5", "$argon2id$v=19$m=64,t=1,p=1$!!$a2V5",
		"$argon2id$v=18$m=64,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5", "$argon2id$v=19$m=64,t=1,x=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5"} {
		_, _, err := auth.CheckPassword(h, "x", auth.PasswordParams{Memory: 64, Time: 1, Threads: 1})
		require.ErrorIs(t, err, auth.ErrBadHash, h)
	}
}

// An unknown email runs argon2id as a wrong password does.
func TestUnknownEmailRunsTheHash(t *testing.T) {
	t.Parallel()
	s := newTestService(t, nil, &auth.Options{Password: auth.PasswordParams{Memory: 64, Time: 1, Threads: 1}})
	ctx := context.Background()
	_, err := s.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse"})
	require.NoError(t, err)
	before := auth.HashChecks(s)
	_, err = s.CheckCredentials(ctx, "nobody@example.com", "whatever1", "192.0.2.1")
	require.ErrorIs(t, err, auth.ErrBadCredentials)
	require.Equal(t, before+1, auth.HashChecks(s), "the dummy hash was checked")
	_, err = s.CheckCredentials(ctx, "ada@example.com", "whatever1", "192.0.2.1")
	require.ErrorIs(t, err, auth.ErrBadCredentials)
	require.Equal(t, before+2, auth.HashChecks(s))
	// A very long password is refused at the same cost, not hashed whole.
	_, err = s.CheckCredentials(ctx, "ada@example.com", strings.Repeat("x", 1<<20), "192.0.2.1")
	require.ErrorIs(t, err, auth.ErrBadCredentials)
	require.Equal(t, before+3, auth.HashChecks(s))
}

// Old hashes are replaced at the next sign-in.
func TestSignInRehashes(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	old := newTestService(t, st, &auth.Options{Password: auth.PasswordParams{Memory: 64, Time: 1, Threads: 1}})
	ctx := context.Background()
	u, err := old.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse"})
	require.NoError(t, err)
	_, before, _ := st.UserByID(ctx, u.ID)
	raised := newTestService(t, st, &auth.Options{Password: auth.PasswordParams{Memory: 128, Time: 2, Threads: 1}})
	_, err = raised.CheckCredentials(ctx, "ada@example.com", "correct horse", "192.0.2.1")
	require.NoError(t, err)
	_, after, _ := st.UserByID(ctx, u.ID)
	require.NotEqual(t, before, after)
	require.True(t, strings.HasPrefix(after, "$argon2id$v=19$m=128,t=2,p=1$"), after)
	_, err = raised.CheckCredentials(ctx, "ada@example.com", "correct horse", "192.0.2.1")
	require.NoError(t, err)
	_, again, _ := st.UserByID(ctx, u.ID)
	require.Equal(t, after, again, "no rehash when the parameters match")
}

// Hashing is bounded: with one slot taken, a sign-in waits its turn and
// gives up with auth.ErrBusy after PasswordWait. The wait is long enough
// that a loaded machine still frees the slot within it for the second.
func TestHashingIsBounded(t *testing.T) {
	t.Parallel()
	s := newTestService(t, nil, &auth.Options{Password: auth.PasswordParams{Memory: 64, Time: 1, Threads: 1}, PasswordConcurrency: 1, PasswordWait: time.Second})
	release, err := auth.HashTurn(s)
	require.NoError(t, err)
	_, err = s.CheckCredentials(context.Background(), "ada@example.com", "whatever1", "192.0.2.1")
	require.ErrorIs(t, err, auth.ErrBusy)
	var wg sync.WaitGroup
	wg.Go(func() {
		_, err := s.CheckCredentials(context.Background(), "ada@example.com", "whatever1", "192.0.2.2")
		require.ErrorIs(t, err, auth.ErrBadCredentials, "served once the slot frees")
	})
	time.Sleep(10 * time.Millisecond)
	release()
	wg.Wait()
}
