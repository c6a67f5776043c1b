// Package authtest holds the conformance suite every [auth.Store] must
// pass ([RunStoreTests]), and an in-memory Store ([NewFake]): the tests of
// other domains, and of hosts, use it for a TokenVerifier without a
// database. The fake passes the same suite as authsql on SQLite and
// Postgres.
package authtest

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
)

// Fake is an in-memory auth.Store, safe for concurrent use. It keeps
// times as the SQL stores do: UTC, to the microsecond.
type Fake struct {
	mu       sync.Mutex
	nextID   int64
	tokens   map[int64]fakeToken
	nextUser int64
	users    map[int64]fakeUser
	sessions map[string]auth.Session
	remember map[string]auth.RememberToken
	resets   map[int64]auth.PasswordReset
}

type fakeToken struct {
	t    auth.Token
	hash []byte
}

var _ auth.Store = (*Fake)(nil)

// NewFake returns an empty store.
func NewFake() *Fake {
	return &Fake{tokens: map[int64]fakeToken{}, users: map[int64]fakeUser{}, sessions: map[string]auth.Session{},
		remember: map[string]auth.RememberToken{}, resets: map[int64]auth.PasswordReset{}}
}

func norm(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func normPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := norm(*t)
	return &v
}

func copyToken(t auth.Token) auth.Token {
	t.Abilities = slices.Clone(t.Abilities)
	t.ExpiresAt, t.LastUsedAt, t.RevokedAt = normPtr(t.ExpiresAt), normPtr(t.LastUsedAt), normPtr(t.RevokedAt)
	if t.UserID != nil {
		id := *t.UserID
		t.UserID = &id
	}
	t.CreatedAt = norm(t.CreatedAt)
	return t
}

// CreateToken implements auth.Store.
func (f *Fake) CreateToken(_ context.Context, t auth.Token, hash []byte) (auth.Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	t = copyToken(t)
	t.ID = f.nextID
	f.tokens[t.ID] = fakeToken{t: t, hash: bytes.Clone(hash)}
	return copyToken(t), nil
}

// TokenByID implements auth.Store.
func (f *Fake) TokenByID(_ context.Context, id int64) (auth.Token, []byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ft, ok := f.tokens[id]
	if !ok {
		return auth.Token{}, nil, auth.ErrNotFound
	}
	return copyToken(ft.t), bytes.Clone(ft.hash), nil
}

// ListTokens implements auth.Store.
func (f *Fake) ListTokens(context.Context) ([]auth.Token, error) {
	return f.listTokens(func(auth.Token) bool { return true }), nil
}

// ListUserTokens implements auth.Store.
func (f *Fake) ListUserTokens(_ context.Context, userID int64) ([]auth.Token, error) {
	return f.listTokens(func(t auth.Token) bool { return t.UserID != nil && *t.UserID == userID }), nil
}

func (f *Fake) listTokens(keep func(auth.Token) bool) []auth.Token {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]auth.Token, 0, len(f.tokens))
	for _, ft := range f.tokens {
		if keep(ft.t) {
			out = append(out, copyToken(ft.t))
		}
	}
	slices.SortFunc(out, func(a, b auth.Token) int { return int(a.ID - b.ID) })
	return out
}

// RevokeToken implements auth.Store.
func (f *Fake) RevokeToken(_ context.Context, id int64, at time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	ft, ok := f.tokens[id]
	if !ok {
		return auth.ErrNotFound
	}
	if ft.t.RevokedAt == nil {
		ft.t.RevokedAt = normPtr(&at)
		f.tokens[id] = ft
	}
	return nil
}

// TouchToken implements auth.Store.
func (f *Fake) TouchToken(_ context.Context, id int64, at time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	ft, ok := f.tokens[id]
	if !ok {
		return nil
	}
	at = norm(at)
	if ft.t.LastUsedAt == nil || ft.t.LastUsedAt.Before(at) {
		ft.t.LastUsedAt = &at
		f.tokens[id] = ft
	}
	return nil
}

