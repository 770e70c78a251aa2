// Package gen renders the public API of packages nk and nkc, and the
// test hooks their tests share, from the templates here; cmd apigen writes
// them and a test checks the files are current.
package gen

import (
	"bytes"
	"embed"
	"fmt"
	"go/format"
	"text/template"
)

//go:embed api.go.tmpl export_test.go.tmpl
var templates embed.FS

// Packages are the packages that carry the API.
var Packages = []string{"nk", "nkc"}

// Files are the files rendered into each package, each from Files[i]+".tmpl".
var Files = []string{"api.go", "export_test.go"}

// Source returns the gofmt'ed file (one of Files) of package pkg.
func Source(pkg, file string) ([]byte, error) {
	if pkg != "nk" && pkg != "nkc" {
		return nil, fmt.Errorf("package %q: want nk or nkc", pkg)
	}
	t, err := template.ParseFS(templates, file+".tmpl")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, struct{ Pkg string }{pkg}); err != nil {
		return nil, err
	}
	return format.Source(b.Bytes())
}
