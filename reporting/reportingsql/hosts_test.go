package reportingsql_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/tenant"
)

// Two instances on one database: two sites naming the same host at once
// leave it one site's, the other told it is taken; one site's lists
// named at once on both leave one of the two whole, never a mix.
func TestHostsClaimedOnceAcrossInstances(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		one, two := reportingsql.HostsOn(storetest.OpenDSN(t, dsn, reportingsql.Migrations)), reportingsql.HostsOn(storetest.OpenDSN(t, dsn, reportingsql.Migrations))
		acme, globex := tenant.With(context.Background(), "org:1"), tenant.With(context.Background(), "org:2")
		type answer struct {
			taken []string
			err   error
		}
		for round := range 20 {
			host := fmt.Sprintf("h%d.example", round)
			answers := make(chan answer, 2)
			for _, c := range []struct {
				st  reporting.HostStore
				ctx context.Context
			}{{one, acme}, {two, globex}} {
				go func() {
					taken, err := c.st.SetHosts(c.ctx, []string{host})
					answers <- answer{taken, err}
				}()
			}
			refused := 0
			for range 2 {
				a := <-answers
				require.NoError(t, a.err)
				if len(a.taken) > 0 {
					require.Equal(t, []string{host}, a.taken)
					refused++
				}
			}
			require.Equal(t, 1, refused, "round %d: one site holds %s, the other is told", round, host)
			sites, err := two.SitesOfHosts(context.Background())
			require.NoError(t, err)
			require.Contains(t, []string{"org:1", "org:2"}, sites[host])

			lists := [][]string{{fmt.Sprintf("a%d.example", round), fmt.Sprintf("b%d.example", round)}, {fmt.Sprintf("c%d.example", round)}}
			done := make(chan error, 2)
			for i, st := range []reporting.HostStore{one, two} {
				go func() {
					_, err := st.SetHosts(acme, lists[i])
					done <- err
				}()
			}
			require.NoError(t, <-done)
			require.NoError(t, <-done)
			got, err := one.Hosts(acme)
			require.NoError(t, err)
			require.Contains(t, lists, got, "round %d: one list whole", round)
		}
	})
}

// The sites' hosts: each site's are its own, replaced whole; a host
// another site holds is refused with nothing changed; the map of every
// site's hosts is read whatever the context. On both databases.
func TestHosts(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		hs := reportingsql.HostsOn(storetest.Open(t, d, reportingsql.Migrations))
		ctx := context.Background()
		acme, globex := tenant.With(ctx, "org:1"), tenant.With(ctx, "org:2")
		hosts := func(ctx context.Context) []string {
			got, err := hs.Hosts(ctx)
			require.NoError(t, err)
			return got
		}
		require.Empty(t, hosts(acme))
		taken, err := hs.SetHosts(acme, []string{"shop.acme.example", "acme.example"})
		require.NoError(t, err)
		require.Empty(t, taken)
		require.Equal(t, []string{"acme.example", "shop.acme.example"}, hosts(acme), "sorted")
		require.Empty(t, hosts(globex))
		require.Empty(t, hosts(ctx), "the site \"\" has none")

		taken, err = hs.SetHosts(globex, []string{"globex.example", "acme.example", "shop.acme.example"})
		require.NoError(t, err)
		require.Equal(t, []string{"acme.example", "shop.acme.example"}, taken)
		require.Empty(t, hosts(globex), "nothing taken, nothing changed")
		require.Equal(t, []string{"acme.example", "shop.acme.example"}, hosts(acme))

		taken, err = hs.SetHosts(acme, []string{"acme.example", "www.acme.example"})
		require.NoError(t, err)
		require.Empty(t, taken)
		require.Equal(t, []string{"acme.example", "www.acme.example"}, hosts(acme), "replaced whole")
		taken, err = hs.SetHosts(globex, []string{"globex.example", "shop.acme.example"})
		require.NoError(t, err)
		require.Empty(t, taken, "a host acme gave up is free")
		taken, err = hs.SetHosts(ctx, []string{"example.com"})
		require.NoError(t, err)
		require.Empty(t, taken)

		sites, err := hs.SitesOfHosts(globex)
		require.NoError(t, err)
		require.Equal(t, map[string]string{"acme.example": "org:1", "www.acme.example": "org:1", "globex.example": "org:2",
			"shop.acme.example": "org:2", "example.com": ""}, sites)

		taken, err = hs.SetHosts(acme, nil)
		require.NoError(t, err)
		require.Empty(t, taken)
		require.Empty(t, hosts(acme), "none left")
	})
}
