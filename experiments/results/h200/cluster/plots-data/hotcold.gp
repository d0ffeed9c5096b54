# Chart 6: hot vs cold L2 bandwidth for sizes around the L2 size, one small
# panel per variant on a common scale; the dashed vertical line is where the
# input fills the L2. Below it a hot launch reads from L2, above it from DRAM.
# Parameters: gpdir, fmt, out, w, h, ttl, sub, data (blocks per variant: n,
# bw_cold, time_cold_us, bw_hot, ..., columns 8, 9 and 12, 13 the cold and
# hot bandwidths' 95 % intervals), sel (1-based blocks to draw), nsel, rows,
# cols, names, colors, pts, dts, lws (per block), xmin, xmax, xstart, xstep,
# ymin, ymax, ylog (1: log y), yt (y tic list, or ''), l2n, l2lab.
load gpdir.'/common.gp'
set multiplot layout rows, cols title maintitle(ttl, sub) margins 0.07, 0.985, 60.0/h, 1 - 95.0/h spacing 0.045, 120.0/h
set logscale x 2
set format x '2^{%L}'
set xtics xstart, xstep
set mxtics 2
set xrange [xmin:xmax]
set yrange [ymin:ymax]
if (ylog) { set logscale y 10; set format y '%g'; set mytics 10 }
if (strlen(yt) > 0) { eval('set ytics ' . yt) }
set bars small
set arrow 1 from l2n, graph 0 to l2n, graph 1 nohead dt 2 lc '#666666' lw 1.2
set label 1 l2lab at l2n, graph 0.97 right offset -0.4, 0 font ',8' tc '#555555'
set key top left samplen 2 font ',8' spacing 0.9
do for [k=1:nsel] {
    i = word(sel, k) + 0
    set title word(names, i) noenhanced font ',10'
    if (k > 1) { set key off }
    if ((k - 1) % cols == 0) { set ylabel 'GB/s' } else { unset ylabel }
    plot data index (i-1) using 1:2:8:9 with yerrorlines lc rgb word(colors, i) pt (word(pts, i)+0) ps 0.6 \
            lw 1.6 title 'cold', \
         '' index (i-1) using 1:4:12:13 with yerrorlines lc rgb word(colors, i) dt 2 pt (word(pts, i)+0) ps 0.45 \
            lw 1.6 title 'hot'
}
unset multiplot
