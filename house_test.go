package groundwork_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The house rules, held by tests: each failure names the file, function
// or package, the rule, and what to do. Budgets are today's counts or
// lower, and only go down: when one fails, change the code, not the
// number (lower the number when the code gets smaller).

// maxFileLines bounds every Go file that is not a _test.go file
// (production code and the store suites).
const maxFileLines = 800

// maxFuncLines bounds a production function's length; longFuncs are the
// ones allowed over it, at most three, each a single pass that reads
// best whole (a booking's transaction, a submission's checks).
const maxFuncLines = 120

var longFuncs = []string{"bookings.Service.book", "forms.Service.submit"}

// exportedBudget is, per public package, the most exported names it may
// have (package-level functions, types, variables and constants, and the
// exported methods of its types).
var exportedBudget = map[string]int{
	".": 87, "a11y": 91, "a11y/a11yai": 5, "auth": 205, "auth/authsql": 48, "auth/authstore": 5, "auth/authtest": 1, "auth/openid": 14, "auth/openid/openidsql": 7, "auth/useradmin": 12, "auth/orgs": 51, "auth/orgs/orgssql": 14, "bookings": 252, "bookings/bookingsstore": 2,
	"bookings/bookingsgoogle": 15, "bookings/bookingsical": 19, "bookings/bookingssql": 46, "bookings/bookingsstripe": 10, "bookings/bookingstest": 1, "bookings/calendars": 68,
	"bookings/calendars/calendarssql": 14, "bookings/calendars/calendarstest": 14, "bookings/waitlist": 48, "bookings/waitlist/waitlistsql": 12,
	"bookings/waitlist/waitlisttest": 2, "bookings/slots": 36, "emaillist": 117,
	"emaillist/emaillistsql": 10, "emaillist/emaillisttest": 1, "forms": 278, "forms/formsstore": 3, "forms/formssql": 47, "forms/formsstripe": 7, "forms/formstest": 1, "link": 12,
	"mail": 30, "metrics": 12, "reporting": 227, "reporting/counting": 6, "reporting/reportinggeo": 7, "reporting/reportinggeo/reportinggeotest": 1,
	"reporting/reportinggoogle": 33, "reporting/reportingsql": 25, "reporting/reportingstore": 5, "reporting/visits": 7, "reporting/reportingtest": 2, "store": 116, "store/driverless": 24,
	"store/storetest": 9, "tenant": 5, "webhooks": 248, "webhooks/webhookssql": 39, "webhooks/webhooksstore": 2, "webhooks/webhookstest": 1,
}

// foreignInterfaces are the interfaces of other packages a Store may
// embed, with how many methods each adds.
var foreignInterfaces = map[string]int{"store.Transactor": 1}

// storeMethodBudget is, per package with a Store interface (a domain, or
// a part of one with a store of its own), the most methods it may have
// (embedded interfaces included).
var storeMethodBudget = map[string]int{"auth": 44, "auth/openid": 4, "auth/orgs": 11, "bookings": 42, "bookings/calendars": 11, "bookings/waitlist": 9, "emaillist": 6, "forms": 43, "reporting": 6,
	"webhooks": 29}

// domains never import one another.
var domains = []string{"a11y", "auth", "bookings", "emaillist", "forms", "reporting", "webhooks"}

// goFiles are the module's Go files, by directory, without _test.go files
// (or with them only, when tests is true).
func goFiles(t *testing.T, tests bool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	require.NoError(t, filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && strings.HasSuffix(path, "_test.go") == tests {
			out[filepath.Dir(path)] = append(out[filepath.Dir(path)], path)
		}
		return nil
	}))
	return out
}

func TestHouseFilesStaySmall(t *testing.T) {
	t.Parallel()
	for _, files := range goFiles(t, false) {
		for _, f := range files {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			n := strings.Count(string(src), "\n")
			require.LessOrEqual(t, n, maxFileLines, "%s has %d lines, over %d: split it along what it does (a file per area, "+
				"as the store suites are)", f, n, maxFileLines)
		}
	}
}

