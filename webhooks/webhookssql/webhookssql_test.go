package webhookssql_test

import (
	"testing"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
	"github.com/groundwork-go/groundwork/webhooks/webhookstest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		webhookstest.RunStoreTests(t, func(t *testing.T) webhooks.Store {
			return webhookssql.New(storetest.Open(t, d, webhookssql.Migrations))
		})
	})
}
