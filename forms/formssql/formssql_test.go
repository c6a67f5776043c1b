package formssql_test

import (
	"testing"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/forms/formstest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		formstest.RunStoreTests(t, func(t *testing.T) forms.Store {
			return formssql.New(storetest.Open(t, d, formssql.Migrations))
		})
	})
}
