# Chart 4: bandwidth over block dim x the variant's own axis for one coarsened
# variant at one n. Cells that were skipped or failed are hatched grey; the
# fastest cell is outlined.
# Parameters: gpdir, fmt, out, w, h, ttl, sub, data (index 0: x, y, bw,
# label, label colour; index 1: x, y, label of the empty cells; index 2: the
# best cell's x, y), nx, ny, xt, yt (tic lists), xl (the variant's own axis and
# its unit), cbmin, cbmax, hasmissing.
load gpdir.'/common.gp'
set title maintitle(ttl, sub)
set border 0
set grid noxtics noytics
set xrange [-0.5:nx-0.5]
set yrange [-0.5:ny-0.5]
eval('set xtics scale 0 ' . xt)
eval('set ytics scale 0 ' . yt)
set xlabel xl
set ylabel 'block dim (threads)'
set cblabel 'bandwidth, cold (GB/s)' offset 1.5, 0
set cbrange [cbmin:cbmax]
set cbtics out scale 0.5
set palette defined (0 '#440154', 0.15 '#482878', 0.3 '#3e4989', 0.45 '#31688e', 0.6 '#26828e', \
                     0.7 '#1f9e89', 0.8 '#35b779', 0.9 '#6ece58', 1 '#fde725')
set style fill solid 1.0 noborder
# (an empty `for` would still read the file and warn: the optional part is spliced in)
missing = "'' index 1 using 1:2:(0.5):(0.5) with boxxyerror fs pattern 4 lc '#c8c8c8' notitle, " . \
          "'' index 1 using 1:2:3 with labels tc '#666666' font ',8' notitle, "
eval("plot data index 0 using 1:2:(0.5):(0.5):3 with boxxyerror fc palette notitle, " . \
     "'' index 0 using 1:2:4:5 with labels tc rgb variable font ',9' notitle, " . (hasmissing ? missing : '') . \
     "'' index 2 using 1:2:(0.46):(0.46) with boxxyerror fs empty lc rgb '#e8112d' lw 3 notitle")
