package reportingsql_test

import (
	"testing"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/reporting/reportingtest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		reportingtest.RunStoreTests(t, func(t *testing.T) reporting.Store {
			return reportingsql.New(storetest.Open(t, d, reportingsql.Migrations))
		})
		reportingtest.RunConnectionStoreTests(t, func(t *testing.T) reporting.ConnectionStore {
			return reportingsql.New(storetest.Open(t, d, reportingsql.Migrations))
		})
	})
}
