package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docs/design.md has a table with a row per Go package directory: what it is for, its ring
// (0 at the centre) and which of bookflow's packages it may import. TestDesignDocPackageTable
// holds that table to the code, read with go/parser (imports only, no build, no subprocess):
//
//   - every directory with a non-generated .go file has a row, and every row a directory;
//   - a package's non-test files import exactly the packages of ours its row allows: a forbidden
//     import fails, and so does a permission nothing uses any more;
//   - every permission points to a listed package of a lower ring, so the allowed graph has no
//     upward edge and no cycle.
//
// _test.go files are left out: a test may import any package (an external test package even
// one above its own, such as db's tests importing testsuite).
//
// TestDesignDocNamesTestsThatExist checks that every test the page names, as `TestName`
// (`./pkg/`), is a test function (or, as `TestSuite/TestMethod`, a suite's method) in that
// package's directory.

// designPage is the architecture page, from the repository's root.
const designPage = "docs/design.md"

// modulePath is the import path of bookflow's module, whose packages the table governs.
const modulePath = "github.com/bookflow/bookflow"

// packageRow is one row of the page's package table.
type packageRow struct {
	dir       string   // the package's directory from the repository's root, e.g. cmd/bookflow
	ring      int      // 0 at the centre; a package imports only packages of lower rings
	mayImport []string // directories of the packages of ours it may import
	line      int      // where the row is on the page
}

func TestDesignDocPackageTable(t *testing.T) {
	rows := readPackageTable(t)
	pkgs, err := goPackages(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d Go package directories under %s: the walk is wrong", len(pkgs), repoRoot)
	}
	for _, p := range checkPackageTable(rows, pkgs) {
		t.Errorf("%s: %s", designPage, p)
	}
}

// TestDesignDocPackageTableCatchesDrift is the control: the check, given the real table and a
// code base that matches it (each package importing what its row allows) with one thing changed,
// must find it. The walk itself is checked against the tree: it finds the packages that exist.
func TestDesignDocPackageTableCatchesDrift(t *testing.T) {
	rows := readPackageTable(t)
	pkgs := map[string][]string{}
	for _, r := range rows {
		pkgs[r.dir] = slices.Clone(r.mayImport)
	}
	if problems := checkPackageTable(rows, pkgs); len(problems) > 0 {
		t.Fatalf("the table disagrees with itself: %q", problems)
	}
	found, err := goPackages(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"domain", "cmd/bookflow", "deploy/helm/check", "testsuite/suppliersim"} {
		if _, ok := found[dir]; !ok {
			t.Errorf("the walk missed %s", dir)
		}
	}
	for _, dir := range []string{"workflows/testdata", "docs", "deploy/helm"} {
		if _, ok := found[dir]; ok {
			t.Errorf("the walk took %s for a package", dir)
		}
	}
	if !slices.Contains(found["workflows"], "activities") || slices.Contains(found["workflows"], "workflows") {
		t.Errorf("the walk read workflows' imports as %q", found["workflows"])
	}
	rowOf := func(rows []packageRow, dir string) int {
		i := slices.IndexFunc(rows, func(r packageRow) bool { return r.dir == dir })
		if i < 0 {
			t.Fatalf("no row for %s", dir)
		}
		return i
	}
	cloneRows := func() []packageRow {
		out := slices.Clone(rows)
		for i := range out {
			out[i].mayImport = slices.Clone(out[i].mayImport)
		}
		return out
	}
	cases := []struct {
		name string
		rows func() []packageRow
		pkgs func() map[string][]string
		want string // in one of the problems found
	}{
		{name: "a package without a row", want: `"db" has no row`, rows: func() []packageRow {
			r := cloneRows()
			return slices.Delete(r, rowOf(r, "db"), rowOf(r, "db")+1)
		}},
		{name: "a row without a package", want: `"ghost" is not a Go package directory`, rows: func() []packageRow {
			return append(cloneRows(), packageRow{dir: "ghost", ring: 1, mayImport: []string{"domain"}})
		}},
		{name: "an import the row does not allow", want: `workflows imports db`, rows: func() []packageRow {
			r := cloneRows()
			i := rowOf(r, "workflows")
			r[i].mayImport = slices.DeleteFunc(r[i].mayImport, func(d string) bool { return d == "db" })
			return r
		}},
		{name: "a new forbidden import in the code", want: `domain imports api`, pkgs: func() map[string][]string {
			p := clonePackages(pkgs)
			p["domain"] = append(p["domain"], "api")
			return p
		}},
		{name: "an import removed from the code", want: `db may import domain but imports it no more`,
			pkgs: func() map[string][]string {
				p := clonePackages(pkgs)
				p["db"] = nil
				return p
			}},
		{name: "an upward permission", want: `not below`, rows: func() []packageRow {
			r := cloneRows()
			i := rowOf(r, "domain")
			r[i].mayImport = append(r[i].mayImport, "worker")
			return r
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, p := rows, pkgs
			if c.rows != nil {
				r = c.rows()
			}
			if c.pkgs != nil {
				p = c.pkgs()
			}
			problems := checkPackageTable(r, p)
			if !slices.ContainsFunc(problems, func(s string) bool { return strings.Contains(s, c.want) }) {
				t.Errorf("want a problem naming %q, got %q", c.want, problems)
			}
		})
	}
}

