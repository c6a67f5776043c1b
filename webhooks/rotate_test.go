package webhooks_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"
	svix "github.com/svix/svix-webhooks/go"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

// A rotation through the API: the new secret is shown once; until the
// grace ends each delivery carries two signatures, and a receiver holding
// either secret verifies it — our Verify, and the official Standard
// Webhooks and Svix libraries for a Standard Webhooks subscription; after
// it, the old secret verifies nothing. On both databases.
func TestSecretRotationWithGrace(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		a := b.api(t)
		ctx := context.Background()
		rv := newReceiver(t)
		oldPlain, oldStd := "whsec_the_old_secret_0123", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		plain, err := b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("plain"), URL: str(rv.URL + "/plain"),
			Events: []string{"*"}, Secret: &oldPlain})
		require.NoError(t, err)
		std, err := b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("std"), URL: str(rv.URL + "/std"),
			Events: []string{"*"}, StandardWebhooks: yes(), Secret: &oldStd})
		require.NoError(t, err)

		// Rotate: a made secret with the default grace, and one given with
		// an hour's.
		r := a.do("POST", fmt.Sprintf("%s/%d/rotate-secret", subs, plain.ID), "admin", nil)
		require.Equal(t, 200, r.status, r.body)
		newPlain := r.data(t)["secret"].(string)
		require.NotEqual(t, oldPlain, newPlain)
		require.True(t, strings.HasPrefix(newPlain, "whsec_"))
		until, err := time.Parse(time.RFC3339Nano, r.data(t)["previous_secret_expires_at"].(string))
		require.NoError(t, err)
		require.True(t, b.clock.Now().Add(24*time.Hour).Equal(until), "the default grace: %s", until)
		newStd := "whsec_dGhlIG5ldyBzdGFuZGFyZCBzZWNyZXQgMDEyMzQ1"
		r = a.do("POST", fmt.Sprintf("%s/%d/rotate-secret", subs, std.ID), "admin", map[string]any{"secret": newStd, "grace_seconds": 3600})
		require.Equal(t, 200, r.status, r.body)
		require.Equal(t, newStd, r.data(t)["secret"])
		r = a.do("GET", fmt.Sprintf("%s/%d", subs, std.ID), "admin", nil)
		require.NotContains(t, r.body, "secret\":", "shown once")
		require.Contains(t, r.body, `"previous_secret_expires_at"`)

		deliver := func() (received, received) {
			t.Helper()
			n := len(rv.requests())
			require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
			for _, sub := range []int64{plain.ID, std.ID} {
				ds := b.deliveriesOf(t, sub)
				b.attempt(t, ds[len(ds)-1].ID)
			}
			got := rv.requests()[n:]
			require.Len(t, got, 2)
			if got[0].path != "/plain" {
				got[0], got[1] = got[1], got[0]
			}
			return got[0], got[1]
		}
		verifiesStd := func(g received, secret string) bool {
			t.Helper()
			wh, err := standardwebhooks.NewWebhook(secret)
			require.NoError(t, err)
			sx, err := svix.NewWebhook(secret)
			require.NoError(t, err)
			libs := wh.VerifyIgnoringTimestamp(g.body, g.header) == nil
			require.Equal(t, libs, sx.VerifyIgnoringTimestamp(g.body, g.header) == nil, "the two libraries agree")
			ours := webhooks.VerifyStandard(secret, g.header, g.body, b.clock.Now(), 0) == nil
			require.Equal(t, libs, ours, "and ours")
			return libs
		}

		// In the grace: both secrets verify, a stranger's does not.
		p, s := deliver()
		sig := p.header.Get(webhooks.HeaderSignature)
		require.Equal(t, 2, strings.Count(sig, "v1="), sig)
		for _, secret := range []string{oldPlain, newPlain} {
			require.NoError(t, webhooks.Verify(secret, sig, p.body, b.clock.Now(), 0))
		}
		require.ErrorIs(t, webhooks.Verify("whsec_someone_else_012345", sig, p.body, b.clock.Now(), 0), webhooks.ErrBadSignature)
		require.NoError(t, webhooks.VerifyAny([]string{"whsec_someone_else_012345", newPlain}, sig, p.body, b.clock.Now(), 0))
		require.Len(t, strings.Fields(s.header.Get(webhooks.HeaderStandardSignature)), 2)
		require.True(t, verifiesStd(s, oldStd), "the old secret, in the grace")
		require.True(t, verifiesStd(s, newStd), "the new secret")
		require.False(t, verifiesStd(s, "whsec_c29tZW9uZSBlbHNlJ3Mgc2VjcmV0IDAxMjM0NQ=="))
		require.NoError(t, webhooks.VerifyStandardAny([]string{oldStd, newStd}, s.header, s.body, b.clock.Now(), 0))

		// The standard one's hour is over: its old secret no longer signs;
		// the plain one's day is not.
		b.clock.Advance(time.Hour + time.Second)
		p, s = deliver()
		require.Len(t, strings.Fields(s.header.Get(webhooks.HeaderStandardSignature)), 1)
		require.False(t, verifiesStd(s, oldStd), "after the grace")
		require.True(t, verifiesStd(s, newStd))
		require.Equal(t, 2, strings.Count(p.header.Get(webhooks.HeaderSignature), "v1="))
		b.clock.Advance(23 * time.Hour)
		p, _ = deliver()
		sig = p.header.Get(webhooks.HeaderSignature)
		require.Equal(t, 1, strings.Count(sig, "v1="), sig)
		require.ErrorIs(t, webhooks.Verify(oldPlain, sig, p.body, b.clock.Now(), 0), webhooks.ErrBadSignature)
		require.NoError(t, webhooks.Verify(newPlain, sig, p.body, b.clock.Now(), 0))
		r = a.do("GET", fmt.Sprintf("%s/%d", subs, plain.ID), "admin", nil)
		require.Contains(t, r.body, `"previous_secret_expires_at"`, "kept as a record of the last rotation")

		// No grace: the old secret is dropped at once.
		r = a.do("POST", fmt.Sprintf("%s/%d/rotate-secret", subs, plain.ID), "admin", map[string]any{"grace_seconds": 0})
		require.Equal(t, 200, r.status, r.body)
		require.NotContains(t, r.data(t), "previous_secret_expires_at")
		latest := r.data(t)["secret"].(string)
		p, _ = deliver()
		sig = p.header.Get(webhooks.HeaderSignature)
		require.Equal(t, 1, strings.Count(sig, "v1="))
		require.NoError(t, webhooks.Verify(latest, sig, p.body, b.clock.Now(), 0))
		require.Error(t, webhooks.Verify(newPlain, sig, p.body, b.clock.Now(), 0))

		// Bad rotations change nothing.
		for _, body := range []map[string]any{{"grace_seconds": -1}, {"grace_seconds": 1e12}, {"grace_seconds": 1.5},
			{"grace_seconds": "soon"}, {"secret": "short"}, {"secret": 12}} {
			r = a.do("POST", fmt.Sprintf("%s/%d/rotate-secret", subs, plain.ID), "admin", body)
			require.Equal(t, 422, r.status, "%v: %s", body, r.body)
		}
		r = a.do("POST", fmt.Sprintf("%s/%d/rotate-secret", subs, std.ID), "admin", map[string]any{"secret": "not-base64-at-all-0123"})
		require.Equal(t, 422, r.status, "a Standard Webhooks secret is whsec_ and base64: %s", r.body)
		require.Equal(t, 403, a.do("POST", fmt.Sprintf("%s/%d/rotate-secret", subs, plain.ID), "viewer", nil).status)
		require.Equal(t, 404, a.do("POST", subs+"/99999/rotate-secret", "admin", nil).status)
		p, _ = deliver()
		require.NoError(t, webhooks.Verify(latest, p.header.Get(webhooks.HeaderSignature), p.body, b.clock.Now(), 0), "still the latest")

		// GraphQL rotates too.
		r = a.graphql("admin", `mutation($id: ID!) { rotateWebhookSubscriptionSecret(id: $id, grace_seconds: 60) {
			webhook_subscription { secret previous_secret_expires_at } errors { field message } } }`, map[string]any{"id": fmt.Sprint(plain.ID)})
		require.Equal(t, 200, r.status)
		require.Contains(t, r.body, `"secret":"whsec_`)
		require.Contains(t, r.body, b.clock.Now().Add(time.Minute).Format("2006-01-02T15:04:05.000000Z"), "a minute's grace")
	})
}