// RunStoreTests checks newStore's stores against the auth.Store contract.
// Each subtest gets a fresh store.
func RunStoreTests(t *testing.T, newStore func(t *testing.T) auth.Store) {
	ctx := context.Background()
	at := time.Date(2026, 11, 22, 10, 30, 15, 123456789, time.FixedZone("CET", 3600))
	exact := at.UTC().Truncate(time.Microsecond)

	t.Run("CreateAndRead", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		exp := at.Add(24 * time.Hour)
		created, err := s.CreateToken(ctx, auth.Token{Name: "ci", Abilities: []string{"forms:*", "a11y:ai"}, ExpiresAt: &exp, CreatedAt: at}, []byte{1, 2, 3})
		require.NoError(t, err)
		require.Positive(t, created.ID)
		require.Equal(t, "ci", created.Name)
		require.Equal(t, []string{"forms:*", "a11y:ai"}, created.Abilities)
		require.Equal(t, exact, created.CreatedAt)
		require.Equal(t, exp.UTC().Truncate(time.Microsecond), *created.ExpiresAt)
		require.Nil(t, created.LastUsedAt)
		require.Nil(t, created.RevokedAt)

		got, hash, err := s.TokenByID(ctx, created.ID)
		require.NoError(t, err)
		require.Equal(t, created, got)
		require.Equal(t, time.UTC, got.CreatedAt.Location())
		require.Equal(t, []byte{1, 2, 3}, hash)

		second, err := s.CreateToken(ctx, auth.Token{Name: "other", Abilities: []string{"*"}, CreatedAt: at}, []byte{4})
		require.NoError(t, err)
		require.Greater(t, second.ID, created.ID)
		require.Nil(t, second.ExpiresAt)
	})

	t.Run("NotFound", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		_, _, err := s.TokenByID(ctx, 424242)
		require.ErrorIs(t, err, auth.ErrNotFound)
		require.ErrorIs(t, s.RevokeToken(ctx, 424242, at), auth.ErrNotFound)
		require.NoError(t, s.TouchToken(ctx, 424242, at))
	})

	t.Run("ListInIDOrder", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		list, err := s.ListTokens(ctx)
		require.NoError(t, err)
		require.Empty(t, list)
		var ids []int64
		for _, name := range []string{"a", "b", "c"} {
			tok, err := s.CreateToken(ctx, auth.Token{Name: name, Abilities: []string{"*"}, CreatedAt: at}, []byte(name))
			require.NoError(t, err)
			ids = append(ids, tok.ID)
		}
		require.NoError(t, s.RevokeToken(ctx, ids[1], at))
		list, err = s.ListTokens(ctx)
		require.NoError(t, err)
		require.Len(t, list, 3)
		for i, tok := range list {
			require.Equal(t, ids[i], tok.ID)
		}
		require.NotNil(t, list[1].RevokedAt, "revoked tokens are listed")
	})

	t.Run("RevokeKeepsFirstTime", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tok, err := s.CreateToken(ctx, auth.Token{Name: "r", Abilities: []string{"*"}, CreatedAt: at}, []byte{1})
		require.NoError(t, err)
		require.NoError(t, s.RevokeToken(ctx, tok.ID, at.Add(time.Hour)))
		require.NoError(t, s.RevokeToken(ctx, tok.ID, at.Add(2*time.Hour)))
		got, _, err := s.TokenByID(ctx, tok.ID)
		require.NoError(t, err)
		require.Equal(t, exact.Add(time.Hour), *got.RevokedAt)
	})

	t.Run("TouchNeverGoesBack", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tok, err := s.CreateToken(ctx, auth.Token{Name: "t", Abilities: []string{"*"}, CreatedAt: at}, []byte{1})
		require.NoError(t, err)
		require.NoError(t, s.TouchToken(ctx, tok.ID, at.Add(time.Hour)))
		require.NoError(t, s.TouchToken(ctx, tok.ID, at.Add(time.Minute)))
		got, _, err := s.TokenByID(ctx, tok.ID)
		require.NoError(t, err)
		require.Equal(t, exact.Add(time.Hour), *got.LastUsedAt)
		require.NoError(t, s.TouchToken(ctx, tok.ID, at.Add(2*time.Hour)))
		got, _, err = s.TokenByID(ctx, tok.ID)
		require.NoError(t, err)
		require.Equal(t, exact.Add(2*time.Hour), *got.LastUsedAt)
	})

	t.Run("ReturnedValuesAreCopies", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		abilities := []string{"forms:*"}
		tok, err := s.CreateToken(ctx, auth.Token{Name: "c", Abilities: abilities, CreatedAt: at}, []byte{9})
		require.NoError(t, err)
		abilities[0] = "*"
		tok.Abilities[0] = "*"
		got, hash, err := s.TokenByID(ctx, tok.ID)
		require.NoError(t, err)
		require.Equal(t, []string{"forms:*"}, got.Abilities)
		hash[0] = 0
		_, hash, err = s.TokenByID(ctx, tok.ID)
		require.NoError(t, err)
		require.Equal(t, []byte{9}, hash)
	})

	runUserTests(t, newStore)
}
