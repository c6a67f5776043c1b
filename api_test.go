package groundwork_test

import (
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// apiFile is the committed listing of the public API: a line per exported
// name, as Go keeps api/go1.N.txt. A change to the public face changes it
// in the same commit, so the diff shows the change and it is deliberate.
const apiFile = "api/groundwork.txt"

// TestAPIListing fails when an exported name or signature differs from
// the listing. To record a deliberate change, rewrite the listing with
//
//	GROUNDWORK_API=update go test -run TestAPIListing .
//
// and say what changed in CHANGELOG.md.
func TestAPIListing(t *testing.T) {
	t.Parallel()
	readsTheSource(t)
	got := strings.Join(apiLines(t), "\n") + "\n"
	if os.Getenv("GROUNDWORK_API") == "update" {
		require.NoError(t, os.WriteFile(apiFile, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(apiFile)
	require.NoError(t, err, "no listing: write it with GROUNDWORK_API=update go test -run TestAPIListing .")
	if got == string(want) {
		return
	}
	added, removed := lineDiff(strings.Split(strings.TrimSuffix(string(want), "\n"), "\n"), strings.Split(strings.TrimSuffix(got, "\n"), "\n"))
	t.Fatalf("the public API differs from %s.\nAdded:\n%s\nRemoved:\n%s\nIf the change is meant, rewrite the listing with "+
		"GROUNDWORK_API=update go test -run TestAPIListing . and add a line to CHANGELOG.md's Unreleased section.",
		apiFile, strings.Join(added, "\n"), strings.Join(removed, "\n"))
}

// lineDiff lists the lines only in b (added) and only in a (removed).
func lineDiff(a, b []string) (added, removed []string) {
	for _, l := range b {
		if !slices.Contains(a, l) {
			added = append(added, "+ "+l)
		}
	}
	for _, l := range a {
		if !slices.Contains(b, l) {
			removed = append(removed, "- "+l)
		}
	}
	return added, removed
}

// apiLines lists every exported name of every public package, sorted:
// functions and methods with their signatures, types with their exported
// fields and interface methods, constants with their values, variables
// with their types.
func apiLines(t *testing.T) []string {
	t.Helper()
	const module = "github.com/groundwork-go/groundwork"
	pkgs := goList(t)
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var lines []string
	for _, p := range pkgs {
		if !strings.HasPrefix(p.ImportPath, module) || p.Name == "main" || isInternal(p.ImportPath) || strings.Contains(p.ImportPath, "/examples/") ||
			strings.Contains(p.ImportPath, "/bench/") {
			continue
		}
		pkg, err := imp.Import(p.ImportPath)
		require.NoError(t, err)
		lines = append(lines, packageAPI(strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/"), pkg)...)
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

// packageAPI is one package's lines, each prefixed "pkg path, ".
func packageAPI(path string, pkg *types.Package) []string {
	if path == "" {
		path = "groundwork"
	}
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Name()
	}
	typ := func(t types.Type) string { return types.TypeString(t, qual) }
	var out []string
	add := func(format string, args ...any) { out = append(out, "pkg "+path+", "+fmt.Sprintf(format, args...)) }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch o := obj.(type) {
		case *types.Func:
			add("func %s%s", name, signature(o.Signature(), typ))
		case *types.Const:
			add("const %s %s = %s", name, typ(o.Type()), o.Val().ExactString())
		case *types.Var:
			add("var %s %s", name, typ(o.Type()))
		case *types.TypeName:
			out = append(out, typeAPI(path, name, o, typ)...)
		}
	}
	return out
}

// typeAPI is a type's lines: the type, its exported fields or interface
// methods, and its exported methods.
func typeAPI(path, name string, o *types.TypeName, typ func(types.Type) string) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, "pkg "+path+", "+fmt.Sprintf(format, args...)) }
	if alias, ok := o.Type().(*types.Alias); ok {
		add("type %s = %s", name, typ(alias.Rhs()))
		return out
	}
	named, ok := o.Type().(*types.Named)
	if !ok {
		return out
	}
	params := ""
	if tp := named.TypeParams(); tp.Len() > 0 {
		var ps []string
		for p := range tp.TypeParams() {
			ps = append(ps, p.Obj().Name()+" "+typ(p.Constraint()))
		}
		params = "[" + strings.Join(ps, ", ") + "]"
	}
	switch u := named.Underlying().(type) {
	case *types.Struct:
		add("type %s%s struct", name, params)
		for f := range u.Fields() {
			switch {
			case f.Embedded() && f.Exported():
				add("type %s struct, embedded %s", name, typ(f.Type()))
			case f.Exported():
				add("type %s struct, %s %s", name, f.Name(), typ(f.Type()))
			}
		}
	case *types.Interface:
		add("type %s%s interface", name, params)
		for m := range u.Methods() {
			if m.Exported() {
				add("type %s interface, %s%s", name, m.Name(), signature(m.Signature(), typ))
			}
		}
	default:
		add("type %s%s %s", name, params, typ(u))
	}
	for m := range named.Methods() {
		if !m.Exported() {
			continue
		}
		recv := name
		if _, ptr := m.Signature().Recv().Type().(*types.Pointer); ptr {
			recv = "*" + name
		}
		add("method (%s) %s%s", recv, m.Name(), signature(m.Signature(), typ))
	}
	return out
}

// signature is a function's parameters and results by type alone, so a
// renamed parameter is not an API change.
func signature(sig *types.Signature, typ func(types.Type) string) string {
	tuple := func(tu *types.Tuple, variadic bool) []string {
		var out []string
		for i := range tu.Len() {
			t := tu.At(i).Type()
			if variadic && i == tu.Len()-1 {
				out = append(out, "..."+typ(t.(*types.Slice).Elem()))
				continue
			}
			out = append(out, typ(t))
		}
		return out
	}
	s := ""
	if tp := sig.TypeParams(); tp.Len() > 0 {
		var ps []string
		for p := range tp.TypeParams() {
			ps = append(ps, p.Obj().Name()+" "+typ(p.Constraint()))
		}
		s = "[" + strings.Join(ps, ", ") + "]"
	}
	s += "(" + strings.Join(tuple(sig.Params(), sig.Variadic()), ", ") + ")"
	switch res := tuple(sig.Results(), false); len(res) {
	case 0:
	case 1:
		s += " " + res[0]
	default:
		s += " (" + strings.Join(res, ", ") + ")"
	}
	return s
}
