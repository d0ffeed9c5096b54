# Chart 2: the reduction ladder at one n, in registry order (the seeds'
# tables), the library baseline set apart at the bottom. Left: cold median
# time; right: cumulative speedup against the baseline rung, with the step
# speedup over the rung above.
# Parameters: gpdir, fmt, out, w, h, ttl, sub, data (one line per bar: y,
# name, time_us, cumulative, step, colour (integer), time label ("fastest"
# on the lowest time), speedup label, marker, time_lo_us, time_hi_us (the
# median's 95 % interval)), ymax (last bar's y), txmin, txmax, tt (the time axis; tt a tic
# list or ''), sxmin, sxmax, st (the speedup axis), base (the baseline's
# name), left (screen x where the bars begin), split (screen x between the
# panels), mkf, lbf (factors past the interval's end where the marker and the
# time label go: a fixed distance in pixels on the log axis).
load gpdir.'/common.gp'
set multiplot title maintitle(ttl, sub)
set yrange [ymax+0.7:-0.7]
set ytics scale 0 noenhanced
set grid noytics
set border 1
set tmargin at screen 1 - 90.0/h
set bmargin at screen 78.0/h

# left: time
set lmargin at screen left
set rmargin at screen split - 0.02
set logscale x 10
set format x '%g'
set xrange [txmin:txmax]
if (strlen(tt) > 0) { eval('set xtics ' . tt) }
set xlabel 'cold median time (µs, log scale)'
set mxtics 10
plot data using (sqrt(txmin*$3)):1:(txmin):3:($1-0.36):($1+0.36):6:ytic(2) \
        with boxxyerror fs solid 0.9 noborder lc rgb variable notitle, \
     '' using 3:1:10:11 with xerrorbars pt -1 lc '#333333' lw 1.2 notitle, \
     '' using ($11*mkf):1:9:6 with points pt variable lc rgb variable ps 1.1 notitle, \
     '' using ($11*lbf):1:7 with labels left font ',9' notitle

# right: speedup
set lmargin at screen split + 0.02
set rmargin at screen 0.985
unset ytics
set xrange [sxmin:sxmax]
set xtics autofreq
if (strlen(st) > 0) { eval('set xtics ' . st) }
set xlabel sprintf("cumulative speedup vs %s (×, log scale)\nstep: over the rung above", base) noenhanced
set arrow 1 from 1, graph 0 to 1, graph 1 nohead lc '#555555' lw 1.2
plot data using (sqrt($4)):1:(($4<1)?$4:1):(($4<1)?1:$4):($1-0.36):($1+0.36):6 \
        with boxxyerror fs solid 0.9 noborder lc rgb variable notitle, \
     '' using (($4<1?1:$4)*1.12):1:8 with labels left font ',9' notitle
unset multiplot
