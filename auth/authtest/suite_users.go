package authtest

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authstore"
	"github.com/groundwork-go/groundwork/internal/testkit"
)

// newUser stores a user named Ada with email.
func newUser(t *testing.T, s auth.Store, email string) auth.User {
	t.Helper()
	u, err := s.CreateUser(ctx, auth.User{Name: "Ada", Email: email, Capabilities: []string{"view_search_reporting"}, CreatedAt: at, UpdatedAt: at}, "$argon2id$hash")
	require.NoError(t, err)
	return u
}

// runUserTests is the half of the suite about users, sessions, remember-me
// tokens and password resets, and tokens that belong to users.
func runUserTests(t *testing.T, newStore func(t *testing.T) auth.Store) {
	testkit.RunAreas(t, newStore, []testkit.Area[auth.Store]{
		{Name: "Users", Run: exerciseUsers},
		{Name: "TokensOfUsers", Run: exerciseTokensOfUsers},
		{Name: "Sessions", Run: exerciseSessions},
		{Name: "RememberTokensServeOnce", Run: exerciseRememberTokensServeOnce},
		{Name: "PasswordResetsServeOnce", Run: exercisePasswordResetsServeOnce},
		{Name: "Prune", Run: exercisePrune},
		{Name: "Profile", Run: exerciseProfile},
		{Name: "DeleteUser", Run: exerciseDeleteUser},
		{Name: "SessionList", Run: exerciseSessionList},
		{Name: "TwoFactor", Run: exerciseTwoFactor},
		{Name: "Passkeys", Run: exercisePasskeys},
	})
}

// exerciseUsers is the Users part of runUserTests.
func exerciseUsers(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	u := newUser(t, s, "ada@example.com")
	require.Positive(t, u.ID)
	require.Equal(t, "ada@example.com", u.Email)
	require.Equal(t, exact, u.CreatedAt)
	require.Nil(t, u.EmailVerifiedAt)
	require.Equal(t, []string{"view_search_reporting"}, u.Capabilities)

	got, hash, err := s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	require.Equal(t, u, got)
	require.Equal(t, "$argon2id$hash", hash)
	got, _, err = s.UserByEmail(ctx, "ada@example.com")
	require.NoError(t, err)
	require.Equal(t, u, got)
	_, _, err = s.UserByEmail(ctx, "nobody@example.com")
	require.ErrorIs(t, err, auth.ErrNotFound)
	_, _, err = s.UserByID(ctx, 987654)
	require.ErrorIs(t, err, auth.ErrNotFound)

	_, err = s.CreateUser(ctx, auth.User{Name: "Again", Email: "ada@example.com", CreatedAt: at, UpdatedAt: at}, "x")
	require.ErrorIs(t, err, auth.ErrEmailTaken)
	bob, err := s.CreateUser(ctx, auth.User{Name: "Bob", Email: "bob@example.com", CreatedAt: at, UpdatedAt: at}, "x")
	require.NoError(t, err)
	require.Equal(t, []string{}, bob.Capabilities, "no capabilities is an empty list")

	later := at.Add(time.Hour)
	require.NoError(t, s.SetPasswordHash(ctx, u.ID, "$argon2id$new", later))
	require.NoError(t, s.MarkEmailVerified(ctx, u.ID, later))
	require.NoError(t, s.MarkEmailVerified(ctx, u.ID, later.Add(time.Hour)), "verifying twice keeps the first time")
	require.NoError(t, s.SetCapabilities(ctx, u.ID, []string{"*"}, later))
	got, hash, err = s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	require.Equal(t, "$argon2id$new", hash)
	require.Equal(t, exact.Add(time.Hour), *got.EmailVerifiedAt)
	require.Equal(t, []string{"*"}, got.Capabilities)
	require.Equal(t, exact.Add(time.Hour), got.UpdatedAt)
	for _, err := range []error{
		s.SetPasswordHash(ctx, 987654, "x", at), s.MarkEmailVerified(ctx, 987654, at), s.SetCapabilities(ctx, 987654, nil, at),
	} {
		require.ErrorIs(t, err, auth.ErrNotFound)
	}

	list, err := s.ListUsers(ctx, auth.UserQuery{})
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, u.ID, list[0].ID)
	require.Equal(t, bob.ID, list[1].ID)
	rob, err := s.CreateUser(ctx, auth.User{Name: "Rob_b 100%", Email: "rob@example.com", CreatedAt: at, UpdatedAt: at}, "x")
	require.NoError(t, err)
	ids := func(q auth.UserQuery) []int64 {
		list, err := s.ListUsers(ctx, q)
		require.NoError(t, err)
		var out []int64
		for _, u := range list {
			out = append(out, u.ID)
		}
		return out
	}
	require.Equal(t, []int64{bob.ID}, ids(auth.UserQuery{Search: "BOB@"}), "an address, in any case")
	require.Equal(t, []int64{rob.ID}, ids(auth.UserQuery{Search: "ROB_B"}), "a name, in any case")
	require.Equal(t, []int64{rob.ID}, ids(auth.UserQuery{Search: "b_b"}), "the wildcards match themselves")
	require.Equal(t, []int64{rob.ID}, ids(auth.UserQuery{Search: "0%"}))
	require.Equal(t, []int64{u.ID, bob.ID, rob.ID}, ids(auth.UserQuery{Search: "example.com"}))
	require.Equal(t, []int64{u.ID}, ids(auth.UserQuery{Limit: 1}))
	require.Equal(t, []int64{bob.ID}, ids(auth.UserQuery{After: u.ID, Limit: 1}), "the next page")
	require.Empty(t, ids(auth.UserQuery{Search: "nobody"}))

	off := at.Add(3 * time.Hour)
	require.NoError(t, s.SetDisabled(ctx, bob.ID, &off, off))
	got, _, err = s.UserByID(ctx, bob.ID)
	require.NoError(t, err)
	require.Equal(t, exact.Add(3*time.Hour), *got.DisabledAt)
	got, _, err = s.UserByEmail(ctx, "bob@example.com")
	require.NoError(t, err)
	require.NotNil(t, got.DisabledAt, "every read of a user says it")
	require.NoError(t, s.SetDisabled(ctx, bob.ID, nil, off))
	got, _, err = s.UserByID(ctx, bob.ID)
	require.NoError(t, err)
	require.Nil(t, got.DisabledAt)
	require.ErrorIs(t, s.SetDisabled(ctx, 987654, &off, off), auth.ErrNotFound)
}

