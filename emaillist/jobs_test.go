package emaillist_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/emaillist/emaillistsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// waitEvents waits until n events of the outcomes arrived.
func (b *bundle) waitEvents(t *testing.T, n int) []emaillist.Event {
	t.Helper()
	require.Eventually(t, func() bool { return len(b.Events()) >= n }, 20*time.Second, 10*time.Millisecond)
	return b.Events()
}

func subscribeVia(t *testing.T, b *bundle, body string) {
	t.Helper()
	a := call(t, b.public, "POST", "/emailmarketing/subscribers", body)
	require.Equal(t, 202, a.code, a.body)
}

// A new subscriber and then an existing one: the create-or-update call
// first (with the first name and fields), the form, then one call per
// tag, in that order, through the real queue.
func TestKitSubscribeCalls(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect, o.work = d, true })
		subscribeVia(t, b, `{"list_form_id":217,"email":"grace@example.com","first_name":"Grace","fields":{"company":"Navy"},"tags":[3,4]}`)
		events := b.waitEvents(t, 1)
		require.Equal(t, emaillist.EventSubscribed, events[0].Type)
		require.Equal(t, "660", events[0].Subscriber.ID)
		require.Equal(t, "Grace", events[0].Subscriber.FirstName)
		require.Equal(t, []string{
			`POST /v4/subscribers {"email_address":"grace@example.com","fields":{"company":"Navy"},"first_name":"Grace"}`,
			`POST /v4/forms/217/subscribers {"email_address":"grace@example.com"}`, // no page known: the by-email endpoint
			`POST /v4/tags/3/subscribers/660 {}`,
			`POST /v4/tags/4/subscribers/660 {}`,
		}, b.kit.Calls())

		subscribeVia(t, b, `{"list_form_id":217,"email":"grace@example.com","first_name":"Grace Brewster"}`)
		events = b.waitEvents(t, 2)
		require.Equal(t, emaillist.EventSubscribed, events[1].Type)
		require.Equal(t, []string{
			`POST /v4/subscribers {"email_address":"grace@example.com","first_name":"Grace Brewster"}`,
			`POST /v4/forms/217/subscribers {"email_address":"grace@example.com"}`,
		}, b.kit.Calls()[4:], "the existing subscriber updated, no tags asked for")
	})
}

// With the page a submission came from, the subscriber is added to the
// form by ID with that page as the referrer Kit's schema asks for.
func TestKitFormReferrer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ref := int64(217)
	err := b.svc.RunSubscribe(context.Background(), emaillist.SubscribeArgs{Subscription: emaillist.Subscription{Email: "ada@example.com",
		ListFormID: &ref, Referrer: "https://shop.example/join"}}, false)
	require.NoError(t, err)
	require.Equal(t, []string{
		`POST /v4/subscribers {"email_address":"ada@example.com"}`,
		`POST /v4/forms/217/subscribers/660 {"referrer":"https://shop.example/join"}`,
	}, b.kit.Calls())
}

// Kit's 429 has no Retry-After: the client backs off with jitter and
// tries again; with one, it waits as asked; a 500 then a success; all
// within one job attempt.
func TestKitRetries(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) { o.work = true })
	b.kit.on(1, 429, `Retry later`)
	b.kit.on(3, 429, `{"errors":["Slow down"]}`, "Retry-After", "1")
	b.kit.on(5, 500, `{"errors":["Oops"]}`)
	subscribeVia(t, b, `{"list_form_id":1,"email":"a@example.com","tags":[7]}`)
	start := time.Now()
	events := b.waitEvents(t, 1)
	require.Equal(t, emaillist.EventSubscribed, events[0].Type, "%+v", events[0].Err)
	require.GreaterOrEqual(t, time.Since(start), time.Second, "the Retry-After was honoured")
	calls := b.kit.Calls()
	require.Len(t, calls, 6)
	require.True(t, strings.HasPrefix(calls[0], "POST /v4/subscribers"))
	require.True(t, strings.HasPrefix(calls[1], "POST /v4/subscribers"), "429 without Retry-After: again")
	require.True(t, strings.HasPrefix(calls[2], "POST /v4/forms/1/subscribers "))
	require.True(t, strings.HasPrefix(calls[3], "POST /v4/forms/1/subscribers "), "429 with Retry-After: again")
	require.Equal(t, "POST /v4/tags/7/subscribers/660 {}", calls[4])
	require.Equal(t, "POST /v4/tags/7/subscribers/660 {}", calls[5], "500: again")
}