func TestHouseFunctionsStayShort(t *testing.T) {
	t.Parallel()
	require.LessOrEqual(t, len(longFuncs), 3, "at most three functions may be over %d lines", maxFuncLines)
	fset := token.NewFileSet()
	var long []string
	for _, files := range goFiles(t, false) {
		for _, f := range files {
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			for _, d := range file.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
				if n > maxFuncLines {
					long = append(long, funcName(f, fn))
				}
			}
		}
	}
	sort.Strings(long)
	for _, name := range long {
		require.Contains(t, longFuncs, name, "%s is over %d lines: split it into steps that each say what they do (over it today: %q)",
			name, maxFuncLines, long)
	}
	for _, name := range longFuncs {
		require.Contains(t, long, name, "%s is no longer over %d lines: take it off longFuncs", name, maxFuncLines)
	}
}

// funcName is "dir.Func" or "dir.Type.Method".
func funcName(file string, fn *ast.FuncDecl) string {
	name := fn.Name.Name
	if fn.Recv != nil && len(fn.Recv.List) > 0 {
		typ := fn.Recv.List[0].Type
		if star, ok := typ.(*ast.StarExpr); ok {
			typ = star.X
		}
		if idx, ok := typ.(*ast.IndexExpr); ok {
			typ = idx.X
		}
		if id, ok := typ.(*ast.Ident); ok {
			name = id.Name + "." + name
		}
	}
	return filepath.ToSlash(filepath.Dir(file)) + "." + name
}

func TestHouseExportedNamesWithinBudget(t *testing.T) {
	t.Parallel()
	counts := map[string]int{}
	for dir, files := range goFiles(t, false) {
		if strings.Contains(dir, "internal") || strings.HasPrefix(dir, "cmd") || strings.HasPrefix(dir, "examples") || strings.HasPrefix(dir, "bench") {
			continue
		}
		fset := token.NewFileSet()
		for _, f := range files {
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			for _, d := range file.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() && (d.Recv == nil || exportedRecv(d)) {
						counts[dir]++
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								counts[dir]++
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									counts[dir]++
								}
							}
						}
					}
				}
			}
		}
	}
	var report []string
	for _, dir := range slices.Sorted(maps.Keys(counts)) {
		report = append(report, fmt.Sprintf("%q: %d,", filepath.ToSlash(dir), counts[dir]))
	}
	for dir, n := range counts {
		budget, ok := exportedBudget[filepath.ToSlash(dir)]
		require.True(t, ok, "%s has no budget of exported names: add it to exportedBudget (today's counts:\n%s)", dir, strings.Join(report, "\n"))
		require.LessOrEqual(t, n, budget, "%s exports %d names, over its budget of %d: unexport what a host does not call, "+
			"or move what only an implementer needs off the package", dir, n, budget)
	}
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(fn *ast.FuncDecl) bool {
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if idx, ok := typ.(*ast.IndexExpr); ok {
		typ = idx.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}

func TestHouseStoresWithinBudget(t *testing.T) {
	t.Parallel()
	for _, d := range slices.Sorted(maps.Keys(goFiles(t, false))) {
		if strings.HasPrefix(d, "internal") || strings.HasPrefix(d, "cmd") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(d, "store.go"))
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, filepath.Join(d, "store.go"), src, parser.SkipObjectResolution)
		require.NoError(t, err)
		ifaces := map[string]*ast.InterfaceType{}
		ast.Inspect(file, func(n ast.Node) bool {
			if s, ok := n.(*ast.TypeSpec); ok {
				if it, ok := s.Type.(*ast.InterfaceType); ok {
					ifaces[s.Name.Name] = it
				}
			}
			return true
		})
		root, ok := ifaces["Store"]
		if !ok {
			continue
		}
		var count func(it *ast.InterfaceType) int
		count = func(it *ast.InterfaceType) int {
			n := 0
			for _, m := range it.Methods.List {
				if _, ok := m.Type.(*ast.FuncType); ok {
					n += len(m.Names)
				} else if id, ok := m.Type.(*ast.Ident); ok && ifaces[id.Name] != nil {
					n += count(ifaces[id.Name])
				} else if sel, ok := m.Type.(*ast.SelectorExpr); ok {
					name := fmt.Sprint(sel.X) + "." + sel.Sel.Name
					methods, ok := foreignInterfaces[name]
					require.True(t, ok, "%s.Store embeds %s: add its method count to foreignInterfaces", d, name)
					n += methods
				}
			}
			return n
		}
		n := count(root)
		budget, ok := storeMethodBudget[d]
		require.True(t, ok, "%s.Store has %d methods and no budget: add it to storeMethodBudget", d, n)
		require.LessOrEqual(t, n, budget, "%s.Store has %d methods, over its budget of %d: a method only when the service needs one; "+
			"run a function in a transaction (store) rather than adding a method per step", d, n, budget)
	}
}