// exerciseTokensOfUsers is the TokensOfUsers part of runUserTests.
func exerciseTokensOfUsers(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	u := newUser(t, s, "owner@example.com")
	other := newUser(t, s, "other@example.com")
	mine, err := s.CreateToken(ctx, auth.Token{Name: "mine", Abilities: []string{"*"}, UserID: &u.ID, CreatedAt: at}, []byte{1})
	require.NoError(t, err)
	require.Equal(t, u.ID, *mine.UserID)
	_, err = s.CreateToken(ctx, auth.Token{Name: "cli", Abilities: []string{"*"}, CreatedAt: at}, []byte{2})
	require.NoError(t, err)
	_, err = s.CreateToken(ctx, auth.Token{Name: "theirs", Abilities: []string{"*"}, UserID: &other.ID, CreatedAt: at}, []byte{3})
	require.NoError(t, err)
	list, err := s.ListTokens(ctx, u.ID)
	require.NoError(t, err)
	require.Equal(t, []auth.Token{mine}, list)
	got, _, err := s.TokenByID(ctx, mine.ID)
	require.NoError(t, err)
	require.Equal(t, mine, got)
}

// exerciseSessions is the Sessions part of runUserTests.
func exerciseSessions(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	u := newUser(t, s, "s@example.com")
	sess := authstore.Session{IDHash: []byte("0123456789abcdef0123456789abcdef"), UserID: u.ID, CreatedAt: at, LastSeenAt: at, PasswordConfirmedAt: at}
	require.NoError(t, s.CreateSession(ctx, sess))
	other := authstore.Session{IDHash: []byte("another-session-hash-of-32-bytes"), UserID: u.ID, CreatedAt: at, LastSeenAt: at, PasswordConfirmedAt: at}
	require.NoError(t, s.CreateSession(ctx, other))
	got, user, err := s.SessionByHash(ctx, sess.IDHash)
	require.NoError(t, err)
	require.Equal(t, sess.IDHash, got.IDHash)
	require.Equal(t, u, user, "the session comes with its user")
	require.Equal(t, exact, got.LastSeenAt)

	require.NoError(t, s.TouchSession(ctx, sess.IDHash, at.Add(time.Hour), false))
	require.NoError(t, s.TouchSession(ctx, sess.IDHash, at.Add(time.Minute), false), "never back")
	got, _, err = s.SessionByHash(ctx, sess.IDHash)
	require.NoError(t, err)
	require.Equal(t, exact.Add(time.Hour), got.LastSeenAt)
	require.Equal(t, exact, got.PasswordConfirmedAt, "a visit confirms nothing")
	require.NoError(t, s.TouchSession(ctx, sess.IDHash, at.Add(time.Minute), true))
	got, _, err = s.SessionByHash(ctx, sess.IDHash)
	require.NoError(t, err)
	require.Equal(t, exact.Add(time.Hour), got.LastSeenAt, "a confirmation never moves it back either")
	require.Equal(t, exact.Add(time.Minute), got.PasswordConfirmedAt)
	require.NoError(t, s.TouchSession(ctx, sess.IDHash, at.Add(2*time.Hour), true))
	got, _, err = s.SessionByHash(ctx, sess.IDHash)
	require.NoError(t, err)
	require.Equal(t, exact.Add(2*time.Hour), got.LastSeenAt)
	require.Equal(t, exact.Add(2*time.Hour), got.PasswordConfirmedAt)
	require.Equal(t, exact, got.CreatedAt)
	require.NoError(t, s.TouchSession(ctx, []byte("missing"), at, false))
	require.NoError(t, s.TouchSession(ctx, []byte("missing"), at, true))

	require.NoError(t, s.DeleteSession(ctx, sess.IDHash))
	_, _, err = s.SessionByHash(ctx, sess.IDHash)
	require.ErrorIs(t, err, auth.ErrNotFound)
	require.NoError(t, s.DeleteSession(ctx, sess.IDHash), "deleting twice")
	require.NoError(t, s.DeleteUserSessions(ctx, u.ID))
	_, _, err = s.SessionByHash(ctx, other.IDHash)
	require.ErrorIs(t, err, auth.ErrNotFound)
}

