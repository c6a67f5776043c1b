package emaillist_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/emaillist/emaillistsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Dry-run a feed: what it would send for some submitted values.
func ExampleService_DryRun() {
	ctx := context.Background()
	db, done := storetest.Temp(emaillistsql.Migrations) // your *store.DB, migrated
	defer done()
	queue, _ := store.NewQueue(db, nil)
	svc, _ := emaillist.NewService(emaillistsql.New(db), queue, nil)
	feed, err := svc.CreateFeed(ctx, emaillist.Feed{FormID: 1, Name: "Newsletter", IsActive: true,
		FieldMap: map[string]string{"email_address": "email", "first_name": "name", "company": "org"},
		ConditionalLogic: &emaillist.ConditionalLogic{Match: "all", Conditions: []emaillist.Condition{
			{Field: "consent", Operator: "equals", Value: "yes"}}}})
	if err != nil {
		panic(err)
	}
	for _, values := range []map[string]any{
		{"consent": "yes", "email": "grace@example.com", "name": "Grace", "org": "Navy"},
		{"consent": "no", "email": "ada@example.com"},
	} {
		out, _ := json.Marshal(svc.DryRun(ctx, feed, values))
		fmt.Println(string(out))
	}
	// Output:
	// {"would_send":true,"reason":null,"payload":{"email_address":"grace@example.com","first_name":"Grace","fields":{"company":"Navy"}}}
	// {"would_send":false,"reason":"conditional_logic","payload":null}
}

// printProvider is a Provider of one's own: here it prints what it would
// send.
type printProvider struct{}

func (printProvider) Subscribe(_ context.Context, sub emaillist.Subscription) (emaillist.Subscriber, error) {
	fmt.Println("subscribe", sub.Email, "tags", sub.TagIDs)
	return emaillist.Subscriber{ID: "1", Email: sub.Email}, nil
}

// A custom Provider carries out the queued subscribes; here the job's
// work is run directly, as the queue would.
func ExampleProvider() {
	ctx := context.Background()
	db, done := storetest.Temp(emaillistsql.Migrations)
	defer done()
	queue, _ := store.NewQueue(db, nil)
	svc, _ := emaillist.NewService(emaillistsql.New(db), queue, &emaillist.Options{Provider: printProvider{}})
	svc.OnEvent(func(_ context.Context, e emaillist.Event) { fmt.Println(e.Type, e.Subscriber.ID) })
	err := svc.RunSubscribe(ctx, emaillist.SubscribeArgs{Subscription: emaillist.Subscription{Email: "grace@example.com", TagIDs: []int64{3, 4}}}, false)
	fmt.Println(err)
	// Output:
	// subscribe grace@example.com tags [3 4]
	// list.subscribed 1
	// <nil>
}
