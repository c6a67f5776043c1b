package orgs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/orgs"
	"github.com/groundwork-go/groundwork/auth/orgs/orgssql"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Invitations: an owner or an admin invites an address with a role
// (only an owner invites an owner); the link joins once, until it
// expires, unless revoked; the invitation's mail is queued and sent by
// its job with the link. On both databases.
func TestInvitations(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, authsql.Migrations)
		a, err := auth.NewService(authsql.New(db), nil)
		require.NoError(t, err)
		queue, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true, FetchPollInterval: 20 * time.Millisecond, FetchCooldown: 5 * time.Millisecond})
		require.NoError(t, err)
		outbox := mail.NewOutbox(nil)
		now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		svc, err := orgs.New(orgssql.New(db), &orgs.Options{Now: clock, Enqueuer: queue, Mailer: outbox, MailFrom: "team@example.com",
			Key: []byte("0123456789abcdef0123456789abcdef"), AppName: "Northwind", PagePrefix: "/teams"})
		require.NoError(t, err)
		require.NoError(t, orgs.RegisterWorkers(queue.Workers(), svc))
		s := &site{auth: a, orgs: svc}
		ctx := context.Background()
		ann, bo, cy := s.user(t, "ann"), s.user(t, "bo"), s.user(t, "cy")
		acme, err := svc.Create(ctx, "Acme", ann)
		require.NoError(t, err)

		_, _, err = svc.Invite(ctx, acme.ID, ann, "not an address", "janitor")
		var ve *auth.ValidationError
		require.ErrorAs(t, err, &ve)
		require.ElementsMatch(t, []string{"email", "role"}, ve.FieldNames())
		_, _, err = svc.Invite(ctx, acme.ID, bo, "x@example.com", orgs.RoleMember)
		require.ErrorIs(t, err, orgs.ErrNotFound, "not a member")
		inv, token, err := svc.Invite(ctx, acme.ID, ann, " bo@example.com ", orgs.RoleAdmin)
		require.NoError(t, err)
		require.Equal(t, "bo@example.com", inv.Email)
		require.Equal(t, now.Add(7*24*time.Hour), inv.ExpiresAt)
		require.Len(t, token, 64)

		// The mail: queued (the link sealed in the job), then sent by its
		// job.
		var args string
		require.NoError(t, db.Get(&args, `SELECT CAST(args AS TEXT) FROM river_job WHERE kind = 'orgs_invitation_mail'`))
		require.NotContains(t, args, token)
		require.NoError(t, queue.Start(ctx))
		t.Cleanup(func() { require.NoError(t, queue.Stop(context.Background())) })
		require.Eventually(t, func() bool { return len(outbox.Messages()) == 1 }, 10*time.Second, 20*time.Millisecond)
		sent := outbox.Messages()
		require.Len(t, sent, 1)
		require.Equal(t, "Join Acme on Northwind", sent[0].Subject)
		require.Contains(t, sent[0].Text, "/teams/join?invitation="+token, "under the page's prefix")
		require.Contains(t, sent[0].Text, "as admin")

		got, err := svc.Invitation(ctx, token)
		require.NoError(t, err)
		require.Equal(t, "Acme", got.OrganizationName)
		list, err := svc.Invitations(ctx, acme.ID)
		require.NoError(t, err)
		require.Len(t, list, 1)

		_, err = svc.Accept(ctx, token, cy)
		require.ErrorIs(t, err, orgs.ErrNotFound, "the link joins its address's user alone")
		m, err := svc.Accept(ctx, token, bo)
		require.NoError(t, err)
		require.Equal(t, orgs.RoleAdmin, m.Role)
		require.Equal(t, "Acme", m.Name)
		_, err = svc.Accept(ctx, token, cy)
		require.ErrorIs(t, err, orgs.ErrNotFound, "once")
		_, err = svc.Invitation(ctx, token)
		require.ErrorIs(t, err, orgs.ErrNotFound)

		// An admin invites, but not an owner; revoked and expired links do
		// nothing.
		_, _, err = svc.Invite(ctx, acme.ID, bo, "cy@example.com", orgs.RoleOwner)
		require.ErrorIs(t, err, orgs.ErrForbidden)
		revoked, token2, err := svc.Invite(ctx, acme.ID, bo, "cy@example.com", orgs.RoleMember)
		require.NoError(t, err)
		require.NoError(t, svc.RevokeInvitation(ctx, acme.ID, bo, revoked.ID))
		require.ErrorIs(t, svc.RevokeInvitation(ctx, acme.ID, bo, revoked.ID), orgs.ErrNotFound)
		_, err = svc.Accept(ctx, token2, cy)
		require.ErrorIs(t, err, orgs.ErrNotFound)
		_, token3, err := svc.Invite(ctx, acme.ID, ann, "cy@example.com", orgs.RoleMember)
		require.NoError(t, err)
		now = now.Add(8 * 24 * time.Hour)
		_, err = svc.Accept(ctx, token3, cy)
		require.ErrorIs(t, err, orgs.ErrNotFound, "expired")
		list, err = svc.Invitations(ctx, acme.ID)
		require.NoError(t, err)
		require.Empty(t, list)

		// An address as typed is the user's whatever its letter case.
		dee := s.user(t, "dee")
		inv, token4, err := svc.Invite(ctx, acme.ID, ann, "Dee@Example.COM", orgs.RoleMember)
		require.NoError(t, err)
		require.Equal(t, "dee@example.com", inv.Email)
		_, err = svc.Accept(ctx, token4, dee)
		require.NoError(t, err)
	})
}

