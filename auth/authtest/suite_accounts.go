package authtest

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authstore"
)

// exerciseProfile is the Profile part of runUserTests: a name and an
// address change, a taken address refused.
func exerciseProfile(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	u := newUser(t, s, "p@example.com")
	newUser(t, s, "taken@example.com")
	require.NoError(t, s.SetName(ctx, u.ID, "Ada King", at.Add(time.Minute)))
	verified := at.Add(2 * time.Minute)
	require.NoError(t, s.SetEmail(ctx, u.ID, "king@example.com", &verified, verified))
	got, _, err := s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	require.Equal(t, "Ada King", got.Name)
	require.Equal(t, "king@example.com", got.Email)
	require.Equal(t, verified.UTC().Truncate(time.Microsecond), *got.EmailVerifiedAt)
	require.Equal(t, verified.UTC().Truncate(time.Microsecond), got.UpdatedAt)
	require.ErrorIs(t, s.SetEmail(ctx, u.ID, "taken@example.com", nil, at), auth.ErrEmailTaken)
	require.ErrorIs(t, s.SetName(ctx, 9999, "x", at), auth.ErrNotFound)
	require.ErrorIs(t, s.SetEmail(ctx, 9999, "x@example.com", nil, at), auth.ErrNotFound)
	_, _, err = s.UserByEmail(ctx, "p@example.com")
	require.ErrorIs(t, err, auth.ErrNotFound, "the old address is free")
}

// exerciseDeleteUser is the DeleteUser part of runUserTests: the user's
// tokens, sessions and codes go with them; an error of the hook keeps
// everything; the hook runs in the transaction.
func exerciseDeleteUser(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	u := newUser(t, s, "d@example.com")
	keep := newUser(t, s, "keep@example.com")
	tok, err := s.CreateToken(ctx, auth.Token{Name: "t", Abilities: []string{"*"}, UserID: &u.ID, CreatedAt: at}, []byte{1})
	require.NoError(t, err)
	require.NoError(t, s.CreateSession(ctx, authstore.Session{IDHash: []byte("d-session"), UserID: u.ID, CreatedAt: at, LastSeenAt: at, PasswordConfirmedAt: at}))
	require.NoError(t, s.CreateSession(ctx, authstore.Session{IDHash: []byte("k-session"), UserID: keep.ID, CreatedAt: at, LastSeenAt: at, PasswordConfirmedAt: at}))
	require.NoError(t, s.BeginTwoFactor(ctx, u.ID, "sealed", at))
	require.NoError(t, s.ConfirmTwoFactor(ctx, u.ID, 5, [][]byte{{1}, {2}}, at))

	// A deletion in a transaction that fails afterwards keeps the user
	// and everything of theirs.
	refused := errors.New("the host keeps this one")
	err = s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		require.NoError(t, s.DeleteUser(ctx, u.ID))
		return refused
	})
	require.ErrorIs(t, err, refused)
	_, _, err = s.UserByID(ctx, u.ID)
	require.NoError(t, err, "kept")
	_, _, err = s.TokenByID(ctx, tok.ID)
	require.NoError(t, err, "their token kept")

	require.NoError(t, s.DeleteUser(ctx, u.ID))
	_, _, err = s.UserByID(ctx, u.ID)
	require.ErrorIs(t, err, auth.ErrNotFound)
	_, _, err = s.TokenByID(ctx, tok.ID)
	require.ErrorIs(t, err, auth.ErrNotFound, "their tokens went with them")
	_, _, err = s.SessionByHash(ctx, []byte("d-session"))
	require.ErrorIs(t, err, auth.ErrNotFound)
	n, err := s.RecoveryCodesLeft(ctx, u.ID)
	require.NoError(t, err)
	require.Zero(t, n)
	_, _, err = s.SessionByHash(ctx, []byte("k-session"))
	require.NoError(t, err, "another user's session stays")
	require.ErrorIs(t, s.DeleteUser(ctx, u.ID), auth.ErrNotFound)
}

// exerciseSessionList is the SessionList part of runUserTests.
func exerciseSessionList(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	u := newUser(t, s, "l@example.com")
	other := newUser(t, s, "o@example.com")
	for i, h := range []string{"first", "second", "third"} {
		seen := at.Add(time.Duration(i) * time.Minute)
		require.NoError(t, s.CreateSession(ctx, authstore.Session{IDHash: []byte(h), UserID: u.ID, CreatedAt: at, LastSeenAt: seen, PasswordConfirmedAt: at,
			UserAgent: "agent " + h, IP: "192.0.2.1", Place: "GB"}))
	}
	require.NoError(t, s.CreateSession(ctx, authstore.Session{IDHash: []byte("theirs"), UserID: other.ID, CreatedAt: at, LastSeenAt: at, PasswordConfirmedAt: at}))
	list, err := s.ListUserSessions(ctx, u.ID)
	require.NoError(t, err)
	require.Len(t, list, 3)
	require.Equal(t, "third", string(list[0].IDHash), "the most recently seen first")
	require.Equal(t, "agent third", list[0].UserAgent)
	require.Equal(t, "192.0.2.1", list[0].IP)
	require.Equal(t, "GB", list[0].Place)
	require.Equal(t, exact.Add(2*time.Minute), list[0].LastSeenAt)
	n, err := s.DeleteOtherSessions(ctx, u.ID, []byte("second"))
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	list, err = s.ListUserSessions(ctx, u.ID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, "second", string(list[0].IDHash))
	_, _, err = s.SessionByHash(ctx, []byte("theirs"))
	require.NoError(t, err, "another user's session stays")
}

