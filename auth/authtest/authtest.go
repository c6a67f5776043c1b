// Package authtest holds the conformance suite every [auth.Store] must
// pass ([RunStoreTests]); authsql passes it on SQLite and Postgres.
package authtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/testkit"
)

// ctx is the context of every store call of the suite.
var ctx = context.Background()

// at is the suite's clock, in a zone that is not UTC; exact is at as
// stored (UTC, to the microsecond).
var (
	at    = time.Date(2026, 11, 22, 10, 30, 15, 123456789, time.FixedZone("CET", 3600))
	exact = at.UTC().Truncate(time.Microsecond)
)

// RunStoreTests checks newStore's stores against the auth.Store contract.
// Each subtest gets a fresh store.
func RunStoreTests(t *testing.T, newStore func(t *testing.T) auth.Store) {
	testkit.RunAreas(t, newStore, []testkit.Area[auth.Store]{
		{Name: "CreateAndRead", Run: exerciseCreateAndRead},
		{Name: "NotFound", Run: exerciseNotFound},
		{Name: "ListInIDOrder", Run: exerciseListInIDOrder},
		{Name: "RevokeKeepsFirstTime", Run: exerciseRevokeKeepsFirstTime},
		{Name: "TouchNeverGoesBack", Run: exerciseTouchNeverGoesBack},
		{Name: "ReturnedValuesAreCopies", Run: exerciseReturnedValuesAreCopies},
	})
	runUserTests(t, newStore)
}

// exerciseCreateAndRead is the CreateAndRead part of RunStoreTests.
func exerciseCreateAndRead(t *testing.T, newStore func(t *testing.T) auth.Store) {
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
}

// exerciseNotFound is the NotFound part of RunStoreTests.
func exerciseNotFound(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	_, _, err := s.TokenByID(ctx, 424242)
	require.ErrorIs(t, err, auth.ErrNotFound)
	require.ErrorIs(t, s.RevokeToken(ctx, 424242, at), auth.ErrNotFound)
	require.NoError(t, s.TouchToken(ctx, 424242, at))
}

// exerciseListInIDOrder is the ListInIDOrder part of RunStoreTests.
func exerciseListInIDOrder(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	list, err := s.ListTokens(ctx, 0)
	require.NoError(t, err)
	require.Empty(t, list)
	var ids []int64
	for _, name := range []string{"a", "b", "c"} {
		tok, err := s.CreateToken(ctx, auth.Token{Name: name, Abilities: []string{"*"}, CreatedAt: at}, []byte(name))
		require.NoError(t, err)
		ids = append(ids, tok.ID)
	}
	require.NoError(t, s.RevokeToken(ctx, ids[1], at))
	list, err = s.ListTokens(ctx, 0)
	require.NoError(t, err)
	require.Len(t, list, 3)
	for i, tok := range list {
		require.Equal(t, ids[i], tok.ID)
	}
	require.NotNil(t, list[1].RevokedAt, "revoked tokens are listed")
}

// exerciseRevokeKeepsFirstTime is the RevokeKeepsFirstTime part of RunStoreTests.
func exerciseRevokeKeepsFirstTime(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	tok, err := s.CreateToken(ctx, auth.Token{Name: "r", Abilities: []string{"*"}, CreatedAt: at}, []byte{1})
	require.NoError(t, err)
	require.NoError(t, s.RevokeToken(ctx, tok.ID, at.Add(time.Hour)))
	require.NoError(t, s.RevokeToken(ctx, tok.ID, at.Add(2*time.Hour)))
	got, _, err := s.TokenByID(ctx, tok.ID)
	require.NoError(t, err)
	require.Equal(t, exact.Add(time.Hour), *got.RevokedAt)
}

// exerciseTouchNeverGoesBack is the TouchNeverGoesBack part of RunStoreTests.
func exerciseTouchNeverGoesBack(t *testing.T, newStore func(t *testing.T) auth.Store) {
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
}

// exerciseReturnedValuesAreCopies is the ReturnedValuesAreCopies part of RunStoreTests.
func exerciseReturnedValuesAreCopies(t *testing.T, newStore func(t *testing.T) auth.Store) {
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
}