func clonePackages(pkgs map[string][]string) map[string][]string {
	out := make(map[string][]string, len(pkgs))
	for k, v := range pkgs {
		out[k] = slices.Clone(v)
	}
	return out
}

// checkPackageTable compares the table's rows with the packages found (directory → the
// directories of ours its non-test files import) and returns what disagrees.
func checkPackageTable(rows []packageRow, pkgs map[string][]string) []string {
	var problems []string
	byDir := map[string]packageRow{}
	for _, r := range rows {
		if _, dup := byDir[r.dir]; dup {
			problems = append(problems, fmt.Sprintf("line %d: %q has a second row", r.line, r.dir))
		}
		byDir[r.dir] = r
	}
	for _, dir := range sortedKeys(pkgs) {
		if _, ok := byDir[dir]; !ok {
			problems = append(problems, fmt.Sprintf("%q has no row in the package table (it has .go files)", dir))
		}
	}
	for _, r := range rows {
		imports, ok := pkgs[r.dir]
		if !ok {
			problems = append(problems, fmt.Sprintf("line %d: %q is not a Go package directory (no non-generated .go file)", r.line, r.dir))
			continue
		}
		for _, imp := range imports {
			if !slices.Contains(r.mayImport, imp) {
				problems = append(problems, fmt.Sprintf("line %d: %s imports %s, which its row does not allow", r.line, r.dir, imp))
			}
		}
		for _, allowed := range r.mayImport {
			target, listed := byDir[allowed]
			switch {
			case !listed:
				problems = append(problems, fmt.Sprintf("line %d: %s may import %q, which has no row", r.line, r.dir, allowed))
			case target.ring >= r.ring:
				problems = append(problems, fmt.Sprintf("line %d: %s (ring %d) may import %s (ring %d), which is not below it",
					r.line, r.dir, r.ring, allowed, target.ring))
			}
			if !slices.Contains(imports, allowed) {
				problems = append(problems, fmt.Sprintf("line %d: %s may import %s but imports it no more: narrow the row",
					r.line, r.dir, allowed))
			}
		}
	}
	return problems
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var (
	// codePath is a cell that is one code span, a directory: `cmd/bookflow`.
	codePath = regexp.MustCompile("^`([^`]+)`$")
	// codeSpans are the code spans of a cell.
	codeSpans = regexp.MustCompile("`([^`]*)`")
)

// readPackageTable reads the package table of the page: the one table whose header has the
// columns package, ring and may import.
func readPackageTable(t *testing.T) []packageRow {
	t.Helper()
	rows, err := parsePackageTable(proseLines(t, filepath.Join(repoRoot, designPage)))
	if err != nil {
		t.Fatalf("%s: %v", designPage, err)
	}
	return rows
}

func parsePackageTable(lines []string) ([]packageRow, error) {
	var rows []packageRow
	tables := 0
	for i := 0; i < len(lines); i++ {
		header := tableCells(lines[i])
		col := map[string]int{}
		for j, h := range header {
			col[strings.ToLower(h)] = j
		}
		_, hasPkg := col["package"]
		_, hasRing := col["ring"]
		_, hasMay := col["may import"]
		if !hasPkg || !hasRing || !hasMay {
			continue
		}
		tables++
		for i += 2; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
			cells := tableCells(lines[i])
			if len(cells) != len(header) {
				return nil, fmt.Errorf("line %d: %d cells, the header has %d", i+1, len(cells), len(header))
			}
			row := packageRow{line: i + 1}
			m := codePath.FindStringSubmatch(cells[col["package"]])
			if m == nil {
				return nil, fmt.Errorf("line %d: the package cell is not one `dir`: %q", i+1, cells[col["package"]])
			}
			row.dir = strings.TrimSuffix(m[1], "/")
			ring, err := strconv.Atoi(cells[col["ring"]])
			if err != nil {
				return nil, fmt.Errorf("line %d: the ring is not a number: %q", i+1, cells[col["ring"]])
			}
			row.ring = ring
			if row.mayImport, err = parseMayImport(cells[col["may import"]]); err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			rows = append(rows, row)
		}
	}
	switch {
	case tables != 1:
		return nil, fmt.Errorf("want one table with the columns package, ring and may import, found %d", tables)
	case len(rows) == 0:
		return nil, fmt.Errorf("the package table has no rows")
	}
	return rows, nil
}