// exerciseTwoFactor is the TwoFactor part of runUserTests: begin,
// confirm, a step used once (and never an earlier one), recovery codes
// used once, disable.
func exerciseTwoFactor(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	u := newUser(t, s, "2fa@example.com")
	_, err := s.TwoFactorOf(ctx, u.ID)
	require.ErrorIs(t, err, auth.ErrNotFound)
	took, err := s.UseTwoFactorStep(ctx, u.ID, 10)
	require.NoError(t, err)
	require.False(t, took, "no code is accepted while it is off")
	require.ErrorIs(t, s.ConfirmTwoFactor(ctx, u.ID, 1, nil, at), auth.ErrNotFound, "nothing pending")

	require.NoError(t, s.BeginTwoFactor(ctx, u.ID, "sealed-1", at))
	st, err := s.TwoFactorOf(ctx, u.ID)
	require.NoError(t, err)
	require.Equal(t, authstore.TwoFactorState{SealedSecret: "sealed-1"}, st)
	got, _, err := s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	require.False(t, got.TwoFactor(), "pending is not on")

	require.NoError(t, s.ConfirmTwoFactor(ctx, u.ID, 100, [][]byte{[]byte("code-a"), []byte("code-b")}, at))
	require.ErrorIs(t, s.ConfirmTwoFactor(ctx, u.ID, 101, nil, at), auth.ErrNotFound, "confirmed once")
	st, err = s.TwoFactorOf(ctx, u.ID)
	require.NoError(t, err)
	require.Equal(t, exact, *st.ConfirmedAt)
	require.EqualValues(t, 100, st.LastStep)
	got, _, err = s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	require.True(t, got.TwoFactor())
	require.Equal(t, exact, *got.TwoFactorConfirmedAt)

	for _, c := range []struct {
		step int64
		took bool
	}{{100, false}, {99, false}, {101, true}, {101, false}, {103, true}, {102, false}} {
		took, err := s.UseTwoFactorStep(ctx, u.ID, c.step)
		require.NoError(t, err)
		require.Equal(t, c.took, took, "step %d", c.step)
	}

	left, err := s.RecoveryCodesLeft(ctx, u.ID)
	require.NoError(t, err)
	require.Equal(t, 2, left)
	used, err := s.UseRecoveryCode(ctx, u.ID, []byte("code-a"))
	require.NoError(t, err)
	require.True(t, used)
	used, err = s.UseRecoveryCode(ctx, u.ID, []byte("code-a"))
	require.NoError(t, err)
	require.False(t, used, "a code works once")
	require.NoError(t, s.ReplaceRecoveryCodes(ctx, u.ID, [][]byte{[]byte("code-c")}))
	used, err = s.UseRecoveryCode(ctx, u.ID, []byte("code-b"))
	require.NoError(t, err)
	require.False(t, used, "replaced codes are gone")

	require.NoError(t, s.DisableTwoFactor(ctx, u.ID, at))
	_, err = s.TwoFactorOf(ctx, u.ID)
	require.ErrorIs(t, err, auth.ErrNotFound)
	left, err = s.RecoveryCodesLeft(ctx, u.ID)
	require.NoError(t, err)
	require.Zero(t, left)
	got, _, err = s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	require.False(t, got.TwoFactor())
	require.NoError(t, s.DisableTwoFactor(ctx, u.ID, at), "off twice")
}

// exercisePasskeys is the Passkeys part of runUserTests.
func exercisePasskeys(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Parallel()
	s := newStore(t)
	u := newUser(t, s, "pk@example.com")
	other := newUser(t, s, "other@example.com")
	p, err := s.AddPasskey(ctx, auth.Passkey{UserID: u.ID, CredentialID: []byte{1, 2, 3}, Credential: []byte(`{"id":"AQID"}`), Name: "Laptop", CreatedAt: at})
	require.NoError(t, err)
	require.Positive(t, p.ID)
	require.Equal(t, exact, p.CreatedAt)
	require.Nil(t, p.LastUsedAt)
	_, err = s.AddPasskey(ctx, auth.Passkey{UserID: other.ID, CredentialID: []byte{1, 2, 3}, Credential: []byte(`{}`), Name: "x", CreatedAt: at})
	require.ErrorIs(t, err, auth.ErrPasskeyTaken, "a credential belongs to one user")
	second, err := s.AddPasskey(ctx, auth.Passkey{UserID: u.ID, CredentialID: []byte{4}, Credential: []byte(`{}`), Name: "Phone", CreatedAt: at})
	require.NoError(t, err)

	got, err := s.PasskeyByCredential(ctx, []byte{1, 2, 3})
	require.NoError(t, err)
	require.Equal(t, p, got)
	_, err = s.PasskeyByCredential(ctx, []byte{9})
	require.ErrorIs(t, err, auth.ErrNotFound)
	require.NoError(t, s.UsePasskey(ctx, p.ID, []byte(`{"id":"AQID","n":2}`), at.Add(time.Hour)))
	got, err = s.PasskeyByCredential(ctx, []byte{1, 2, 3})
	require.NoError(t, err)
	require.Equal(t, `{"id":"AQID","n":2}`, string(got.Credential))
	require.Equal(t, exact.Add(time.Hour), *got.LastUsedAt)

	list, err := s.UserPasskeys(ctx, u.ID)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, "Laptop", list[0].Name)
	require.ErrorIs(t, s.DeletePasskey(ctx, other.ID, second.ID), auth.ErrNotFound, "only its owner deletes it")
	require.NoError(t, s.DeletePasskey(ctx, u.ID, second.ID))
	require.ErrorIs(t, s.DeletePasskey(ctx, u.ID, second.ID), auth.ErrNotFound)
	list, err = s.UserPasskeys(ctx, u.ID)
	require.NoError(t, err)
	require.Len(t, list, 1)
}
