package auth_test

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/tenant"
)

type clock = testkit.Clock

// newStore is a fresh auth store on SQLite in the test's temp directory.
func newStore(t *testing.T) auth.Store {
	t.Helper()
	return authsql.New(storetest.Open(t, store.SQLite, authsql.Migrations))
}

type bundle struct {
	store auth.Store
	clock *clock
}

func setup(t *testing.T) (*auth.Service, *bundle) {
	t.Helper()
	b := &bundle{store: newStore(t), clock: &clock{}}
	b.clock.Set(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	svc, err := auth.NewService(b.store, &auth.Options{Now: b.clock.Now})
	require.NoError(t, err)
	return svc, b
}

var plaintextPattern = regexp.MustCompile(`^[1-9][0-9]*\|gw_[A-Za-z0-9]{40}$`)

func TestCreateToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)

	plain, tok, err := svc.CreateToken(ctx, auth.NewToken{Name: "  deploy bot ", Abilities: []string{"forms:*", "forms:*", "a11y:ai"}})
	require.NoError(t, err)
	require.Regexp(t, plaintextPattern, plain)
	require.True(t, strings.HasPrefix(plain, "1|"))
	require.Equal(t, "deploy bot", tok.Name)
	require.Equal(t, []string{"forms:*", "a11y:ai"}, tok.Abilities, "duplicates dropped")
	require.Equal(t, b.clock.Now(), tok.CreatedAt)
	require.Nil(t, tok.ExpiresAt)

	// Only the hash of the secret is kept.
	_, hash, err := b.store.TokenByID(ctx, tok.ID)
	require.NoError(t, err)
	require.Len(t, hash, 32)
	require.False(t, bytes.Contains(hash, []byte(plain[2:])))

	plain2, _, err := svc.CreateToken(ctx, auth.NewToken{Name: "x", Abilities: []string{"*"}})
	require.NoError(t, err)
	require.NotEqual(t, plain[2:], plain2[2:], "secrets differ")

	// Made under a tenant, a token is bound to it; nobody grants that by hand.
	plain3, bound, err := svc.CreateToken(tenant.With(ctx, "acme"), auth.NewToken{Name: "acme's", Abilities: []string{"forms:*"}})
	require.NoError(t, err)
	require.Equal(t, []string{"forms:*", "tenant:acme"}, bound.Abilities)
	_, abilities, err := svc.VerifyToken(ctx, plain3)
	require.NoError(t, err)
	require.Contains(t, abilities, "tenant:acme")
	_, _, err = svc.CreateToken(tenant.With(ctx, "acme"), auth.NewToken{Name: "escape", Abilities: []string{"forms:*", "tenant:globex"}})
	var v *auth.ValidationError
	require.ErrorAs(t, err, &v)
	require.Contains(t, v.Fields(), "abilities.1")
}

func TestCreateTokenValidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	cases := []struct {
		in     auth.NewToken
		fields map[string][]string
	}{
		{auth.NewToken{}, map[string][]string{"name": {"The name field is required."}, "abilities": {"The abilities field is required."}}},
		{auth.NewToken{Name: strings.Repeat("é", 256), Abilities: []string{"*"}}, map[string][]string{"name": {"The name field must not be greater than 255 characters."}}},
		{auth.NewToken{Name: "x", Abilities: []string{"forms:*", "", "a b", "*:forms", "forms:*:x", "fo*"}}, map[string][]string{
			"abilities.1": {"The abilities.1 field format is invalid."}, "abilities.2": {"The abilities.2 field format is invalid."},
			"abilities.3": {"The abilities.3 field format is invalid."}, "abilities.4": {"The abilities.4 field format is invalid."},
			"abilities.5": {"The abilities.5 field format is invalid."}}},
		{auth.NewToken{Name: "x", Abilities: []string{"*"}, ExpiresAt: b.clock.Now()}, map[string][]string{"expires_at": {"The expires at field must be a date in the future."}}},
		// A name no route checks would make a token every route refuses.
		{auth.NewToken{Name: "x", Abilities: []string{"forms:*", "webhooks:*", "forms:creat", "shop:refund"}}, map[string][]string{
			"abilities.1": {`The abilities.1 field names no ability: "webhooks:*" (did you mean "webhookSubscription.*"? A host's own abilities go in auth.Options.Abilities).`},
			"abilities.2": {`The abilities.2 field names no ability: "forms:creat" (did you mean "forms:create"? A host's own abilities go in auth.Options.Abilities).`},
			"abilities.3": {`The abilities.3 field names no ability: "shop:refund" (A host's own abilities go in auth.Options.Abilities).`}}},
	}
	for _, c := range cases {
		_, _, err := svc.CreateToken(ctx, c.in)
		var v *auth.ValidationError
		require.ErrorAs(t, err, &v)
		require.Equal(t, c.fields, v.Fields())
	}
	list, err := svc.ListTokens(ctx)
	require.NoError(t, err)
	require.Empty(t, list)
	for _, ok := range []string{"*", "forms:*", "forms:create", "webhookSubscription.*", "a11y:ai", "a11y.ai", "forms:submissions:export", "my-app_v2.read"} {
		require.True(t, auth.ValidAbility(ok), ok)
	}

	// A host's own abilities, declared, are taken.
	own, err := auth.NewService(b.store, &auth.Options{Abilities: []string{"shop:refund"}})
	require.NoError(t, err)
	_, tok, err := own.CreateToken(ctx, auth.NewToken{Name: "till", Abilities: []string{"shop:*", "forms:view"}})
	require.NoError(t, err)
	require.Equal(t, []string{"shop:*", "forms:view"}, tok.Abilities)
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	plain, tok, err := svc.CreateToken(ctx, auth.NewToken{Name: "ci", Abilities: []string{"forms:*"}, ExpiresAt: b.clock.Now().Add(time.Hour)})
	require.NoError(t, err)

	got, err := svc.Authenticate(ctx, plain)
	require.NoError(t, err)
	require.Equal(t, tok.ID, got.ID)
	require.Equal(t, b.clock.Now(), *got.LastUsedAt)

	caller, abilities, err := svc.VerifyToken(ctx, plain)
	require.NoError(t, err)
	require.Equal(t, "token:1", caller)
	require.Equal(t, []string{"forms:*"}, abilities)

	secret := plain[strings.Index(plain, "|")+1:]
	flipped := []byte(secret)
	flipped[len(flipped)-1] ^= 1
	malformed := []string{
		"", "|", "1|", "|" + secret, "1" + secret, "0|" + secret, "01|" + secret, "-1|" + secret, "x|" + secret,
		"99999999999999999999|" + secret, "1|" + secret + "x", "1|" + secret[:len(secret)-1],
		"1|" + strings.Replace(secret, "gw_", "xx_", 1), "1|gw_" + strings.Repeat("!", 40),
		"1|" + string(flipped), "2|" + secret, "1| " + secret, "1|" + secret + "\n",
	}
	for _, m := range malformed {
		_, err := svc.Authenticate(ctx, m)
		require.ErrorIs(t, err, auth.ErrInvalidToken, "%q", m)
		caller, abilities, err := svc.VerifyToken(ctx, m)
		require.NoError(t, err)
		require.Empty(t, caller)
		require.Nil(t, abilities)
	}

	// Expiry is exclusive: at ExpiresAt the token no longer works.
	b.clock.Advance(time.Hour - time.Microsecond)
	_, err = svc.Authenticate(ctx, plain)
	require.NoError(t, err)
	b.clock.Advance(time.Microsecond)
	_, err = svc.Authenticate(ctx, plain)
	require.ErrorIs(t, err, auth.ErrInvalidToken)
}

