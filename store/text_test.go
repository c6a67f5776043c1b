package store_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// CleanText's output is stored and read back unchanged on both databases.
func TestTextStores(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d)
		_, err := db.Exec(`CREATE TABLE texts (v TEXT NOT NULL)`)
		require.NoError(t, err)
		in := driverless.CleanText("a\x00b caf\xe9 \xe2\x98")
		_, err = db.Exec(db.Rebind(`INSERT INTO texts (v) VALUES (?)`), in)
		require.NoError(t, err)
		var out string
		require.NoError(t, db.Get(&out, `SELECT v FROM texts`))
		require.Equal(t, in, out)
	})
}