// exerciseRememberTokensServeOnce is the RememberTokensServeOnce part of runUserTests.
func exerciseRememberTokensServeOnce(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	u := newUser(t, s, "r@example.com")
	rt := authstore.RememberToken{Selector: "sel-1", ValidatorHash: []byte{7, 7}, UserID: u.ID, ExpiresAt: at.Add(400 * 24 * time.Hour), CreatedAt: at}
	require.NoError(t, s.CreateRememberToken(ctx, rt))
	require.NoError(t, s.CreateRememberToken(ctx, authstore.RememberToken{Selector: "sel-2", ValidatorHash: []byte{8}, UserID: u.ID, ExpiresAt: at, CreatedAt: at}))
	var wg sync.WaitGroup
	var mu sync.Mutex
	taken := 0
	for range 4 {
		wg.Go(func() {
			got, err := s.TakeRememberToken(ctx, "sel-1")
			if err == nil {
				require.Equal(t, []byte{7, 7}, got.ValidatorHash)
				require.Equal(t, u.ID, got.UserID)
				require.Equal(t, at.Add(400*24*time.Hour).UTC().Truncate(time.Microsecond), got.ExpiresAt)
				mu.Lock()
				taken++
				mu.Unlock()
			} else {
				require.ErrorIs(t, err, auth.ErrNotFound)
			}
		})
	}
	wg.Wait()
	require.Equal(t, 1, taken, "one request takes a remember token")
	require.NoError(t, s.DeleteUserRememberTokens(ctx, u.ID))
	_, err := s.TakeRememberToken(ctx, "sel-2")
	require.ErrorIs(t, err, auth.ErrNotFound)
}