// When the client's tries run out, the job is retried later: at the
// provider's Retry-After when given.
func TestKitJobRetry(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) { o.work, o.kit.MaxAttempts = true, 1 })
	b.kit.on(1, 429, `{"errors":["Slow down"]}`, "Retry-After", "1")
	subscribeVia(t, b, `{"list_form_id":1,"email":"a@example.com"}`)
	events := b.waitEvents(t, 1)
	require.Equal(t, emaillist.EventSubscribed, events[0].Type, "the second job attempt")
	var job struct {
		Attempt int    `db:"attempt"`
		State   string `db:"state"`
	}
	require.Eventually(t, func() bool {
		return b.db.Get(&job, "SELECT attempt, state FROM river_job WHERE kind = 'emaillist_subscribe'") == nil && job.State == "completed"
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, 2, job.Attempt)
	require.Len(t, b.Events(), 1, "no failure event for a retried attempt")
}

// A refusal (401) fails the job at once, with one event and one call.
func TestKitRefusal(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) { o.work, o.kitKey = true, "wrong-key" })
	var after []error
	b.svc.OnSubscribed(func(_ context.Context, _ emaillist.Subscription, _ *emaillist.Subscriber, err error) {
		after = append(after, err)
	})
	subscribeVia(t, b, `{"list_form_id":1,"email":"a@example.com"}`)
	events := b.waitEvents(t, 1)
	require.Equal(t, emaillist.EventSubscriptionFailed, events[0].Type)
	require.ErrorContains(t, events[0].Err, "401")
	require.NotContains(t, events[0].Err.Error(), "wrong-key", "the key is cut out of errors")
	var state string
	require.Eventually(t, func() bool {
		return b.db.Get(&state, "SELECT state FROM river_job WHERE kind = 'emaillist_subscribe'") == nil && state == "cancelled"
	}, 10*time.Second, 20*time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	require.Len(t, b.Events(), 1, "once")
	require.Len(t, b.kit.Calls(), 1, "no retry")
	require.Len(t, after, 1)
}

// 60 tags: 50 applied.
func TestKitTagCap(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tags := make([]int64, 60)
	for i := range tags {
		tags[i] = int64(i + 1)
	}
	err := b.svc.RunSubscribe(context.Background(), emaillist.SubscribeArgs{Subscription: emaillist.Subscription{Email: "a@example.com",
		TagIDs: tags}}, false)
	require.NoError(t, err)
	calls := b.kit.Calls()
	require.Len(t, calls, 51)
	require.Equal(t, "POST /v4/tags/50/subscribers/660 {}", calls[50])
}

// The hooks around the call: before may change the subscription or
// refuse it.
func TestSubscribeHooks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.svc.OnSubscribing(func(_ context.Context, sub *emaillist.Subscription) error {
		if strings.HasSuffix(sub.Email, "@blocked.example") {
			return errContext("blocked domain")
		}
		sub.Email = strings.ToLower(sub.Email)
		return nil
	})
	require.NoError(t, b.svc.RunSubscribe(context.Background(), emaillist.SubscribeArgs{Subscription: emaillist.Subscription{Email: "Ada@Example.com"}}, false))
	require.Contains(t, b.kit.Calls()[0], `"email_address":"ada@example.com"`)
	err := b.svc.RunSubscribe(context.Background(), emaillist.SubscribeArgs{Subscription: emaillist.Subscription{Email: "x@blocked.example"}}, false)
	require.ErrorContains(t, err, "blocked domain")
	require.NotErrorIs(t, err, emaillist.ErrRetryable)
	require.Len(t, b.kit.Calls(), 1, "never sent")
	events := b.Events()
	require.Equal(t, emaillist.EventSubscriptionFailed, events[len(events)-1].Type)
}

type errContext string

func (e errContext) Error() string { return string(e) }

func TestKitOptions(t *testing.T) {
	t.Parallel()
	_, err := emaillist.NewKit("", nil)
	require.Error(t, err, "a key is required")
	_, err = emaillist.NewKit("k", &emaillist.KitOptions{BaseURL: "http://kit.example/v4"})
	require.ErrorContains(t, err, "not https")
	k := newKit(t)
	kit, err := emaillist.NewKit("kit-key", &emaillist.KitOptions{BaseURL: k.URL + "/v4", AllowInsecure: true})
	require.NoError(t, err)
	require.NoError(t, kit.Ping(context.Background()))
	require.Equal(t, []string{"GET /v4/account "}, k.Calls())
}

