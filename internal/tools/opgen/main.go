// Command opgen writes the files made from the op table
// internal/nkfile/ops.tsv: csrc/nk_op_ids.h and internal/nkfile/ops_gen.go.
// Run through `go generate ./internal/nkfile` (then `go generate ./nk`, as
// the C sources changed).
package main

import (
	"log"
	"os"
	"path/filepath"

	"github.com/netkit/netkit/internal/tools/optable"
	"github.com/netkit/netkit/internal/tools/srchash"
)

func main() {
	root, err := srchash.ModuleRoot(".")
	if err != nil {
		log.Fatalf("opgen: no go.mod above the current folder: %v", err)
	}
	files, err := optable.Generate(root)
	if err != nil {
		log.Fatalf("opgen: %v", err)
	}
	for path, b := range files {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(path)), b, 0o644); err != nil {
			log.Fatalf("opgen: %v", err)
		}
	}
}
