package auth_test

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/mail"
)

// Every hook runs after its change, with what changed: registration,
// sign-in, sign-out, a password reset, a token made and revoked.
func TestHooks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	outbox := mail.NewOutbox(&mail.OutboxOptions{From: "site@example.com"})
	svc, err := auth.NewService(newStore(t), &auth.Options{Password: cheap, Mailer: outbox, Key: []byte("a test key of thirty-two bytes!!")})
	require.NoError(t, err)
	var mu sync.Mutex
	var seen []string
	note := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf(format, args...))
	}
	svc.OnUserRegistered(func(_ context.Context, u auth.User) { note("registered %s", u.Email) })
	svc.OnSignedIn(func(_ context.Context, u auth.User) { note("signed in %s", u.Email) })
	svc.OnSignedOut(func(_ context.Context, id int64) { note("signed out %d", id) })
	svc.OnPasswordReset(func(_ context.Context, u auth.User) { note("password reset %s", u.Email) })
	svc.OnTokenCreated(func(_ context.Context, tok auth.Token) { note("token created %s", tok.Name) })
	svc.OnTokenRevoked(func(_ context.Context, tok auth.Token) { note("token revoked %s %t", tok.Name, tok.RevokedAt != nil) })

	u, err := svc.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse"})
	require.NoError(t, err)
	sid, _, err := svc.StartSession(ctx, u, false)
	require.NoError(t, err)
	require.NoError(t, svc.EndSession(ctx, sid, 0), "a session ended without its user is not a sign-out")
	require.NoError(t, svc.EndSession(ctx, sid, u.ID))
	_, tok, err := svc.CreateToken(ctx, auth.NewToken{Name: "ci", Abilities: []string{"*"}})
	require.NoError(t, err)
	require.NoError(t, svc.RevokeToken(ctx, tok.ID))
	require.NoError(t, svc.SendPasswordReset(ctx, "ada@example.com", "/reset-password"))
	msgs, err := outbox.Wait(ctx, 1)
	require.NoError(t, err)
	token := regexp.MustCompile(`/reset-password/([A-Za-z0-9_-]+)\?`).FindStringSubmatch(msgs[0].Text)[1]
	require.NoError(t, svc.ResetPassword(ctx, token, "ada@example.com", "a new horse battery", "a new horse battery"))
	_, err = svc.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ADA@example.com", Password: "correct horse"})
	require.Error(t, err, "a refused change runs no hook")

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"registered ada@example.com", "signed in ada@example.com", fmt.Sprintf("signed out %d", u.ID),
		"token created ci", "token revoked ci true", "password reset ada@example.com"}, seen)
}