// A submission on a form with feeds: the ones whose logic or map fails
// are skipped with a reason, the others queued in the submission's
// transaction, and gone with it when it rolls back.
func TestQueueSubmission(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		ctx := context.Background()
		for _, f := range []emaillist.Feed{
			{FormID: 1, Name: "All", FieldMap: map[string]string{"email_address": "email", "first_name": "name"}, ListTagIDs: []int64{3, 3, 4},
				IsActive: true},
			{FormID: 1, Name: "VIP", FieldMap: map[string]string{"email_address": "email"}, IsActive: true,
				ConditionalLogic: &emaillist.ConditionalLogic{Match: "all", Conditions: []emaillist.Condition{{Field: "name", Operator: "equals", Value: "Ada"}}}},
			{FormID: 1, Name: "Broken", FieldMap: map[string]string{"email_address": "work_email"}, IsActive: true},
			{FormID: 1, Name: "Off", FieldMap: map[string]string{"email_address": "email"}},
			{FormID: 2, Name: "Other form", FieldMap: map[string]string{"email_address": "email"}, IsActive: true},
		} {
			_, err := b.svc.CreateFeed(ctx, f)
			require.NoError(t, err)
		}
		values := map[string]any{"name": "Grace", "email": "grace@example.com"}
		tx, err := b.db.BeginTx(ctx, nil)
		require.NoError(t, err)
		require.NoError(t, b.svc.QueueSubmission(ctx, tx, emaillist.Submission{FormID: 1, ID: 42, Values: values}))
		require.NoError(t, tx.Rollback())
		require.Empty(t, b.jobs(t), "rolled back with the submission")

		tx, err = b.db.BeginTx(ctx, nil)
		require.NoError(t, err)
		require.NoError(t, b.svc.QueueSubmission(ctx, tx, emaillist.Submission{FormID: 1, ID: 43, PageURL: "https://shop.example/join", Values: values}))
		require.NoError(t, tx.Commit())
		jobs := b.jobs(t)
		require.Len(t, jobs, 1)
		first := "Grace"
		require.Equal(t, emaillist.SubscribeArgs{FeedID: 1, SubmissionID: 43, Subscription: emaillist.Subscription{Email: "grace@example.com",
			FirstName: &first, TagIDs: []int64{3, 4}, Referrer: "https://shop.example/join"}}, jobs[0], "the page the form was sent from goes along")
		var skipped []string
		for _, e := range b.Events() {
			if e.SubmissionID == 43 {
				require.Equal(t, emaillist.EventFeedSkipped, e.Type)
				skipped = append(skipped, e.Reason)
			}
		}
		require.Len(t, skipped, 2)
		require.Equal(t, "conditional_logic", skipped[0])
		require.True(t, strings.HasPrefix(skipped[1], "field_map:"), skipped[1])
	})
}

// SubscribeTx queues the job in the caller's transaction: nothing when it
// rolls back, the job when it commits; it refuses no transaction at all.
func TestSubscribeTx(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		ctx := context.Background()
		req := emaillist.SubscribeRequest{Email: "ada@example.com", ListFormID: ptr(int64(217))}
		tx, err := b.db.BeginTx(ctx, nil)
		require.NoError(t, err)
		require.NoError(t, b.svc.SubscribeTx(ctx, tx, req))
		require.NoError(t, tx.Rollback())
		require.Empty(t, b.jobs(t), "rolled back with the caller's work")

		tx, err = b.db.BeginTx(ctx, nil)
		require.NoError(t, err)
		require.NoError(t, b.svc.SubscribeTx(ctx, tx, req))
		require.NoError(t, tx.Commit())
		jobs := b.jobs(t)
		require.Len(t, jobs, 1)
		require.Equal(t, "ada@example.com", jobs[0].Subscription.Email)
		require.Equal(t, ptr(int64(217)), jobs[0].Subscription.ListFormID)

		require.Error(t, b.svc.SubscribeTx(ctx, nil, req))
	})
}

// With the host's FormExists, a feed for a form the host does not have is
// refused on form_id; without it, any form ID is taken.
func TestFeedFormMustExist(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, emaillistsql.Migrations)
	q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true})
	require.NoError(t, err)
	svc, err := emaillist.NewService(emaillistsql.New(db), q, &emaillist.Options{
		FormExists: func(_ context.Context, id int64) (bool, error) { return id == 1, nil }})
	require.NoError(t, err)
	ctx := context.Background()
	feed := emaillist.Feed{FormID: 2, Name: "News", FieldMap: map[string]string{"email_address": "email"}}
	_, err = svc.CreateFeed(ctx, feed)
	var ve *emaillist.ValidationError
	require.ErrorAs(t, err, &ve)
	require.Equal(t, []string{emaillist.MsgFormInvalid}, ve.Fields()["form_id"])
	feed.FormID = 1
	created, err := svc.CreateFeed(ctx, feed)
	require.NoError(t, err)
	created.FormID = 3
	_, err = svc.UpdateFeed(ctx, created)
	require.ErrorAs(t, err, &ve, "an update is held to it too")
}
