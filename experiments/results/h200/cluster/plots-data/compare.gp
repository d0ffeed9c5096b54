# `sweep compare`: the speed-up of NEW over BASE (BASE median / NEW median)
# per configuration against n, one chart per variant. Above 1: NEW faster.
# The shaded band is the threshold a change must exceed to count (per n, the
# widest of its configurations); the bars are 95 % intervals. The verdict is
# in the colour and the marker (circle same, triangle up faster, down
# slower); filled: cold, open: hot.
# Parameters: gpdir, fmt, out, w, h, ttl, sub, data (index 0: cold points
# n, speed-up, low, high, colour, marker; index 1: hot points, the same; index 2: the
# band n, low, high), hascold, hashot, xmin, xmax, ymin, ymax, logy (1: the
# speed-ups span more than 4x, a log scale keeps 2x and 1/2x equally far from 1).
load gpdir.'/common.gp'
set title maintitle(ttl, sub)
set logscale x 2
if (logy) { set logscale y 2 }
set format x '2^{%L}'
set format y '%.3f'
set xrange [xmin:xmax]
set yrange [ymin:ymax]
set mxtics 2
set mytics 2
set xlabel 'n (elements)'
set ylabel 'speed-up of NEW (BASE median ÷ NEW median)'
set key outside right top vertical Left reverse samplen 2.5 spacing 1.15 width 1
band = "data index 2 using 1:2:3 with filledcurves fc rgb '#d9e2ec' fs solid 1.0 noborder title 'threshold (noise band)'"
one = ", 1 with lines lc rgb '#202020' dt 2 lw 1.4 title 'no change'"
cold = ", data index 0 using 1:2:3:4:6:5 with yerrorbars pt variable lc rgb variable ps 0.9 lw 1.2 notitle"
hot = ", data index 1 using 1:2:3:4:6:5 with yerrorbars pt variable lc rgb variable ps 1.0 lw 1.0 notitle"
key = ", NaN with points pt 9 ps 1.1 lc rgb '#0072b2' title 'NEW faster', " . \
      "NaN with points pt 11 ps 1.1 lc rgb '#d55e00' title 'NEW slower', " . \
      "NaN with points pt 7 ps 1.1 lc rgb '#7a7a7a' title 'same', " . \
      "NaN with points pt 7 lc rgb '#444444' title 'filled: cold L2', " . \
      "NaN with points pt 6 lc rgb '#444444' title 'open: hot L2'"
eval('plot ' . band . one . (hascold ? cold : '') . (hashot ? hot : '') . key)
