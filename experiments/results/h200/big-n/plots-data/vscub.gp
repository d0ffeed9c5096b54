# Charts 7 and 8: one measure per variant against n, cold L2 (left panel) and,
# where there are hot times, hot L2 (right), with a dashed reference line:
# the speed-up over CUB (ref 1, log y) or the percentage of the measured copy
# bandwidth (ref 100).
# Error bars: 95 % intervals (the data file's columns 8-11).
# Parameters: gpdir, fmt, out, w, h, ttl, sub, data (blocks per variant: n,
# cold, hot, 4 configuration columns, cold_lo, cold_hi, hot_lo, hot_hi,
# cold_source, hot_source: 2 confirmed, drawn ringed), hasconf (1: some
# point is confirmed), nvar, names, colors, pts, dts, lws, npanel (1: cold; 2: cold
# and hot), xmin, xmax, xstart, xstep, ymin, ymax, ylog, yt (y tic list, or
# ''), ylab, ref, reflab, right (screen x where the panels end; the key is
# right of it).
load gpdir.'/common.gp'
set multiplot title maintitle(ttl, sub)
set logscale x 2
set format x '2^{%L}'
set xtics xstart, xstep
set mxtics 2
set xrange [xmin:xmax]
set yrange [ymin:ymax]
if (ylog) { set logscale y 10; set format y '%g'; set mytics 10 }
if (strlen(yt) > 0) { eval('set ytics ' . yt) }
set bars small
set xlabel 'n (elements)'
set tmargin at screen 1 - 120.0/h
set bmargin at screen 70.0/h
left = 0.075
gap = 0.055
pw = (right - left - (npanel - 1) * gap) / npanel
do for [k=1:npanel] {
    set lmargin at screen left + (k - 1) * (pw + gap)
    set rmargin at screen left + (k - 1) * (pw + gap) + pw
    set title (k == 1 ? 'cold L2 (flushed before each launch)' : 'hot L2 (the same input reused)') font ',11'
    if (k == 1) { set ylabel ylab } else { unset ylabel }
    if (k == npanel) {
        set key at screen right + 0.012, screen 1 - 120.0/h left top Left reverse samplen 2.5 spacing 1.15
    } else {
        unset key
    }
    col = k + 1
    lo = 6 + 2 * k
    src = 11 + k
    plot for [i=1:nvar] data index (i-1) using 1:col:lo:lo+1 with yerrorlines lc rgb word(colors, i) \
            pt (word(pts, i)+0) ps 0.75 dt 0+word(dts, i) lw (word(lws, i)+0) title word(names, i), \
         for [i=1:nvar] data index (i-1) using 1:(column(src) == 2 ? column(col) : NaN) with points \
            pt 6 ps 1.7 lw 1.2 lc '#777777' title (i == 1 && hasconf ? 'confirmed (confirm.csv)' : ''), \
         ref with lines dt 2 lw 1.6 lc '#202020' title reflab
}
unset multiplot