// exercisePasswordResetsServeOnce is the PasswordResetsServeOnce part of runUserTests.
func exercisePasswordResetsServeOnce(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	u := newUser(t, s, "p@example.com")
	_, err := s.PasswordResetOf(ctx, u.ID)
	require.ErrorIs(t, err, auth.ErrNotFound)
	require.NoError(t, s.PutPasswordReset(ctx, authstore.PasswordReset{UserID: u.ID, TokenHash: []byte{1}, CreatedAt: at}))
	require.NoError(t, s.PutPasswordReset(ctx, authstore.PasswordReset{UserID: u.ID, TokenHash: []byte{2}, CreatedAt: at.Add(time.Minute)}))
	r, err := s.PasswordResetOf(ctx, u.ID)
	require.NoError(t, err)
	require.Equal(t, []byte{2}, r.TokenHash, "a new reset replaces the old")
	require.Equal(t, exact.Add(time.Minute), r.CreatedAt)
	_, err = s.TakePasswordReset(ctx, u.ID, []byte{1})
	require.ErrorIs(t, err, auth.ErrNotFound, "the replaced token is gone")
	r, err = s.TakePasswordReset(ctx, u.ID, []byte{2})
	require.NoError(t, err)
	require.Equal(t, u.ID, r.UserID)
	_, err = s.TakePasswordReset(ctx, u.ID, []byte{2})
	require.ErrorIs(t, err, auth.ErrNotFound, "a reset serves once")
}

// exercisePrune is the Prune part of runUserTests.
func exercisePrune(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	u := newUser(t, s, "prune@example.com")
	idle := authstore.Session{IDHash: []byte("idle-session"), UserID: u.ID, CreatedAt: at, LastSeenAt: at, PasswordConfirmedAt: at}
	old := authstore.Session{IDHash: []byte("old-session"), UserID: u.ID, CreatedAt: at.Add(-48 * time.Hour), LastSeenAt: at.Add(3 * time.Hour), PasswordConfirmedAt: at}
	live := authstore.Session{IDHash: []byte("live-session"), UserID: u.ID, CreatedAt: at, LastSeenAt: at.Add(3 * time.Hour), PasswordConfirmedAt: at}
	for _, ss := range []authstore.Session{idle, old, live} {
		require.NoError(t, s.CreateSession(ctx, ss))
	}
	require.NoError(t, s.CreateRememberToken(ctx, authstore.RememberToken{Selector: "gone", ValidatorHash: []byte{1}, UserID: u.ID, ExpiresAt: at.Add(time.Hour), CreatedAt: at}))
	require.NoError(t, s.CreateRememberToken(ctx, authstore.RememberToken{Selector: "kept", ValidatorHash: []byte{1}, UserID: u.ID, ExpiresAt: at.Add(9 * time.Hour), CreatedAt: at}))
	require.NoError(t, s.PutPasswordReset(ctx, authstore.PasswordReset{UserID: u.ID, TokenHash: []byte{1}, CreatedAt: at}))
	now := at.Add(4 * time.Hour)
	n, err := s.Prune(ctx, authstore.Prune{Now: now, IdleBefore: now.Add(-2 * time.Hour), CreatedBefore: now.Add(-24 * time.Hour), ResetsBefore: now.Add(-time.Hour)})
	require.NoError(t, err)
	require.EqualValues(t, 4, n, "two sessions, a remember token and a reset")
	_, _, err = s.SessionByHash(ctx, live.IDHash)
	require.NoError(t, err)
	for _, h := range [][]byte{idle.IDHash, old.IDHash} {
		_, _, err = s.SessionByHash(ctx, h)
		require.ErrorIs(t, err, auth.ErrNotFound)
	}
	_, err = s.TakeRememberToken(ctx, "kept")
	require.NoError(t, err)
	_, err = s.PasswordResetOf(ctx, u.ID)
	require.ErrorIs(t, err, auth.ErrNotFound)
}
