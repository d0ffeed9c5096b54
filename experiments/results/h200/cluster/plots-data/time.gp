# Chart 5: cold time vs n, log-log, the library baseline in bold, and the
# time the bytes moved would take at the theoretical peak: where the lines
# leave the flat launch-latency floor and follow that slope, bandwidth rules.
# Parameters: gpdir, fmt, out, w, h, ttl, sub, data (blocks per variant:
# n, bw_cold, time_cold_us, ..., columns 10 and 11 the median's 95 %
# interval (error bars); block nvar: n, ideal_us when hasideal),
# nvar, names, colors, pts, dts, lws, yt (y tic list, or ''), xmin, xmax, xstart (first tic), ymin, ymax, xstep, hasideal.
load gpdir.'/common.gp'
set title maintitle(ttl, sub)
set logscale x 2
set logscale y 10
set format x '2^{%L}'
set format y '%g'
if (strlen(yt) > 0) { eval('set ytics ' . yt) }
set xtics xstart, xstep
set mxtics 2
set mytics 10
set xrange [xmin:xmax]
set yrange [ymin:ymax]
set xlabel 'n (elements)'
set ylabel 'time, cold median (µs, log scale)'
set bars small
set key outside right top vertical Left reverse samplen 2.5 spacing 1.15 width 1
# (an empty `for` would still read the file and warn: the optional part is spliced in)
ideal = ", data index nvar using 1:2 with lines dt 2 lw 1.6 lc '#202020' title 'bytes moved ÷ theoretical peak'"
eval("plot for [i=1:nvar] data index (i-1) using 1:3:10:11 with yerrorlines lc rgb word(colors, i) " . \
     "pt (word(pts, i)+0) ps 0.75 dt 0+word(dts, i) lw (word(lws, i)+0) title word(names, i)" . \
     (hasideal ? ideal : ''))
