package gen

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var root = filepath.Join("..", "..", "..", "..")

// The generated files of nk and nkc are what the templates render now.
func TestGeneratedCurrent(t *testing.T) {
	for _, pkg := range Packages {
		for _, f := range pkg.Files {
			want, err := Source(pkg, f)
			require.NoError(t, err)
			have, err := os.ReadFile(filepath.Join(root, pkg.Dir, f))
			require.NoError(t, err)
			if !bytes.Equal(want, have) {
				t.Errorf("%s/%s is stale: run go generate ./%s", pkg.Dir, f, pkg.Dir)
			}
		}
	}
}

// exported lists a package's exported API from its non-test source files,
// whatever their build tags: every exported declaration and method with
// its signature (types, values of constants and variables) as written.
func exported(t *testing.T, dir string) map[string]string {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	api := map[string]string{}
	print := func(n any) string {
		var b bytes.Buffer
		require.NoError(t, printer.Fprint(&b, fset, n))
		return b.String()
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				key := "func " + d.Name.Name
				if d.Recv != nil {
					key = "method " + print(d.Recv.List[0].Type) + "." + d.Name.Name
					if !ast.IsExported(strings.TrimLeft(print(d.Recv.List[0].Type), "*")) {
						continue
					}
				}
				api[key] = print(d.Type)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							api["type "+s.Name.Name] = print(s)
						}
					case *ast.ValueSpec:
						for i, n := range s.Names {
							if !n.IsExported() {
								continue
							}
							v := ""
							if s.Type != nil {
								v = print(s.Type)
							}
							if i < len(s.Values) {
								v += " = " + print(s.Values[i])
							}
							api[d.Tok.String()+" "+n.Name] = v
						}
					}
				}
			}
		}
	}
	return api
}

// nk and nkc export the same identifiers with the same signatures.
func TestSameExportedAPI(t *testing.T) {
	nk := exported(t, filepath.Join(root, "nk"))
	nkc := exported(t, filepath.Join(root, "nkc"))
	// The one difference: nk compiles the C core in, so the vendor backend
	// is a fact of its build (tag xnnpack); nkc loads whichever library it
	// finds, and each Report's OpInfo.Impl names what runs an op.
	delete(nk, "const KernelBackend")
	require.Contains(t, nk, "method *Model.Run", "the parser missed the API")
	require.Contains(t, nk, "type TensorInfo")
	keys := func(m map[string]string) []string {
		var k []string
		for n := range m {
			k = append(k, n)
		}
		sort.Strings(k)
		return k
	}
	assert.Equal(t, keys(nk), keys(nkc), "exported identifiers of nk and nkc")
	for k, v := range nk {
		if w, ok := nkc[k]; ok {
			assert.Equal(t, v, w, k)
		}
	}
}
