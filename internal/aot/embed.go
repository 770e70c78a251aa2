// Package aot generates C source that embeds a .nk model in firmware: the
// image as a 16-byte aligned const array (it stays in flash; the core
// binds weights in place) and a header with the exact arena size and the
// I/O tensor sizes. It is pure Go: the arena figure comes from the caller
// (the CLI asks package nk's inspect), as data.
package aot

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Tensor describes a graph input or output for the header's comments and macros.
type Tensor struct {
	Name  string
	Shape []int
	DType string // "f32", "i8", ...
	Bytes int64
	// Quantized: real = Scale * (q - ZeroPoint); the header defines both
	// for a tensor with Scale > 0.
	Scale     float32
	ZeroPoint int32
}

// Embed is everything the generated files say.
type Embed struct {
	Ident      string // C identifier prefix, e.g. "mlp"
	ModelFile  string // model file name, for the comments
	Image      []byte // the .nk image
	ArenaBytes int64  // exact arena for nk_model_load_buffer of Image
	Inputs     []Tensor
	Outputs    []Tensor
}

// Ident turns a file stem into a C identifier: letters, digits and '_',
// not starting with a digit.
func Ident(stem string) string {
	var b strings.Builder
	for _, r := range stem {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "model_" + s
	}
	return s
}

// Header returns <ident>.h.
func (e *Embed) Header() []byte {
	up := strings.ToUpper(e.Ident)
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s.h: the netkit model %s embedded by `netkit aot`. Generated; do not edit.\n", e.Ident, e.ModelFile)
	fmt.Fprintf(&b, " *\n *     static uint8_t arena_mem[%s_ARENA_SIZE] __attribute__((aligned(16)));\n", up)
	fmt.Fprintf(&b, " *     nk_arena_init(&arena, arena_mem, sizeof arena_mem);\n")
	fmt.Fprintf(&b, " *     nk_model_load_buffer(&model, %s_nk, %s_nk_len, &arena, &err);\n", e.Ident, e.Ident)
	fmt.Fprintf(&b, " *\n * The image stays where the linker puts it (flash): weights are bound in place.\n */\n")
	fmt.Fprintf(&b, "#ifndef NETKIT_MODEL_%s_H\n#define NETKIT_MODEL_%s_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n", up, up)
	fmt.Fprintf(&b, "/* Exact arena bytes for nk_model_load_buffer of this image (netkit inspect). */\n")
	fmt.Fprintf(&b, "#define %s_ARENA_SIZE %du\n", up, e.ArenaBytes)
	fmt.Fprintf(&b, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", up, len(e.Inputs), up, len(e.Outputs))
	io := func(kind string, ts []Tensor) {
		for i, t := range ts {
			fmt.Fprintf(&b, "/* %s %d \"%s\": %s %v */\n", strings.ToLower(kind), i, cComment(t.Name), t.DType, t.Shape)
			fmt.Fprintf(&b, "#define %s_%s%d_BYTES %du\n", up, kind, i, t.Bytes)
			if t.Scale > 0 {
				fmt.Fprintf(&b, "/* real = %s_%s%d_SCALE * (q - %s_%s%d_ZERO_POINT) */\n", up, kind, i, up, kind, i)
				fmt.Fprintf(&b, "#define %s_%s%d_SCALE %sf\n", up, kind, i, cFloat(t.Scale))
				fmt.Fprintf(&b, "#define %s_%s%d_ZERO_POINT (%d)\n", up, kind, i, t.ZeroPoint)
			}
		}
	}
	io("INPUT", e.Inputs)
	io("OUTPUT", e.Outputs)
	fmt.Fprintf(&b, "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n")
	fmt.Fprintf(&b, "extern const uint8_t %s_nk[%d];\nextern const size_t %s_nk_len;\n", e.Ident, len(e.Image), e.Ident)
	fmt.Fprintf(&b, "#ifdef __cplusplus\n}\n#endif\n\n#endif\n")
	return b.Bytes()
}

// cFloat is v as a C floating literal that reads back as the same float32
// (the shortest such decimal).
func cFloat(v float32) string {
	s := strconv.FormatFloat(float64(v), 'g', -1, 32)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// cComment keeps a tensor name from closing the comment it is printed in.
func cComment(s string) string { return strings.ReplaceAll(s, "*/", "* /") }

// Source returns <ident>.c.
func (e *Embed) Source() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s.c: the netkit model %s (%d B) embedded by `netkit aot`. Generated; do not edit. */\n", e.Ident, e.ModelFile, len(e.Image))
	fmt.Fprintf(&b, "#include \"%s.h\"\n\n", e.Ident)
	e.writeImage(&b)
	return b.Bytes()
}

// Combined is Header followed by the image array: one self-contained file
// for a build that takes a single source (netkit aot -o -).
func (e *Embed) Combined() []byte {
	b := bytes.NewBuffer(e.Header())
	fmt.Fprintf(b, "\n/* The netkit model %s (%d B) embedded by `netkit aot`. Generated; do not edit. */\n", e.ModelFile, len(e.Image))
	e.writeImage(b)
	return b.Bytes()
}

// writeImage writes the aligned const array and its length.
func (e *Embed) writeImage(b *bytes.Buffer) {
	b.WriteString("/* The core binds weight views into the image, which must be 16-byte aligned. */\n")
	b.WriteString("#if defined(__GNUC__) || defined(__clang__)\n#define NK_AOT_ALIGN16 __attribute__((aligned(16)))\n")
	b.WriteString("#elif defined(_MSC_VER)\n#define NK_AOT_ALIGN16 __declspec(align(16))\n")
	b.WriteString("#else\n#error \"netkit aot: no way to align the model image to 16 bytes on this compiler\"\n#endif\n\n")
	b.WriteString("#if defined(_MSC_VER)\nNK_AOT_ALIGN16 const uint8_t " + e.Ident + "_nk[" + fmt.Sprint(len(e.Image)) + "] = {\n")
	b.WriteString("#else\nconst uint8_t " + e.Ident + "_nk[" + fmt.Sprint(len(e.Image)) + "] NK_AOT_ALIGN16 = {\n#endif\n")
	for i := 0; i < len(e.Image); i += 16 {
		b.WriteString("   ")
		for _, c := range e.Image[i:min(i+16, len(e.Image))] {
			fmt.Fprintf(b, " 0x%02x,", c)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "};\n\nconst size_t %s_nk_len = sizeof %s_nk;\n", e.Ident, e.Ident)
}
