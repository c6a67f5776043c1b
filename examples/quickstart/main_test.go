package main

import (
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The quickstart runs as pasted (in a directory of its own), serves the
// form, and is the program the README shows first.
func TestQuickstart(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	body := string(src)[strings.Index(string(src), "import ("):]
	require.Contains(t, string(readme), "```go\npackage main\n\n"+body+"```", "the README shows this program, as it is")

	if l, err := net.Listen("tcp", "127.0.0.1:8084"); err != nil {
		t.Skip("127.0.0.1:8084 is taken: ", err)
	} else {
		l.Close()
	}
	t.Chdir(t.TempDir())
	t.Setenv("GROUNDWORK_SECRET", "a secret of at least thirty-two bytes, as pasted")
	go main()
	var res *http.Response
	require.Eventually(t, func() bool {
		res, err = http.Get("http://127.0.0.1:8084/forms/contact")
		return err == nil
	}, 20*time.Second, 20*time.Millisecond)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
}
