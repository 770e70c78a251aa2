// Command svdfvariant writes a copy of a TFLite SVDF model with its
// constant weights rescaled (testmodels.RescaleSVDF): the variant of
// tflm_keyword_scrambled_8bit whose TFLite Micro outputs
// testdata/gen/tflm_svdf.sh records.
//
//	go run ./internal/tools/svdfvariant -in MODEL.tflite -out VARIANT.tflite \
//	    -feature 1 -time 0.3 -bias 1e-6 -fc 0.3
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/netkit/netkit/internal/testmodels"
)

func main() {
	in := flag.String("in", "", "TFLite model")
	out := flag.String("out", "", "variant to write")
	var r testmodels.SVDFRescale
	r.Flags(flag.CommandLine)
	flag.Parse()
	if err := run(*in, *out, r); err != nil {
		fmt.Fprintln(os.Stderr, "svdfvariant:", err)
		os.Exit(1)
	}
}

func run(in, out string, r testmodels.SVDFRescale) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	v, err := testmodels.RescaleSVDF(b, r)
	if err != nil {
		return err
	}
	return os.WriteFile(out, v, 0o644)
}
