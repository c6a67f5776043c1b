package authtest_test

import (
	"testing"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authtest"
)

func TestFake(t *testing.T) {
	t.Parallel()
	authtest.RunStoreTests(t, func(*testing.T) auth.Store { return authtest.NewFake() })
}
