"""Op ids and names of the .nk format for the generator scripts, read from
internal/nkfile/ops.tsv: the one list the C enum and Go's constants are
generated from, so the scripts cannot disagree with them."""
import os

_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "..", "..", "internal", "nkfile", "ops.tsv")


def _read():
    ids = {}
    with open(_TABLE) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                op_id, name, _go = line.split("\t")
                ids[name] = int(op_id)
    return ids


OP_IDS = _read()                                 # "conv2d" -> 2
OP_NAMES = {i: n for n, i in OP_IDS.items()}     # 2 -> "conv2d"