func TestRevoke(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _ := setup(t)
	plain, tok, err := svc.CreateToken(ctx, auth.NewToken{Name: "ci", Abilities: []string{"*"}})
	require.NoError(t, err)
	require.NoError(t, svc.RevokeToken(ctx, tok.ID))
	_, err = svc.Authenticate(ctx, plain)
	require.ErrorIs(t, err, auth.ErrInvalidToken)
	require.ErrorIs(t, svc.RevokeToken(ctx, 99), auth.ErrNotFound)
	got, err := svc.Token(ctx, tok.ID)
	require.NoError(t, err)
	require.NotNil(t, got.RevokedAt)
	first := *got.RevokedAt
	require.NoError(t, svc.RevokeToken(ctx, tok.ID), "revoking again changes nothing")
	got, err = svc.Token(ctx, tok.ID)
	require.NoError(t, err)
	require.Equal(t, first, *got.RevokedAt)
	_, err = svc.Token(ctx, 99)
	require.ErrorIs(t, err, auth.ErrNotFound)
	list, err := svc.ListTokens(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.NotNil(t, list[0].RevokedAt)
}

// countingStore counts writes of last-used times.
type countingStore struct {
	auth.Store
	touches atomic.Int32
}

func (c *countingStore) TouchToken(ctx context.Context, id int64, at time.Time) error {
	c.touches.Add(1)
	return c.Store.TouchToken(ctx, id, at)
}

func TestLastUsedIsWrittenAtMostOncePerInterval(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := &clock{}
	c.Set(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	st := &countingStore{Store: newStore(t)}
	svc, err := auth.NewService(st, &auth.Options{Now: c.Now})
	require.NoError(t, err)
	plain, _, err := svc.CreateToken(ctx, auth.NewToken{Name: "ci", Abilities: []string{"*"}})
	require.NoError(t, err)
	for range 5 {
		_, err := svc.Authenticate(ctx, plain)
		require.NoError(t, err)
		c.Advance(10 * time.Second)
	}
	require.EqualValues(t, 1, st.touches.Load())
	c.Advance(20 * time.Second)
	tok, err := svc.Authenticate(ctx, plain)
	require.NoError(t, err)
	require.EqualValues(t, 2, st.touches.Load())
	require.Equal(t, c.Now(), *tok.LastUsedAt)
}

type failingStore struct{ auth.Store }

func (failingStore) TokenByID(context.Context, int64) (auth.Token, []byte, error) {
	return auth.Token{}, nil, errors.New("database down")
}

func TestVerifyTokenReportsStoreFailure(t *testing.T) {
	t.Parallel()
	svc, err := auth.NewService(failingStore{newStore(t)}, nil)
	require.NoError(t, err)
	_, _, err = svc.VerifyToken(context.Background(), "1|gw_"+strings.Repeat("a", 40))
	require.ErrorContains(t, err, "database down")
}

// A reader that yields mostly bytes the generator must reject still gives
// uniform, valid secrets.
func TestSecretsRejectBiasedBytes(t *testing.T) {
	t.Parallel()
	src := bytes.NewReader(bytes.Repeat([]byte{255, 250, 248, 0, 61, 62, 247}, 100))
	svc, err := auth.NewService(newStore(t), &auth.Options{Rand: src})
	require.NoError(t, err)
	plain, _, err := svc.CreateToken(context.Background(), auth.NewToken{Name: "x", Abilities: []string{"*"}})
	require.NoError(t, err)
	require.Regexp(t, plaintextPattern, plain)
	// 0 -> 'A', 61 -> '9', 62 -> 'A', 247 -> 247%62 = 61 -> '9'; 248+ rejected.
	require.Equal(t, "1|gw_"+strings.Repeat("A9A9", 10), plain)

	_, err = auth.NewService(nil, nil)
	require.Error(t, err)
	empty, err := auth.NewService(newStore(t), &auth.Options{Rand: bytes.NewReader(nil)})
	require.NoError(t, err)
	_, _, err = empty.CreateToken(context.Background(), auth.NewToken{Name: "x", Abilities: []string{"*"}})
	require.Error(t, err)
}

// goneUsers is a store whose users are all gone.
type goneUsers struct{ auth.Store }

func (goneUsers) UserByID(context.Context, int64) (auth.User, string, error) {
	return auth.User{}, "", auth.ErrNotFound
}

// A user's token carries at each request only what both it and the user's
// capabilities cover: a capability taken from the user is gone from the
// token at once; the token of a user who is gone does not verify.
func TestUserTokensFollowTheUsersCapabilities(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newStore(t)
	svc, err := auth.NewService(st, &auth.Options{Password: cheap})
	require.NoError(t, err)
	u, err := svc.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse",
		Capabilities: []string{"forms:*", "reporting:view"}})
	require.NoError(t, err)
	plain, _, err := svc.CreateUserToken(ctx, u, auth.NewToken{Name: "ci", Abilities: []string{"forms:*", "reporting:view"}})
	require.NoError(t, err)
	caller, abilities, err := svc.VerifyToken(ctx, plain)
	require.NoError(t, err)
	require.Equal(t, "user:"+strconv.FormatInt(u.ID, 10), caller)
	require.True(t, groundwork.Can(abilities, "reporting:view"))
	require.True(t, groundwork.Can(abilities, "forms:create"))

	_, err = svc.Revoke(ctx, u.ID, "reporting:view")
	require.NoError(t, err)
	_, abilities, err = svc.VerifyToken(ctx, plain)
	require.NoError(t, err)
	require.False(t, groundwork.Can(abilities, "reporting:view"), "taken from the user, so from the token")
	require.True(t, groundwork.Can(abilities, "forms:create"))

	// Narrowed either way: a user's capability narrower than the token's.
	_, err = svc.Revoke(ctx, u.ID, "forms:*")
	require.NoError(t, err)
	_, err = svc.Grant(ctx, u.ID, "forms:view")
	require.NoError(t, err)
	_, abilities, err = svc.VerifyToken(ctx, plain)
	require.NoError(t, err)
	require.Equal(t, []string{"forms:view"}, abilities)

	gone, err := auth.NewService(goneUsers{st}, nil)
	require.NoError(t, err)
	caller, _, err = gone.VerifyToken(ctx, plain)
	require.NoError(t, err)
	require.Empty(t, caller, "the token of a user who is gone does not verify")
}

