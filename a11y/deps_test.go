package a11y_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// goTool is the go command that runs these tests.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go") //nolint:staticcheck // the toolchain running the tests
}

// A host that imports a11y for its colour functions must not link the AI
// adapter's dependencies: those live in a11y/a11yai.
func TestImportingA11yDoesNotLinkLangchaingo(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(goTool(t), "list", "-deps", "github.com/groundwork-go/groundwork/a11y").CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/lucasb-eyer/go-colorful", "the list is of a11y's dependencies")
	for _, d := range deps {
		require.False(t, strings.HasPrefix(d, "github.com/tmc/langchaingo"), "a11y links %s", d)
		require.NotEqual(t, "github.com/groundwork-go/groundwork/a11y/a11yai", d)
	}

	out, err = exec.Command(goTool(t), "list", "-deps", "github.com/groundwork-go/groundwork/a11y/a11yai").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "github.com/tmc/langchaingo/llms\n", "the adapter is where langchaingo lives")
}
