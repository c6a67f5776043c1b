package groundwork_test

import (
	"encoding/json"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/webhooks"
)

// listed is what `go list -export -json` says of one package.
type listed struct {
	ImportPath string
	Name       string
	Export     string
}

// goCommand is the go command: the one on PATH, else the toolchain's
// running the tests.
func goCommand() string {
	if goCmd, err := exec.LookPath("go"); err == nil {
		return goCmd
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go") //nolint:staticcheck // the toolchain running the tests
}

// goList lists the module's packages and their dependencies with the
// compiler's export data, so their types can be read without parsing.
func goList(t *testing.T) []listed {
	t.Helper()
	goCmd := goCommand()
	cmd := exec.Command(goCmd, "list", "-export", "-deps", "-json=ImportPath,Name,Export", "./...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err)
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestExportedAPINamesNoInternalType walks every exported name of every
// public package (functions, methods, struct fields, interface methods,
// variables, constants, aliases) and fails on any that names a type from
// an internal package: such a type's methods and fields vanish from the
// docs, and a caller cannot name it.
func TestExportedAPINamesNoInternalType(t *testing.T) {
	t.Parallel()
	readsTheSource(t)
	const module = "github.com/groundwork-go/groundwork"
	pkgs := goList(t)
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var problems []string
	checked := 0
	for _, p := range pkgs {
		if !strings.HasPrefix(p.ImportPath, module) || p.Name == "main" || isInternal(p.ImportPath) {
			continue
		}
		pkg, err := imp.Import(p.ImportPath)
		require.NoError(t, err)
		checked++
		problems = append(problems, surfaceProblems(pkg)...)
	}
	require.Greater(t, checked, 10, "the walk reached the public packages")
	slices.Sort(problems)
	require.Empty(t, problems, "exported names that name internal types:\n%s", strings.Join(problems, "\n"))
}

func isInternal(path string) bool {
	return strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal")
}

// surfaceProblems lists each exported name of pkg that reaches an
// internal type, with the type it reaches.
func surfaceProblems(pkg *types.Package) []string {
	var out []string
	report := func(where string, typ types.Type) {
		if bad := internalIn(typ, map[types.Type]bool{}); bad != "" {
			out = append(out, fmt.Sprintf("%s.%s: %s", pkg.Name(), where, bad))
		}
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch o := obj.(type) {
		case *types.TypeName:
			if alias, ok := o.Type().(*types.Alias); ok {
				report(name, alias.Rhs())
				continue
			}
			named, ok := o.Type().(*types.Named)
			if !ok {
				continue
			}
			report(name, named.Underlying())
			for m := range types.NewMethodSet(types.NewPointer(named)).Methods() {
				if m.Obj().Exported() {
					recv := name
					if _, ptr := m.Obj().(*types.Func).Signature().Recv().Type().(*types.Pointer); ptr {
						recv = "*" + name
					}
					report(fmt.Sprintf("(%s).%s", recv, m.Obj().Name()), m.Type())
				}
			}
		default:
			report(name, obj.Type())
		}
	}
	return out
}

// internalIn names the first internal type that typ shows a reader, ""
// when none. A named type from a public package is not entered: its own
// declaration is checked where it is exported.
func internalIn(typ types.Type, seen map[types.Type]bool) string {
	if seen[typ] {
		return ""
	}
	seen[typ] = true
	switch t := typ.(type) {
	case *types.Alias:
		if obj := t.Obj(); obj.Pkg() != nil && isInternal(obj.Pkg().Path()) {
			return obj.Pkg().Name() + "." + obj.Name()
		}
		return internalIn(t.Rhs(), seen)
	case *types.Named:
		if obj := t.Obj(); obj.Pkg() != nil && isInternal(obj.Pkg().Path()) {
			return obj.Pkg().Name() + "." + obj.Name()
		}
		for arg := range t.TypeArgs().Types() {
			if bad := internalIn(arg, seen); bad != "" {
				return bad
			}
		}
	case *types.Pointer:
		return internalIn(t.Elem(), seen)
	case *types.Slice:
		return internalIn(t.Elem(), seen)
	case *types.Array:
		return internalIn(t.Elem(), seen)
	case *types.Chan:
		return internalIn(t.Elem(), seen)
	case *types.Map:
		if bad := internalIn(t.Key(), seen); bad != "" {
			return bad
		}
		return internalIn(t.Elem(), seen)
	case *types.Signature:
		for _, tuple := range []*types.Tuple{t.Params(), t.Results()} {
			for v := range tuple.Variables() {
				if bad := internalIn(v.Type(), seen); bad != "" {
					return bad
				}
			}
		}
	case *types.Struct:
		for f := range t.Fields() {
			if f.Exported() {
				if bad := internalIn(f.Type(), seen); bad != "" {
					return "field " + f.Name() + ": " + bad
				}
			}
		}
	case *types.Interface:
		for m := range t.Methods() {
			if m.Exported() {
				if bad := internalIn(m.Type(), seen); bad != "" {
					return "method " + m.Name() + ": " + bad
				}
			}
		}
	}
	return ""
}

// TestLightPackagesLinkNoDriver holds the colour library, the root package
// and the HTTP plumbing free of the database drivers, the job queue and
// the AI client: a program that imports only a11y should not compile
// SQLite.
func TestLightPackagesLinkNoDriver(t *testing.T) {
	t.Parallel()
	readsTheSource(t)
	goCmd := goCommand()
	heavy := []string{"github.com/riverqueue/", "github.com/jackc/pgx", "modernc.org/sqlite", "github.com/tmc/langchaingo", "github.com/jmoiron/sqlx",
		"github.com/prometheus/"}
	for _, pkg := range []string{".", "./a11y", "./internal/api", "./store/driverless"} {
		out, err := exec.Command(goCmd, "list", "-deps", pkg).Output()
		require.NoError(t, err, pkg)
		for _, dep := range strings.Fields(string(out)) {
			for _, h := range heavy {
				require.False(t, strings.HasPrefix(dep, h), "%s links %s", pkg, dep)
			}
		}
	}
}

// TestDomainsLinkNoPrometheus: the services count through
// groundwork.Meter; only the metrics package links client_golang.
func TestDomainsLinkNoPrometheus(t *testing.T) {
	t.Parallel()
	readsTheSource(t)
	goCmd := goCommand()
	for _, pkg := range []string{"./auth", "./forms", "./bookings", "./webhooks", "./reporting", "./emaillist"} {
		out, err := exec.Command(goCmd, "list", "-deps", pkg).Output()
		require.NoError(t, err, pkg)
		require.NotContains(t, string(out), "github.com/prometheus/", pkg)
	}
}

// TestReferenceLinksNoGeneratedGoogleStack holds the reference server off
// Google's generated clients and what they drag in: the two report calls
// go over plain REST.
func TestReferenceLinksNoGeneratedGoogleStack(t *testing.T) {
	t.Parallel()
	readsTheSource(t)
	goCmd := goCommand()
	out, err := exec.Command(goCmd, "list", "-deps", "./cmd/reference").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		for _, h := range []string{"google.golang.org/api", "google.golang.org/grpc", "google.golang.org/genproto", "go.opentelemetry.io/"} {
			require.False(t, strings.HasPrefix(dep, h), "cmd/reference links %s", dep)
		}
	}
}

// TestAbilityTable holds the one table of abilities to the constants the
// domains check: every constant is in it, under its domain.
func TestAbilityTable(t *testing.T) {
	t.Parallel()
	domain := map[string]string{}
	for _, a := range append(slices.Clone(groundwork.Abilities), groundwork.Capabilities...) {
		require.NotEmpty(t, a.Description, a.Name)
		require.NotContains(t, domain, a.Name, "listed once")
		domain[a.Name] = a.Domain
	}
	for name, want := range map[string]string{
		forms.AbilityViewAny: "forms", forms.AbilityCreate: "forms", forms.AbilityView: "forms", forms.AbilityUpdate: "forms",
		forms.AbilityDelete: "forms", forms.AbilityViewSubmissions: "forms", forms.AbilityManageNotifications: "forms",
		webhooks.AbilityViewAny: "webhooks", webhooks.AbilityView: "webhooks", webhooks.AbilityCreate: "webhooks",
		webhooks.AbilityUpdate: "webhooks", webhooks.AbilityDelete: "webhooks", webhooks.AbilityReplay: "webhooks",
		a11y.AIAbilityDefault: "a11y", bookings.AbilityView: "bookings", bookings.AbilityConfirm: "bookings",
		bookings.AbilityCancel: "bookings", bookings.AbilityComplete: "bookings", bookings.AbilityNoShow: "bookings",
		bookings.AbilityReschedule: "bookings", bookings.AbilityReassign: "bookings", bookings.AbilityReissue: "bookings",
		bookings.AbilityManage: "bookings", reporting.AbilityView: "reporting", reporting.CapabilityView: "reporting",
		emaillist.AbilityManageFeeds: "emaillist",
	} {
		require.Equal(t, want, domain[name], "%s is in the table under its domain", name)
	}
}

// A doc comment says what the code does now: none promises a later
// release or hedges with "not yet" or "for now" about a feature (a
// sentence that means it, such as a lock-out's "last attempt for now",
// lives in a string, not a comment).
func TestDocCommentsMakeNoPromises(t *testing.T) {
	t.Parallel()
	hedges := []string{"later release", "future release", "not yet", "for now", "todo", "fixme"}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			_, comment, ok := strings.Cut(line, "// ")
			if !ok || strings.Contains(line, `"`) && strings.Index(line, `"`) < strings.Index(line, "//") {
				continue
			}
			for _, h := range hedges {
				if strings.Contains(strings.ToLower(comment), h) && !strings.Contains(path, "surface_test.go") {
					t.Errorf("%s:%d: a comment hedges (%q): %s", path, i+1, h, strings.TrimSpace(line))
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
}
