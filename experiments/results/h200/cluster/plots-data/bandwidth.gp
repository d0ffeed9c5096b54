# Chart 1: cold bandwidth vs n, one line per variant, with the theoretical
# peak and the measured copy bandwidth as horizontal lines; error bars: the
# median's 95 % interval.
# Parameters: gpdir, fmt, out, w, h, ttl, sub, data (blocks per variant:
# n, bw_cold, ..., column 8 and 9 the interval's low and high), nvar, names,
# colors, pts, dts, lws (space-separated, one per block), peak, copy (GB/s;
# NaN when unknown), xmin, xmax, xstart (first tic), xstep, ymin, ymax, ylog
# (1: log y, the values span decades), yt (y tic list, or ''), ylab.
load gpdir.'/common.gp'
set title maintitle(ttl, sub)
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
set ylabel ylab
set key outside right top vertical Left reverse samplen 2.5 spacing 1.15 width 1
plot for [i=1:nvar] data index (i-1) using 1:2:8:9 with yerrorlines lc rgb word(colors, i) \
        pt (word(pts, i)+0) ps 0.75 dt 0+word(dts, i) lw (word(lws, i)+0) title word(names, i), \
     (peak > 0 ? peak : NaN) with lines dt 2 lw 1.6 lc '#202020' \
        title (peak > 0 ? sprintf('theoretical peak %.0f GB/s', peak) : ''), \
     (copy > 0 ? copy : NaN) with lines dt 4 lw 1.6 lc '#808080' \
        title (copy > 0 ? sprintf('measured copy %.0f GB/s', copy) : '')
