// Package layers holds the test that keeps the module's imports pointing
// down the layer table of docs/ARCHITECTURE.md. It reads the table from
// the document itself, so the picture a newcomer reads and the rule the
// build keeps are one text.
package layers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/paneteam/paneteam"

// A row of the layer table: its rank and the folders it holds. A folder
// written "*test" stands for every package whose name ends in "test".
type row struct {
	rank    int
	folders []string
}

// table reads the rows of the table whose header starts "| rank |" in
// doc: ranks strictly rising, each folder in one row only.
func table(doc []byte) ([]row, error) {
	var rows []row
	seen := map[string]int{}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		cells := strings.Split(strings.Trim(line, "|"), "|")
		switch {
		case !strings.HasPrefix(line, "|"):
			if in {
				return rows, check(rows)
			}
		case !in && strings.TrimSpace(cells[0]) == "rank":
			in = true
		case in && strings.HasPrefix(strings.TrimSpace(cells[0]), "---"):
		case in:
			if len(cells) < 2 {
				return nil, fmt.Errorf("layer table row %q has no folders cell", line)
			}
			rank, err := strconv.Atoi(strings.TrimSpace(cells[0]))
			if err != nil {
				return nil, fmt.Errorf("layer table row %q: the rank is not a number", line)
			}
			r := row{rank: rank}
			for _, f := range strings.Fields(cells[1]) {
				f = strings.Trim(f, "`")
				if prev, dup := seen[f]; dup {
					return nil, fmt.Errorf("layer table: %s is in rank %d and rank %d; a folder has one rank", f, prev, rank)
				}
				seen[f] = rank
				r.folders = append(r.folders, f)
			}
			rows = append(rows, r)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !in {
		return nil, errors.New(`no table with a "rank" column`)
	}
	return rows, check(rows)
}

func check(rows []row) error {
	for i := 1; i < len(rows); i++ {
		if rows[i].rank <= rows[i-1].rank {
			return fmt.Errorf("layer table: rank %d follows rank %d; ranks rise down the table", rows[i].rank, rows[i-1].rank)
		}
	}
	if len(rows) == 0 {
		return errors.New("layer table has no rows")
	}
	return nil
}

// place finds the row of a package (its path inside the module): a
// "*test" package is test support wherever it sits; otherwise the row
// of the longest listed folder that holds it.
func place(rows []row, pkg string) (r row, folder string, ok bool) {
	base := pkg[strings.LastIndex(pkg, "/")+1:]
	for _, x := range rows {
		for _, f := range x.folders {
			if pat, isPat := strings.CutPrefix(f, "*"); isPat && strings.HasSuffix(base, pat) {
				return x, f, true
			}
		}
	}
	for _, x := range rows {
		for _, f := range x.folders {
			if (pkg == f || strings.HasPrefix(pkg, f+"/")) && len(f) > len(folder) {
				r, folder, ok = x, f, true
			}
		}
	}
	return r, folder, ok
}

// A package as go list tells it.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// list runs go list over the module for one GOOS: imports differ by
// platform (jail_linux.go, jail_other.go).
func list(t *testing.T, root, goos string) []pkg {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(gobin, "list", "-json", "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS="+goos)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list (GOOS=%s): %v\n%s", goos, err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list (GOOS=%s) output: %v", goos, err)
		}
		if p.Error != nil {
			t.Fatalf("go list (GOOS=%s): %s: %s", goos, p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatalf("go list (GOOS=%s) found no packages in %s", goos, root)
	}
	return pkgs
}

// moduleRoot is the folder of go.mod above the test's own.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// violations says, one line each, every package in no row and every
// import that points up the table. Tests follow their package's rank
// and may also import test support, the table's last row.
func violations(rows []row, pkgs []pkg) (bad []string, used map[string]bool) {
	used = map[string]bool{}
	support := rows[len(rows)-1]
	for _, p := range pkgs {
		path, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok {
			continue
		}
		r, folder, ok := place(rows, path)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is in no row of the layer table in docs/ARCHITECTURE.md: add its folder to the rank it belongs to", path))
			continue
		}
		used[folder] = true
		judge := func(imports []string, kind string, test bool) {
			for _, imp := range imports {
				dep, ok := strings.CutPrefix(imp, module+"/")
				if !ok {
					continue
				}
				dr, dfolder, ok := place(rows, dep)
				if !ok {
					continue // reported as a package of its own
				}
				if dr.rank <= r.rank || test && dr.rank == support.rank {
					continue
				}
				bad = append(bad, fmt.Sprintf("%s (rank %d, %s) %s %s (rank %d, %s), which is above it in docs/ARCHITECTURE.md's layer table: move what it uses down to rank %d or lower, or the importer up, and change the table to match",
					path, r.rank, folder, kind, dep, dr.rank, dfolder, r.rank))
			}
		}
		judge(p.Imports, "imports", false)
		judge(p.TestImports, "has a test that imports", true)
		judge(p.XTestImports, "has an external test that imports", true)
	}
	return bad, used
}

// Every package of the module sits in one row of the table, and imports
// only its own row and those below; a row naming no package is stale.
func TestImportsPointDownTheLayerTable(t *testing.T) {
	root := moduleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := table(doc)
	if err != nil {
		t.Fatalf("docs/ARCHITECTURE.md: %v", err)
	}
	used := map[string]bool{}
	seen := map[string]bool{}
	for _, goos := range []string{"linux", "darwin"} {
		bad, u := violations(rows, list(t, root, goos))
		for _, b := range bad {
			if !seen[b] {
				seen[b] = true
				t.Error(b)
			}
		}
		for f := range u {
			used[f] = true
		}
	}
	for _, r := range rows {
		for _, f := range r.folders {
			if !used[f] {
				t.Errorf("rank %d of the layer table in docs/ARCHITECTURE.md names %s, which holds no package: take it out or fix its path", r.rank, f)
			}
		}
	}
}
