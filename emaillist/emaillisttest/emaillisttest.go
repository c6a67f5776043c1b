// Package emaillisttest holds the conformance suite every
// [emaillist.Store] must pass ([RunStoreTests]); emaillistsql passes it on
// SQLite and Postgres.
package emaillisttest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/internal/testkit"
)

// ctx, at and exact are every area's context, the time its feeds are
// made, and that time as a store keeps it (to the microsecond).
var (
	ctx   = context.Background()
	at    = time.Date(2026, 6, 1, 8, 0, 0, 123456789, time.UTC)
	exact = at.Truncate(time.Microsecond)
)

// feed is a feed of form formID named name, with every field set.
func feed(formID int64, name string) emaillist.Feed {
	listFormID := int64(77)
	return emaillist.Feed{FormID: formID, Name: name, ListFormID: &listFormID, ListTagIDs: []int64{3, 1},
		FieldMap: map[string]string{"email_address": "email", "company": "org"},
		ConditionalLogic: &emaillist.ConditionalLogic{Match: "any", Conditions: []emaillist.Condition{
			{Field: "topic", Operator: "equals", Value: "news"}, {Field: "age", Operator: "greater_than", Value: 17.0}}},
		IsActive: true, CreatedAt: at, UpdatedAt: at}
}

// RunStoreTests checks newStore's stores against the emaillist.Store
// contract. Each subtest gets a fresh store.
func RunStoreTests(t *testing.T, newStore func(t *testing.T) emaillist.Store) {
	testkit.RunAreas(t, newStore, []testkit.Area[emaillist.Store]{
		{Name: "CreateReadUpdateDelete", Run: exerciseCreateReadUpdateDelete},
		{Name: "List", Run: exerciseList},
	})
}

// exerciseCreateReadUpdateDelete is the CreateReadUpdateDelete part of RunStoreTests.
func exerciseCreateReadUpdateDelete(t *testing.T, newStore func(t *testing.T) emaillist.Store) {
	t.Parallel()
	s := newStore(t)
	f, err := s.CreateFeed(ctx, feed(1, "Newsletter"))
	require.NoError(t, err)
	require.Positive(t, f.ID)
	require.Equal(t, exact, f.CreatedAt)
	require.Equal(t, []int64{3, 1}, f.ListTagIDs)
	require.Equal(t, 17.0, f.ConditionalLogic.Conditions[1].Value)
	got, err := s.Feed(ctx, f.ID)
	require.NoError(t, err)
	require.Equal(t, f, got)
	_, err = s.Feed(ctx, 999)
	require.ErrorIs(t, err, emaillist.ErrNotFound)

	_, err = s.CreateFeed(ctx, feed(1, "Newsletter"))
	require.ErrorIs(t, err, emaillist.ErrNameTaken, "unique per form")
	other, err := s.CreateFeed(ctx, feed(2, "Newsletter"))
	require.NoError(t, err, "another form may use the name")

	f.Name, f.ListFormID, f.ListTagIDs, f.ConditionalLogic, f.IsActive = "Updates", nil, nil, nil, false
	f.UpdatedAt = at.Add(time.Hour)
	updated, err := s.UpdateFeed(ctx, f)
	require.NoError(t, err)
	require.Nil(t, updated.ListFormID)
	require.Equal(t, []int64{}, updated.ListTagIDs)
	require.Nil(t, updated.ConditionalLogic)
	require.False(t, updated.IsActive)
	require.Equal(t, exact, updated.CreatedAt)
	require.Equal(t, exact.Add(time.Hour), updated.UpdatedAt)
	other.FormID, other.Name = 1, "Updates"
	_, err = s.UpdateFeed(ctx, other)
	require.ErrorIs(t, err, emaillist.ErrNameTaken)
	f.ID = 999
	_, err = s.UpdateFeed(ctx, f)
	require.ErrorIs(t, err, emaillist.ErrNotFound)

	require.NoError(t, s.DeleteFeed(ctx, updated.ID))
	require.ErrorIs(t, s.DeleteFeed(ctx, updated.ID), emaillist.ErrNotFound)
}

// exerciseList is the List part of RunStoreTests.
func exerciseList(t *testing.T, newStore func(t *testing.T) emaillist.Store) {
	t.Parallel()
	s := newStore(t)
	a, err := s.CreateFeed(ctx, feed(1, "A"))
	require.NoError(t, err)
	b, err := s.CreateFeed(ctx, feed(2, "B"))
	require.NoError(t, err)
	off := feed(1, "C")
	off.IsActive = false
	c, err := s.CreateFeed(ctx, off)
	require.NoError(t, err)
	ids := func(q emaillist.FeedQuery) []int64 {
		list, err := s.ListFeeds(ctx, q)
		require.NoError(t, err)
		outside, err := s.ListFeedsTx(ctx, nil, q)
		require.NoError(t, err)
		require.Equal(t, list, outside, "ListFeedsTx without a transaction is ListFeeds")
		out := []int64{}
		for _, f := range list {
			out = append(out, f.ID)
		}
		return out
	}
	require.Equal(t, []int64{a.ID, b.ID, c.ID}, ids(emaillist.FeedQuery{}))
	require.Equal(t, []int64{a.ID, c.ID}, ids(emaillist.FeedQuery{FormID: 1}))
	require.Equal(t, []int64{a.ID}, ids(emaillist.FeedQuery{FormID: 1, ActiveOnly: true}))
	require.Equal(t, []int64{}, ids(emaillist.FeedQuery{FormID: 9}))
}
