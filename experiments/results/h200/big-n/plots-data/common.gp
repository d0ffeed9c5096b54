# Shared set-up of every chart, loaded first by each script.
# Parameters (gnuplot -e): fmt ('png' or 'svg'), out (the output file),
# w, h (pixels). Titles arrive as enhanced text with its specials escaped.
if (fmt eq 'svg') {
    set terminal svg size w,h enhanced font 'DejaVu Sans,10' fontscale 1.3 background '#ffffff' linewidth 1.2 rounded
} else {
    set terminal pngcairo size w,h enhanced font 'DejaVu Sans,10' background '#ffffff' linewidth 1.2 rounded
}
set output out
set encoding utf8
set datafile missing '?'
set border 3 lc '#444444'
set tics nomirror out scale 0.6
set grid xtics ytics lc '#e4e4e4' lw 1 dt 1
set key noenhanced
# the title: a bold first line and a smaller subtitle
maintitle(t, s) = '{/:Bold ' . t . "}\n{/*0.85 " . s . '}'
