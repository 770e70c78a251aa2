// Package gen renders the public API of packages nk and nkc from
// api.go.tmpl; cmd apigen writes it and a test checks the files are
// current.
package gen

import (
	"bytes"
	_ "embed"
	"fmt"
	"go/format"
	"text/template"
)

//go:embed api.go.tmpl
var tmpl string

// Packages are the packages that carry the API.
var Packages = []string{"nk", "nkc"}

// Source returns the gofmt'ed api.go of package pkg.
func Source(pkg string) ([]byte, error) {
	if pkg != "nk" && pkg != "nkc" {
		return nil, fmt.Errorf("package %q: want nk or nkc", pkg)
	}
	t, err := template.New("api").Parse(tmpl)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, struct{ Pkg string }{pkg}); err != nil {
		return nil, err
	}
	return format.Source(b.Bytes())
}