// parseMayImport reads a may-import cell: "nothing", or code spans naming directories, separated
// by commas or spaces and nothing else.
func parseMayImport(cell string) ([]string, error) {
	if strings.EqualFold(cell, "nothing") {
		return nil, nil
	}
	var dirs []string
	for _, m := range codeSpans.FindAllStringSubmatch(cell, -1) {
		dirs = append(dirs, strings.TrimSuffix(m[1], "/"))
	}
	if rest := strings.Trim(codeSpans.ReplaceAllString(cell, ""), ", "); rest != "" || len(dirs) == 0 {
		return nil, fmt.Errorf("the may import cell is `dir`s separated by commas, or nothing: %q", cell)
	}
	return dirs, nil
}

// tableCells splits a Markdown table line into its trimmed cells (nil for a line that is not
// one).
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
		return nil
	}
	cells := strings.Split(line[1:len(line)-1], "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// goPackages walks the tree from root for Go package directories, every directory with a
// non-generated .go file (leaving out .data, node_modules, testdata and hidden directories), and
// returns each with the directories of the packages of ours its non-test files import, sorted.
func goPackages(root string) (map[string][]string, error) {
	pkgs := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(rel)
		imports := pkgs[dir]
		if imports == nil {
			imports = []string{}
		}
		if !strings.HasSuffix(path, "_test.go") {
			for _, spec := range f.Imports {
				ip, err := strconv.Unquote(spec.Path.Value)
				if err != nil {
					return err
				}
				ours, ok := strings.CutPrefix(ip, modulePath+"/")
				if ip == modulePath {
					ours, ok = ".", true
				}
				if ok && ours != dir && !slices.Contains(imports, ours) {
					imports = append(imports, ours)
				}
			}
		}
		slices.Sort(imports)
		pkgs[dir] = imports
		return nil
	})
	return pkgs, err
}

var (
	// namedTest is a test the page names with its package: `TestName` (`./pkg/`), the name
	// perhaps a suite's and its method's, `TestSuite/TestMethod`.
	namedTest = regexp.MustCompile("`(Test[A-Za-z0-9_]+(?:/Test[A-Za-z0-9_]+)?)`\\s*\\(`\\./([A-Za-z0-9_./-]*?)/?`\\)")
	// anyTestSpan is a code span that is a test's name.
	anyTestSpan = regexp.MustCompile("`Test[A-Za-z0-9_]+(?:/Test[A-Za-z0-9_]+)?`")
)

func TestDesignDocNamesTestsThatExist(t *testing.T) {
	found := map[string]string{} // directory → the source of its test files
	source := func(dir string) string {
		if s, ok := found[dir]; ok {
			return s
		}
		files, err := filepath.Glob(filepath.Join(repoRoot, dir, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
			b.WriteByte('\n')
		}
		found[dir] = b.String()
		return found[dir]
	}
	// The prose as one text (a name and its package may be wrapped onto two lines).
	text := strings.Join(proseLines(t, filepath.Join(repoRoot, designPage)), "\n")
	lineAt := func(offset int) int { return strings.Count(text[:offset], "\n") + 1 }
	withPackage := map[int][]string{} // offset of the name's span → name, directory
	for _, m := range namedTest.FindAllStringSubmatchIndex(text, -1) {
		withPackage[m[0]] = []string{text[m[2]:m[3]], text[m[4]:m[5]]}
	}
	for _, span := range anyTestSpan.FindAllStringIndex(text, -1) {
		if _, ok := withPackage[span[0]]; !ok {
			t.Errorf("%s:%d: name each test with its package, as %s (`./pkg/`)", designPage, lineAt(span[0]),
				text[span[0]:span[1]])
		}
	}
	if len(withPackage) == 0 {
		t.Fatalf("%s names no test: the pattern is wrong", designPage)
	}
	for offset, m := range withPackage {
		name, dir := m[0], m[1]
		src := source(dir)
		suite, method, isMethod := strings.Cut(name, "/")
		if !regexp.MustCompile(`(?m)^func ` + suite + `\(`).MatchString(src) {
			t.Errorf("%s:%d: no test %s in ./%s/", designPage, lineAt(offset), suite, dir)
			continue
		}
		if isMethod && !regexp.MustCompile(`(?m)^func \([^)]*\) `+method+`\(`).MatchString(src) {
			t.Errorf("%s:%d: no method %s of %s in ./%s/", designPage, lineAt(offset), method, suite, dir)
		}
	}
}
