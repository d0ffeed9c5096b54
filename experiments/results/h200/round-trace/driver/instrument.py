# Insert trace points into a copy of scan_lookahead_bulk.cu (fixed or drawn build).
import sys, re
src = open(sys.argv[1]).read()
def sub(pat, rep, count=1):
    global src
    new, k = re.subn(pat, rep, src, count=count, flags=re.M)
    if k != count: sys.exit("anchor not found: " + pat)
    src = new
drawn = 'tile_at[TILE_SLOTS]' in src
if drawn:
    sub(r"^(        if \(i >= 0 && t >= tiles\) break;\n)", r"\1        SLB_TOP(i, t);\n")
else:
    sub(r"^(        const unsigned q = \(unsigned\)\(i \+ \(int\)ahead\), r = \(unsigned\)i, t = b \+ r \* grid;\n)", r"\1        SLB_TOP(i, t);\n")
# after rows in registers
sub(r"^(                ring_rows<T, Op, R, VEC>\(x, ring, full, stages, r, t, in, tiles, n, tile_elems, aligned\);\n)", r"\1                SLB_TR(i, 1);\n")
# after the ahead fold block: anchor on the ahead_totals write then closing brace
sub(r"^(                if \(lane == 0\) ahead_totals\[warp\] = a;\n            \}\n)", r"\1            SLB_TR(i, 2);\n")
# looker after its fold
sub(r"^(            fold = lookahead_fold<[^\n]*\n)", r"\1            SLB_TRL(i, 6);\n")
# first barrier (the one right after the looker branch's closing)
sub(r"^(        \}\n)((?:#if SLB_DRAW_AT_TOP\n        if \(i >= 0 && threadIdx.x == 0\) tile_at\[[^\n]*\n#endif\n)?)(        __syncthreads\(\);\n        if \(looker\))",
    r"\1\2        SLB_TR(i, 3);\n        __syncthreads();\n        SLB_TR(i, 4);\n        if (looker)")
# second barrier: the __syncthreads followed by store section
if drawn:
    sub(r"^(        __syncthreads\(\);\n)(        tp = t;\n)", r"\1        SLB_TR(i, 5);\n\2")
    sub(r"^(    finish_draws\(header, grid\);\n)", r"    SLB_END();\n\1")
else:
    sub(r"^(        __syncthreads\(\);\n)(        if \(!looker && i >= 0\) \{\n            const size_t seg)", r"\1        SLB_TR(i, 5);\n\2")
    sub(r"^(    \}\n\}\n\n/\* ---- launcher)", r"    }\n    SLB_END();\n}\n\n/* ---- launcher")
sub(r"^(    dependent_launch_trigger\(\);\n)", r"\1    SLB_START();\n")
open(sys.argv[2], 'w').write('#include ".dev/trace/trace_macros.cuh"\n' + src)
