package hooks_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/hooks"
)

func TestList(t *testing.T) {
	t.Parallel()
	var l hooks.List[int]
	require.Empty(t, l.All())
	l.Add(1)
	first := l.All()
	l.Add(2)
	require.Equal(t, []int{1}, first, "a reader's list does not change under it")
	require.Equal(t, []int{1, 2}, l.All())

	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() { l.Add(i); _ = l.All() })
	}
	wg.Wait()
	require.Len(t, l.All(), 102, "no registration lost")
}
