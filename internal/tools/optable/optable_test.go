package optable

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/tools/srchash"
)

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := srchash.ModuleRoot(".")
	require.NoError(t, err)
	return root
}

// TestGeneratedFilesFresh fails when csrc/nk_op_ids.h or
// internal/nkfile/ops_gen.go is not what ops.tsv makes.
func TestGeneratedFilesFresh(t *testing.T) {
	root := moduleRoot(t)
	files, err := Generate(root)
	require.NoError(t, err)
	require.Len(t, files, 2)
	for path, want := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		require.NoError(t, err)
		if string(got) != string(want) {
			t.Errorf("%s is stale: run go generate ./internal/nkfile && go generate ./nk", path)
		}
	}
}

// The table keeps the ids files depend on (a few fixed points), the runs
// 1..38 and 64.., and ids 39 and 44..63 reserved (ids need only ascend).
func TestTableIDs(t *testing.T) {
	ops, err := Read(moduleRoot(t))
	require.NoError(t, err)
	byName := map[string]uint16{}
	for _, o := range ops {
		byName[o.Name] = o.ID
	}
	for name, id := range map[string]uint16{"dense": 1, "batch_norm": 7, "transpose": 20, "conv2d_i8": 64, "dequantize": 75} {
		assert.Equal(t, id, byName[name], name)
	}
	assert.Len(t, ops, 57)
	assert.Equal(t, uint16(44), floatEnd(ops))
}

var (
	docsOpRow = regexp.MustCompile("(?m)^\\| (\\d+) \\| `([A-Z0-9_]+)` \\|")
	docsNext  = regexp.MustCompile("(?m)^## ")
)

// The op tables of docs/NK_FORMAT.md list exactly the table's ids and
// names (upper case).
func TestDocsOpTables(t *testing.T) {
	root := moduleRoot(t)
	ops, err := Read(root)
	require.NoError(t, err)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "NK_FORMAT.md"))
	require.NoError(t, err)
	text := string(doc)
	start := strings.Index(text, "## `OPS`")
	require.GreaterOrEqual(t, start, 0, "no OPS section in NK_FORMAT.md")
	section := text[start+1:]
	if end := docsNext.FindStringIndex(section); end != nil {
		section = section[:end[0]]
	}
	var got, want []string
	for _, m := range docsOpRow.FindAllStringSubmatch(section, -1) {
		got = append(got, m[1]+" "+m[2])
	}
	for _, o := range ops {
		want = append(want, strconv.Itoa(int(o.ID))+" "+strings.ToUpper(o.Name))
	}
	assert.Equal(t, want, got)
}

func TestParseRejects(t *testing.T) {
	for text, msg := range map[string]string{
		"3\tdense\tOpDense\n2\tconv2d\tOpConv2D\n": "id 2, want 4 or above",
		"0\tdense\tOpDense\n":                      "id 0, want 1 or above",
		"1\tdense\tOpDense\n65\ta_i8\tOpA\n":       "id 65, want 2 or above",
		"1\tdense\tOpDense\n2\tdense\tOpDense2\n":  "listed twice",
		"1\tdense\tOpDense\n2\tconv\tOpDense\n":    "listed twice",
		"1\tDense\tOpDense\n":                      "lower-case",
		"1\ta_name_that_is_far_too_long\tOpA\n":    "shorter than 24",
		"1\tdense\tDense\n":                        "start with Op",
		"1 dense OpDense\n":                        "separated by tabs",
		"# nothing\n":                              "no ops",
	} {
		_, err := Parse([]byte(text))
		assert.ErrorContains(t, err, msg, "%q", text)
	}
	ops, err := Parse([]byte("# c\n1\tdense\tOpDense\n3\tgapped\tOpGapped\n\n64\tdense_i8\tOpDenseI8\n"))
	require.NoError(t, err)
	assert.Equal(t, []Op{{1, "dense", "OpDense"}, {3, "gapped", "OpGapped"}, {64, "dense_i8", "OpDenseI8"}}, ops)
	assert.Equal(t, "NK_OP_DENSE_I8", ops[2].CName())
}