// Members: an admin changes members but no owner; an owner changes
// anyone; anyone may leave; the last owner can neither leave nor be made
// less. On both databases.
func TestMemberChanges(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		s := newSite(t, d)
		ctx := context.Background()
		ann, bo, cy := s.user(t, "ann"), s.user(t, "bo"), s.user(t, "cy")
		acme, err := s.orgs.Create(ctx, "Acme", ann)
		require.NoError(t, err)
		require.NoError(t, s.orgs.AddMember(ctx, acme.ID, bo, orgs.RoleAdmin))
		require.NoError(t, s.orgs.AddMember(ctx, acme.ID, cy, orgs.RoleMember))
		var left []string
		s.orgs.OnMemberLeft(func(_ context.Context, m orgs.Membership) {
			left = append(left, fmt.Sprint(m.UserID, " ", m.Role, " ", m.Name))
		})

		require.ErrorIs(t, s.orgs.ChangeMember(ctx, acme.ID, ann, ann, ""), orgs.ErrLastOwner, "the last owner cannot leave")
		require.ErrorIs(t, s.orgs.ChangeMember(ctx, acme.ID, ann, ann, orgs.RoleMember), orgs.ErrLastOwner)
		require.ErrorIs(t, s.orgs.ChangeMember(ctx, acme.ID, bo, ann, orgs.RoleMember), orgs.ErrForbidden, "an admin changes no owner")
		require.ErrorIs(t, s.orgs.ChangeMember(ctx, acme.ID, bo, cy, orgs.RoleOwner), orgs.ErrForbidden, "nor makes one")
		require.ErrorIs(t, s.orgs.ChangeMember(ctx, acme.ID, cy, bo, ""), orgs.ErrForbidden, "a member changes no one")
		require.NoError(t, s.orgs.ChangeMember(ctx, acme.ID, bo, cy, orgs.RoleAdmin))
		require.NoError(t, s.orgs.ChangeMember(ctx, acme.ID, ann, bo, orgs.RoleOwner))
		require.NoError(t, s.orgs.ChangeMember(ctx, acme.ID, ann, ann, ""), "another owner is left")
		require.NoError(t, s.orgs.ChangeMember(ctx, acme.ID, cy, cy, ""), "anyone may leave")
		members, err := s.orgs.Members(ctx, acme.ID)
		require.NoError(t, err)
		require.Len(t, members, 1)
		require.Equal(t, orgs.RoleOwner, members[0].Role)
		require.Equal(t, []string{fmt.Sprint(ann, " owner Acme"), fmt.Sprint(cy, " admin Acme")}, left, "told of each who left, not of role changes")
		require.ErrorIs(t, s.orgs.ChangeMember(ctx, acme.ID, bo, ann, orgs.RoleMember), orgs.ErrNotFound, "gone")
	})
}

// Two instances on one database: an invitation accepted twice at once,
// its invitee sending it from two tabs, joins them once; two owners who
// each step down at once leave one owner. On both databases (SQLite: two
// handles on one file).
func TestInvitationAcceptedTwiceAtOnce(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		var instances [2]*orgs.Service
		var a *auth.Service
		for i := range instances {
			db := storetest.OpenDSN(t, dsn, authsql.Migrations)
			svc, err := orgs.New(orgssql.New(db), nil)
			require.NoError(t, err)
			instances[i] = svc
			if a == nil {
				a, err = auth.NewService(authsql.New(db), nil)
				require.NoError(t, err)
			}
		}
		s := &site{auth: a, orgs: instances[0]}
		ctx := context.Background()
		ann := s.user(t, "ann")
		acme, err := instances[0].Create(ctx, "Acme", ann)
		require.NoError(t, err)
		for round := range 5 {
			name := "p" + strings.Repeat("a", round)
			_, token, err := instances[0].Invite(ctx, acme.ID, ann, name+"@example.com", orgs.RoleMember)
			require.NoError(t, err)
			invitee := s.user(t, name)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i := range 2 {
				wg.Go(func() { _, errs[i] = instances[i].Accept(ctx, token, invitee) })
			}
			wg.Wait()
			joined := 0
			for _, err := range errs {
				if err == nil {
					joined++
				} else {
					require.ErrorIs(t, err, orgs.ErrNotFound)
				}
			}
			require.Equal(t, 1, joined, "round %d: %v", round, errs)
		}
		members, err := instances[1].Members(ctx, acme.ID)
		require.NoError(t, err)
		require.Len(t, members, 6)

		bo := s.user(t, "bo")
		require.NoError(t, instances[0].AddMember(ctx, acme.ID, bo, orgs.RoleOwner))
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, who := range []int64{ann, bo} {
			wg.Go(func() { errs[i] = instances[i].ChangeMember(ctx, acme.ID, who, who, "") })
		}
		wg.Wait()
		require.True(t, errs[0] == nil != (errs[1] == nil), "one steps down: %v", errs)
		require.True(t, errors.Is(errs[0], orgs.ErrLastOwner) || errors.Is(errs[1], orgs.ErrLastOwner), "%v", errs)
	})
}
