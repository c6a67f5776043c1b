package groundwork_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// layered are the domains whose HTTP sits beside the core: the core (the
// service, its rules and types) names nothing declared in a file of the
// HTTP layer, so the rules can be read, and called by a host, without
// the handlers and pages; the handlers call the core.
var layered = []string{"a11y", "auth", "bookings", "emaillist", "forms", "reporting", "webhooks"}

// httpFile reports whether a domain file is of its HTTP layer: it serves
// requests (a function takes an http.ResponseWriter), or writes answers
// or pages through internal/reply or internal/web, or is one of
// pageParts. (An *http.Request alone is no sign: the core makes outbound
// ones.)
func httpFile(name string, f *ast.File) bool {
	if slices.Contains(pageParts, name) {
		return true
	}
	for _, imp := range f.Imports {
		switch strings.Trim(imp.Path.Value, `"`) {
		case "github.com/groundwork-go/groundwork/internal/reply", "github.com/groundwork-go/groundwork/internal/web":
			return true
		}
	}
	serves := false
	ast.Inspect(f, func(n ast.Node) bool {
		if ft, ok := n.(*ast.FuncType); ok {
			for _, p := range ft.Params.List {
				if types.ExprString(p.Type) == "http.ResponseWriter" {
					serves = true
				}
			}
		}
		return !serves
	})
	return serves
}

// pageParts are files of the HTTP layer the signs above miss: parts of a
// page built in a file of their own, and the authorizer of a host's
// routes (it decides on an *http.Request).
var pageParts = []string{"reporting/panels.go", "auth/authorizer.go"}

// bothSides are the files that see both layers by design, and that
// both may use: the module, which builds the service and mounts its
// handlers, and the errors (the sentinels and their HTTP statuses).
var bothSides = []string{"module.go", "errors.go"}

func TestHouseHTTPBesideCore(t *testing.T) {
	t.Parallel()
	readsTheSource(t)
	const module = "github.com/groundwork-go/groundwork/"
	exports := map[string]string{}
	for _, p := range goList(t) {
		exports[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	files := goFiles(t, false)
	var lines []string
	for _, dir := range layered {
		fset := token.NewFileSet()
		var parsed []*ast.File
		web := map[string]bool{}
		for _, f := range files[dir] {
			af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			parsed = append(parsed, af)
			web[filepath.Base(f)] = httpFile(dir+"/"+filepath.Base(f), af) && !slices.Contains(bothSides, filepath.Base(f))
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		_, err := (&types.Config{Importer: imp}).Check(module+dir, fset, parsed, info)
		require.NoError(t, err, dir)
		found := map[string][]string{} // "core file -> HTTP file: name" -> where
		note := func(use ast.Node, obj types.Object) {
			if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != module+dir || !obj.Pos().IsValid() {
				return
			}
			from, to := filepath.Base(fset.Position(use.Pos()).Filename), filepath.Base(fset.Position(obj.Pos()).Filename)
			if web[from] || !web[to] || slices.Contains(bothSides, from) {
				return
			}
			key := fmt.Sprintf("%s/%s names %s, declared in %s", dir, from, obj.Name(), to)
			found[key] = append(found[key], fset.Position(use.Pos()).String())
		}
		for id, obj := range info.Uses {
			note(id, obj)
		}
		for sel, s := range info.Selections {
			note(sel.Sel, s.Obj())
		}
		for k, where := range found {
			lines = append(lines, fmt.Sprintf("%s (%d: %s)", k, len(where), where[0]))
		}
	}
	sort.Strings(lines)
	require.Empty(t, lines, "a domain's core reaches into its HTTP layer; move what both need into a core file "+
		"(the handlers call the core, never the other way round)")
}

// readsTheSource leaves a test that type-checks or builds the module out
// of -short runs (the race detector's pass in CI): it reads the source,
// which the full run has read already, and the race detector finds
// nothing in it.
func readsTheSource(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("reads the source: the full run has it")
	}
}
