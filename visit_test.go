package groundwork_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
)

// A request's visit is looked up once, the first time it is asked for,
// and not at all when nothing asks; a context without a finder has none.
func TestVisitOfAsksOnce(t *testing.T) {
	t.Parallel()
	_, ok := groundwork.VisitOf(context.Background())
	require.False(t, ok)

	asked := 0
	ctx := groundwork.WithVisit(context.Background(), func(context.Context) (groundwork.Visit, bool) {
		asked++
		return groundwork.Visit{Source: "newsletter", Landing: "/pricing"}, true
	})
	require.Zero(t, asked)
	for range 3 {
		v, ok := groundwork.VisitOf(ctx)
		require.True(t, ok)
		require.Equal(t, groundwork.Visit{Source: "newsletter", Landing: "/pricing"}, v)
	}
	require.Equal(t, 1, asked)

	unseen := groundwork.WithVisit(context.Background(), func(context.Context) (groundwork.Visit, bool) { return groundwork.Visit{}, false })
	_, ok = groundwork.VisitOf(unseen)
	require.False(t, ok)
}
