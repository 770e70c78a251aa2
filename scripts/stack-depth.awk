# stack-depth.awk — worst-case stack depth of each entry point, from gcc's
# -fcallgraph-info=su call graphs (.ci: per-function frame and direct
# calls) of every object of the library. scripts/size-report.sh feeds it:
#
#   FIELD <name> <offset>      a function-pointer field of nk_op_def
#   RELOC <section> <offset> <symbol>   each absolute relocation (objdump -r)
#   ENTRY <name>               a public entry point (NK_API in netkit.h)
#   the .ci files
#
# A pointer call is resolved by the name it is called through in the source
# (at the call's line:column): an nk_op_def field (op->def->eval(...)) can
# reach every function stored in that field of any op table entry; any other
# pointer (a comparator parameter, say) every function whose address the
# code takes. A function already on the path is not entered again, so one
# validate delegating to another counts once (real recursion is reported).
#
# Prints "<entry> <own frame> <depth> <chain>" per defined entry point, then
# RECURSION / DYNAMIC / UNRESOLVED / EXTERNAL lines for what the depth
# cannot bound or does not count.
$1 == "FIELD" { field_at[$3] = $2; next }
$1 == "RELOC" {
    if ($4 ~ /^\./) next # a section symbol: string literals and the like
    if ($2 ~ /^\.text/) cls = "code"
    else if ($3 in field_at) cls = field_at[$3]
    else cls = "data"
    addr_cls[$4] = addr_cls[$4] " " cls " "
    next
}
$1 == "ENTRY" { entries[++n_entries] = $2; next }
/^node:/ {
    t = quoted("title")
    if (match($0, /\\n[0-9]+ bytes \([a-z,]+\)/)) {
        split(substr($0, RSTART + 2, RLENGTH - 2), p, " ")
        frame[t] = p[1] + 0
        if (p[3] != "(static)") dynamic[t] = p[3]
        n_defined++
    }
    next
}
/^edge:/ {
    s = quoted("sourcename")
    d = quoted("targetname")
    if (d == "__indirect_call") d = "__indirect_call " site_class(quoted("label"))
    callees[s] = callees[s] SUBSEP d
    next
}

function quoted(key,   re) {
    re = key ": \"[^\"]*\""
    if (!match($0, re)) return ""
    return substr($0, RSTART + length(key) + 3, RLENGTH - length(key) - 4)
}

# The name a pointer call at file:line:col is made through: the last
# identifier before the first "(" from that column.
function site_class(where,   parts, file, line, col, text, i, id) {
    split(where, parts, ":")
    file = parts[1]; line = parts[2] + 0; col = parts[3] + 0
    if (!((file, line) in src)) {
        i = 0
        while ((getline text < file) > 0) src[file, ++i] = text
        close(file)
    }
    text = substr(src[file, line], col)
    sub(/\(.*/, "", text)
    id = text
    sub(/.*[^A-Za-z0-9_]/, "", id)
    for (i in field_at) if (field_at[i] == id) return id
    return "code"
}

function name_of(t) { sub(/.*:/, "", t); return t }

# Depth of t below and including its frame; best_path[t] the chain. Values
# computed while a function on the path was skipped are not memoised.
function depth(t,   cls, a, n, cs, i, d, best, via, bp, saved_cut) {
    if (t in memo) return memo[t]
    if (t ~ /^__indirect_call /) {
        cls = substr(t, 17)
        best = 0; via = ""
        for (a in frame) {
            if (index(addr_cls[name_of(a)], " " cls " ") == 0) continue
            if (a in on_path) { cut = 1; continue }
            d = depth(a)
            if (d > best || via == "") { best = d; via = a; bp = path_of[a] }
        }
        path_of[t] = bp
        return best
    }
    if (!(t in frame)) {
        if (t ~ /:/) unresolved[t] = 1; else external[t] = 1
        path_of[t] = ""
        return 0
    }
    if (t in on_path) { recursion[t] = 1; return 0 }
    on_path[t] = 1
    saved_cut = cut; cut = 0
    best = 0; via = ""
    n = split(callees[t], cs, SUBSEP)
    for (i = 2; i <= n; i++) {
        d = depth(cs[i])
        if (d > best || via == "") { best = d; via = cs[i]; bp = path_of[cs[i]] }
    }
    delete on_path[t]
    path_of[t] = name_of(t) "(" frame[t] ")" (bp == "" ? "" : " > " bp)
    if (!cut) memo[t] = frame[t] + best
    cut = cut || saved_cut
    return frame[t] + best
}

END {
    if (n_defined == 0) { print "stack-depth.awk: no call graph nodes" > "/dev/stderr"; exit 1 }
    for (i = 1; i <= n_entries; i++) {
        e = entries[i]
        if (!(e in frame)) continue
        cut = 0
        d = depth(e)
        print e, frame[e], d, path_of[e]
    }
    for (t in recursion) print "RECURSION", t
    for (t in dynamic) print "DYNAMIC", t, dynamic[t]
    for (t in unresolved) print "UNRESOLVED", t
    x = ""
    for (t in external) x = x " " t
    print "EXTERNAL" x
}
