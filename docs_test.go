package groundwork_test

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// snippetGivens are the names a Go block of the docs may use without
// declaring them: what a host has at hand where the block would go.
const snippetGivens = `ctx context.Context, env *store.Env, db *store.DB, queue *store.Queue, mux *http.ServeMux, mailer mail.Mailer,
	secret, body []byte, tokens *auth.Service, tx *sql.Tx, w http.ResponseWriter, r *http.Request, page http.Handler`

// snippetImports are the packages a block may name, by the name it uses:
// the standard library's a host reaches for, and every public package of
// the module.
var snippetImports = func() map[string]string {
	m := map[string]string{"context": "context", "sql": "database/sql", "errors": "errors", "fmt": "fmt", "io": "io", "log": "log",
		"slog": "log/slog", "http": "net/http", "url": "net/url", "os": "os", "strings": "strings", "time": "time",
		"groundwork": "github.com/groundwork-go/groundwork"}
	for _, p := range []string{"a11y", "a11y/a11yai", "auth", "auth/authsql", "auth/openid", "auth/openid/openidsql", "auth/useradmin", "bookings", "bookings/slots", "bookings/bookingssql", "bookings/bookingsical", "bookings/bookingsstripe", "bookings/calendars", "bookings/calendars/calendarssql",
		"bookings/waitlist", "bookings/waitlist/waitlistsql",
		"bookings/bookingsgoogle", "emaillist", "emaillist/emaillistsql", "forms", "forms/formssql", "forms/formsstripe", "link", "mail", "metrics", "reporting",
		"reporting/reportingsql", "reporting/reportinggoogle", "store", "webhooks", "webhooks/webhookssql"} {
		m[path.Base(p)] = "github.com/groundwork-go/groundwork/" + p
	}
	return m
}()

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// TestDocsGoBlocksCompile builds every Go block of README.md and docs/*.md:
// a whole program as it is, any other block as the body of a function
// given snippetGivens. A block naming a helper it never defines, or an
// option that no longer exists, fails here, naming its file and place.
func TestDocsGoBlocksCompile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the docs' Go blocks")
	}
	files, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	files = append([]string{"README.md"}, files...)
	// Under testdata, so that no ./... of the module (another test's go
	// list, say) sees the blocks while they are built.
	_, statErr := os.Stat("testdata")
	require.NoError(t, os.MkdirAll("testdata", 0o755))
	root, err := os.MkdirTemp("testdata", "docsnippets")
	require.NoError(t, err)
	t.Cleanup(func() {
		os.RemoveAll(root)
		if os.IsNotExist(statErr) {
			os.Remove("testdata")
		}
	})
	blocks := 0
	for _, file := range files {
		text, err := os.ReadFile(file)
		require.NoError(t, err)
		for n, m := range goBlock.FindAllSubmatch(text, -1) {
			blocks++
			code := string(m[1])
			where := fmt.Sprintf("%s, Go block %d", file, n+1)
			dir := filepath.Join(root, fmt.Sprintf("b%03d", blocks))
			require.NoError(t, os.Mkdir(dir, 0o755))
			src := "// " + where + "\n" + code
			if !strings.HasPrefix(code, "package ") {
				src = snippetFile(where, code)
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644))
		}
	}
	require.Positive(t, blocks)
	out, err := exec.Command(goCommand(), "vet", "./"+filepath.ToSlash(root)+"/...").CombinedOutput()
	require.NoError(t, err, "the docs' Go blocks do not build (each file names its block):\n%s", out)
}

// snippetFile is a program whose one function is code, given
// snippetGivens, importing the packages code names.
func snippetFile(where, code string) string {
	var imports []string
	for name, path := range snippetImports {
		if regexp.MustCompile(`\b` + name + `\.`).MatchString(code) {
			imports = append(imports, fmt.Sprintf("%q", path))
		}
	}
	for _, given := range []string{"context", "store", "http", "mail", "auth", "sql"} {
		if !regexp.MustCompile(`\b` + given + `\.`).MatchString(code) {
			imports = append(imports, fmt.Sprintf("%q", snippetImports[given]))
		}
	}
	sort.Strings(imports)
	return fmt.Sprintf("// %s\npackage main\n\nimport (\n\t%s\n)\n\nfunc main() {}\n\nfunc snippet(%s) {\n%s}\n", where,
		strings.Join(imports, "\n\t"), snippetGivens, code)
}