// A user bound to one webhooks owner makes tokens bound the same way,
// even when the token asked for no binding, and a token made before the
// user was bound is bound at each request as its user is: no user's token
// reaches further than its maker.
func TestBoundUsersMakeBoundTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, err := auth.NewService(newStore(t), &auth.Options{Password: cheap})
	require.NoError(t, err)
	u, err := svc.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse",
		Capabilities: []string{"webhookSubscription.*"}})
	require.NoError(t, err)
	before, _, err := svc.CreateUserToken(ctx, u, auth.NewToken{Name: "old", Abilities: []string{"webhookSubscription.*"}})
	require.NoError(t, err)
	u, err = svc.Grant(ctx, u.ID, "webhookOwner:acct_a")
	require.NoError(t, err)
	plain, made, err := svc.CreateUserToken(ctx, u, auth.NewToken{Name: "ci", Abilities: []string{"webhookSubscription.*"}})
	require.NoError(t, err)
	require.Contains(t, made.Abilities, "webhookOwner:acct_a", "the token is shown bound, as it is")
	for _, p := range []string{plain, before} {
		_, abilities, err := svc.VerifyToken(ctx, p)
		require.NoError(t, err)
		require.ElementsMatch(t, []string{"webhookSubscription.*", "webhookOwner:acct_a"}, abilities)
	}
	_, _, err = svc.CreateUserToken(ctx, u, auth.NewToken{Name: "other", Abilities: []string{"webhookSubscription.*", "webhookOwner:acct_b"}})
	require.Error(t, err, "a binding the user does not hold")
}

// An address cannot pass for another's: one holding a character that
// shows nothing (a zero-width space) or mixing alphabets in one part (a
// Cyrillic а among Latin letters) is refused; one alphabet, or the
// Japanese ones together, is taken, and an address is kept in one
// Unicode form, so "é" typed two ways is one account.
func TestLookAlikeAddressesAreRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, err := auth.NewService(newStore(t), &auth.Options{Password: cheap})
	require.NoError(t, err)
	_, err = svc.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse"})
	require.NoError(t, err)
	for email, says := range map[string]string{
		"ada\u200b@example.com":   "characters that show nothing",
		"ada@exa\u200dmple.com":   "characters that show nothing",
		"\u202eada@example.com":   "characters that show nothing",
		"p\u0430ypal@example.com": "mix letters of different alphabets",
		"ada@ex\u0430mple.com":    "mix letters of different alphabets",
	} {
		_, err := svc.CreateUser(ctx, auth.NewUser{Name: "Not Ada", Email: email, Password: "correct horse"})
		var ve *auth.ValidationError
		require.ErrorAs(t, err, &ve, "%q", email)
		require.Contains(t, strings.Join(ve.Fields()["email"], " "), says, "%q", email)
	}
	for _, email := range []string{"\u7530\u4e2d@\u4f8b\u3048.jp", "jos\u00e9@example.com", "\u0430\u043d\u043d\u0430@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444"} {
		_, err := svc.CreateUser(ctx, auth.NewUser{Name: "Someone", Email: email, Password: "correct horse"})
		require.NoError(t, err, "%q", email)
	}
	_, err = svc.CreateUser(ctx, auth.NewUser{Name: "José again", Email: "jose\u0301@example.com", Password: "correct horse"})
	var ve *auth.ValidationError
	require.ErrorAs(t, err, &ve, "é typed as e and an accent is the same address")
	require.Equal(t, []string{"The email has already been taken."}, ve.Fields()["email"])
}
