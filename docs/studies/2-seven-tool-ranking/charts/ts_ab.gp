# loadbench chart: time series
# Render: gnuplot ts_ab.gp  (writes ts_ab.png and ts_ab.svg; edit freely)
set encoding utf8
footer = "loadbench 0.1.0 (release, git c5a5b41) · AMD EPYC, 2 cores, 24105 MB, kernel 6.18.44-fc-v1045 · 2026-12-01 20:46 UTC · profile study2-seven-tool-ranking"
do for [fmt in "png svg"] {
  if (fmt eq "png") {
    set terminal pngcairo size 1000,820 font "DejaVu Sans,11" noenhanced background "white"
  } else {
    set terminal svg size 1000,820 font "DejaVu Sans,11" noenhanced background "white"
  }
  set output "ts_ab." . fmt
  reset
  set datafile separator whitespace
  set border 3 lc rgb "#444444"
  set tics nomirror
  set grid ytics lc rgb "#dddddd"
  set label 99 footer at screen 0.01, screen 0.015 font ",8" tc rgb "#666666"
  set object 1 rect from first 0.022, graph 0 to first 60.022, graph 1 behind fc rgb "#f3f3f3" fs solid 0.6 noborder
  set label 42 "hold 1000" at first 0.060, graph 0.97 font ",8" tc rgb "#888888"
  set datafile separator ","
  set multiplot layout 3,1 title "ab: CPU, memory and server-counted requests/s over time (load stages shaded)" font ",13" margins screen 0.1, screen 0.8, screen 0.1, screen 0.92 spacing screen 0.05
  set xrange [0:66]
  set yrange [0:*]
  set key outside right top vertical Left reverse
  set ylabel "CPU % (100 = one core)"
  set format x ""
  plot "../samples/ab.csv" using 1:3 skip 1 with lines lw 2 lc rgb "#D55E00" title "ab", "../samples/ab.target.csv" using 1:3 skip 1 with lines lw 1.5 dt 2 lc rgb "#777777" title "lb-target"
  set ylabel "RSS (MB)"
  plot "../samples/ab.csv" using 1:6 skip 1 with lines lw 2 lc rgb "#D55E00" title "ab"
  set ylabel "requests/s (server)"
  set xlabel "seconds since the tool started"
  set format x "%g"
  plot "../samples/ab.server.csv" using ($1+-1.478):($9 > 0 ? NaN : $3) skip 1 with linespoints lw 2 pt 7 ps 0.6 lc rgb "#D55E00" title "completed/s"
  unset multiplot
  set output
}
