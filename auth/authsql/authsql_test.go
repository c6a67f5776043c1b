package authsql_test

import (
	"testing"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/authtest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		authtest.RunStoreTests(t, func(t *testing.T) auth.Store {
			return authsql.New(storetest.Open(t, d, authsql.Migrations))
		})
	})
}
