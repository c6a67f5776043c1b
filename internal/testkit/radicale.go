package testkit

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Radicale starts Radicale, a real CalDAV server, on a free loopback
// port with a fresh folder; without it installed the test is skipped,
// unless GROUNDWORK_REQUIRE_RADICALE is set (CI sets it).
func Radicale(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("radicale")
	if err != nil {
		if os.Getenv("GROUNDWORK_REQUIRE_RADICALE") != "" {
			t.Fatal("radicale is not installed: apt-get install -y radicale")
		}
		t.Skip("radicale is not installed (apt-get install -y radicale)")
	}
	addr := freeAddr(t)
	runServer(t, "radicale", exec.Command(bin, "--storage-filesystem-folder", t.TempDir(), "--server-hosts", addr, "--auth-type", "none"))
	base := "http://" + addr
	require.Eventually(t, func() bool {
		res, err := http.Get(base + "/.web/")
		if err != nil {
			return false
		}
		res.Body.Close()
		return true
	}, 15*time.Second, 50*time.Millisecond, "radicale did not start")
	return base
}

// runServer starts cmd until the test ends, and shows what it said when
// the test failed.
func runServer(t *testing.T, name string, cmd *exec.Cmd) {
	t.Helper()
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s said:\n%s", name, logs.String())
		}
	})
}
