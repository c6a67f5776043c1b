package formstest_test

import (
	"testing"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formstest"
)

func TestFake(t *testing.T) {
	t.Parallel()
	formstest.RunStoreTests(t, func(*testing.T) forms.Store { return formstest.NewFake() })
}
