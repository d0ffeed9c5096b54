# Chart 3: hardware metrics per variant at one n, one panel each: warp
# efficiency (all threads and predicated-on threads), shared-memory bank
# conflicts (loads and stores, log scale), DRAM throughput as a share of the
# peak, achieved occupancy. Panels without data are left out.
# Parameters: gpdir, fmt, out, w, h, ttl, sub, data (one line per variant: y,
# name, warp %, predicated-on warp %, bank ld, bank st, dram %, occupancy %,
# colour, marker (the variant's point type, drawn beside its solid bar in each panel as the ladder
# does), bank ld label, bank st label, then per panel "n/a" or "";
# '?' where absent), yt (the names as a tic list), ymax, has_warp, has_bank, has_dram, has_occ,
# has_pred (predicated-on warp efficiency present), dram_lab, bank_max, bank_step, left (screen x where the panels begin).
load gpdir.'/common.gp'
set multiplot title maintitle(ttl, sub)
set yrange [ymax+0.7:-0.7]
set ytics scale 0 noenhanced
eval('set ytics ' . yt)
set grid noytics
set border 1
set tmargin at screen 1 - 110.0/h
set bmargin at screen 88.0/h
np = has_warp + has_bank + has_dram + has_occ
pw = (0.985 - left) / np
k = 0
set key at graph 1, graph 1.015 bottom right horizontal samplen 1.5 font ',9'
# the marker about 10 pixels past its bar's end, the value label about 20:
# in axis units on the linear panels (0..115), as factors on the log one
ppx = (pw - 0.024) * w
mko = 10.0 * 115 / ppx
lbo = 20.0 * 115 / ppx

if (has_warp) {
    set lmargin at screen left + k*pw + (k > 0 ? 0.012 : 0)
    set rmargin at screen left + (k+1)*pw - 0.012
    set xrange [0:115]
    set xtics 0, 25, 100
    set xlabel "warp efficiency\n(% of 32 threads)"
    # (an empty `for` would still read the file and warn: the optional part is spliced in)
    pred = "'' using (($4)/2):($1+0.2):(0):4:($1+0.02):($1+0.38):9 " . \
           "with boxxyerror fs solid 0.35 noborder lc rgb variable title 'predicated-on', " . \
           "'' using ($4+2):($1+0.2):(sprintf('%.0f', $4)) with labels left font ',8' notitle, "
    eval("plot data using (($3)/2):($1-0.2):(0):3:($1-0.38):($1-0.02):9 " . \
         "with boxxyerror fs solid 0.9 noborder lc rgb variable title 'all', " . (has_pred ? pred : '') . \
         "'' using ($3+mko):($1-0.2):10:9 with points pt variable lc rgb variable ps 0.9 notitle, " . \
         "'' using ($3+lbo):($1-0.2):(sprintf('%.0f', $3)) with labels left font ',8' notitle, " . \
         "'' using (1):1:13 with labels left font ',8' tc '#999999' notitle")
    k = k + 1
    unset ytics
}
if (has_bank) {
    set lmargin at screen left + k*pw + (k > 0 ? 0.012 : 0)
    set rmargin at screen left + (k+1)*pw - 0.012
    set logscale x 10
    set format x '10^{%L}'
    set xrange [0.5:bank_max]
    set xtics bank_step
    set xlabel "shared bank conflicts\n(count, log scale; 0 at the floor)"
    mkf = (bank_max / 0.5) ** (10.0 / ppx)
    lbf = (bank_max / 0.5) ** (20.0 / ppx)
    plot data using (0.5):($1-0.2):(0.5):($5 > 0.5 ? $5 : 0.5):($1-0.38):($1-0.02):9 \
            with boxxyerror fs solid 0.9 noborder lc rgb variable title 'loads', \
         '' using (0.5):($1+0.2):(0.5):($6 > 0.5 ? $6 : 0.5):($1+0.02):($1+0.38):9 \
            with boxxyerror fs solid 0.35 noborder lc rgb variable title 'stores', \
         '' using (($5 > 0.5 ? $5 : 0.5)*mkf):($1-0.2):10:9 with points pt variable lc rgb variable ps 0.9 notitle, \
         '' using (($5 > 0.5 ? $5 : 0.5)*lbf):($1-0.2):11 with labels left font ',8' notitle, \
         '' using (($6 > 0.5 ? $6 : 0.5)*1.25):($1+0.2):12 with labels left font ',8' notitle, \
         '' using (0.6):1:14 with labels left font ',8' tc '#999999' notitle
    unset logscale x
    set format x '%g'
    k = k + 1
    unset ytics
}
if (has_dram) {
    set lmargin at screen left + k*pw + (k > 0 ? 0.012 : 0)
    set rmargin at screen left + (k+1)*pw - 0.012
    set xrange [0:115]
    set xtics 0, 25, 100
    set xlabel dram_lab
    plot data using (($7)/2):1:(0):7:($1-0.36):($1+0.36):9 \
            with boxxyerror fs solid 0.9 noborder lc rgb variable notitle, \
         '' using ($7+mko):1:10:9 with points pt variable lc rgb variable ps 0.9 notitle, \
         '' using ($7+lbo):1:(sprintf('%.0f%%', $7)) with labels left font ',8' notitle, \
         '' using (1):1:15 with labels left font ',8' tc '#999999' notitle
    k = k + 1
    unset ytics
}
if (has_occ) {
    set lmargin at screen left + k*pw + (k > 0 ? 0.012 : 0)
    set rmargin at screen left + (k+1)*pw - 0.012
    set xrange [0:115]
    set xtics 0, 25, 100
    set xlabel "achieved occupancy\n(% of peak warps)"
    plot data using (($8)/2):1:(0):8:($1-0.36):($1+0.36):9 \
            with boxxyerror fs solid 0.9 noborder lc rgb variable notitle, \
         '' using ($8+mko):1:10:9 with points pt variable lc rgb variable ps 0.9 notitle, \
         '' using ($8+lbo):1:(sprintf('%.0f%%', $8)) with labels left font ',8' notitle, \
         '' using (1):1:16 with labels left font ',8' tc '#999999' notitle
    k = k + 1
}
unset multiplot
