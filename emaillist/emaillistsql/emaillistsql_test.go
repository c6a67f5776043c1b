package emaillistsql_test

import (
	"testing"

	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/emaillist/emaillistsql"
	"github.com/groundwork-go/groundwork/emaillist/emaillisttest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		emaillisttest.RunStoreTests(t, func(t *testing.T) emaillist.Store {
			return emaillistsql.New(storetest.Open(t, d, emaillistsql.Migrations))
		})
	})
}
