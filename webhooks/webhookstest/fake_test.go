package webhookstest_test

import (
	"testing"

	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookstest"
)

func TestFake(t *testing.T) {
	t.Parallel()
	webhookstest.RunStoreTests(t, func(*testing.T) webhooks.Store { return webhookstest.NewFake() })
}
