// Package gen renders, from the templates here, the public API of packages
// nk and nkc (api.go), the test hooks their tests share (export_test.go),
// and the report types the shared engine fills (report.go), declared once
// in report.go.tmpl and included in api.go; cmd apigen writes them and a
// test checks the files are current.
package gen

import (
	"bytes"
	"embed"
	"fmt"
	"go/format"
	"text/template"
)

//go:embed *.tmpl
var templates embed.FS

// Package is a package with generated files.
type Package struct {
	Name  string   // package name, the templates' {{.Pkg}}
	Dir   string   // directory under the module root
	Files []string // files written there, each from <file>.tmpl
}

// Packages are the packages with generated files.
var Packages = []Package{
	{"nk", "nk", []string{"api.go", "export_test.go"}},
	{"nkc", "nkc", []string{"api.go", "export_test.go"}},
	{"engine", "internal/engine", []string{"report.go"}},
}

// Find returns the package named name.
func Find(name string) (Package, error) {
	for _, p := range Packages {
		if p.Name == name {
			return p, nil
		}
	}
	return Package{}, fmt.Errorf("package %q: want nk, nkc or engine", name)
}

// Source returns the gofmt'ed file (one of its Files) of package p.
func Source(p Package, file string) ([]byte, error) {
	t, err := template.ParseFS(templates, file+".tmpl", "report.go.tmpl")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, struct{ Pkg string }{p.Name}); err != nil {
		return nil, err
	}
	return format.Source(b.Bytes())
}