func TestHouseDomainsImportNoOther(t *testing.T) {
	t.Parallel()
	const module = "github.com/groundwork-go/groundwork/"
	for _, d := range domains {
		out, err := exec.Command(goCommand(), "list", "-deps", "./"+d+"/...").Output()
		require.NoError(t, err, d)
		for _, dep := range strings.Fields(string(out)) {
			for _, other := range domains {
				if other != d && (dep == module+other || strings.HasPrefix(dep, module+other+"/")) {
					require.Failf(t, "a domain imports another", "%s links %s: join them in link/ instead", d, dep)
				}
			}
		}
	}
}

// pureEngines are packages of pure rules: they link nothing but these
// standard packages and read no clock (a time is an argument), so every
// rule in them is tested and measured on its own.
var pureEngines = map[string][]string{"bookings/slots": {"cmp", "slices", "time"}, "reporting/visits": {"time"}}

func TestHousePureEnginesStayPure(t *testing.T) {
	t.Parallel()
	files := goFiles(t, false)
	for dir, allowed := range pureEngines {
		require.NotEmpty(t, files[dir], dir)
		fset := token.NewFileSet()
		for _, f := range files[dir] {
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			for _, imp := range file.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				require.Contains(t, allowed, path, "%s imports %s: the engine is pure; read what it needs outside and pass it in", f, path)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" && slices.Contains([]string{"Now", "Since", "Until", "Sleep", "After", "Tick", "NewTimer", "NewTicker", "AfterFunc"}, sel.Sel.Name) {
						require.Failf(t, "a pure engine reads the clock", "%s: time.%s; take the time as an argument", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}

// untypedFamilies are the groups of exported string constants that share
// a name's first word and stay untyped by design: each is a set of names
// compared with strings from outside (a token's abilities, an event's
// name, an HTTP header, a metric's name, a template's or a form field's
// name, a provider's field a value maps to) or text shown to people,
// not a closed set of values a field holds.
var untypedFamilies = []string{"Ability", "Capability", "Cause", "Dest", "Event", "Header", "Jobs", "Metric", "Msg", "Reason", "Scope", "Stripe"}

// untypedEnums are the enums allowed untyped: none.
var untypedEnums = []string{}

// An enum is typed: a const block of two or more exported string
// constants whose names share a first word (StatusRequested,
// StatusConfirmed) declares each with a named type, so a field, a
// parameter and a switch say which values they take.
func TestHouseEnumsTyped(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	var found []string
	for dir, files := range goFiles(t, false) {
		if strings.Contains(dir, "internal") || strings.HasPrefix(dir, "cmd") || strings.HasPrefix(dir, "examples") || strings.HasPrefix(dir, "bench") {
			continue
		}
		for _, f := range files {
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			for _, d := range file.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST || !g.Lparen.IsValid() {
					continue
				}
				untyped := map[string]int{}
				for _, s := range g.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if !n.IsExported() || vs.Type != nil || i >= len(vs.Values) {
							continue
						}
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING && !namesAThing(n.Name) {
							untyped[firstWord(n.Name)]++
						}
					}
				}
				for word, n := range untyped {
					if n >= 2 && !slices.Contains(untypedFamilies, word) {
						found = append(found, filepath.ToSlash(dir)+"."+word)
					}
				}
			}
		}
	}
	slices.Sort(found)
	found = slices.Compact(found)
	for _, e := range found {
		require.Contains(t, untypedEnums, e, "the constants %s... are an untyped enum: declare a type (type Status string) and give it to each "+
			"constant and to the fields that hold them (untyped today: %q)", e, found)
	}
	for _, e := range untypedEnums {
		require.Contains(t, found, e, "%s is typed now: take it off untypedEnums", e)
	}
}

// namesAThing reports whether a constant names a default, a template, a
// form field or a query parameter, or an identifier: a name, not a
// value of an enum.
func namesAThing(name string) bool {
	for _, suffix := range []string{"Default", "Template", "Field", "Query", "ProductID"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// firstWord is a CamelCase name's first word: "Status" of StatusNoShow.
func firstWord(name string) string {
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			return name[:i]
		}
	}
	return name
}
