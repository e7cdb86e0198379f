# loadbench chart: time series
# Render: gnuplot ts_wrk.gp  (writes ts_wrk.png and ts_wrk.svg; edit freely)
set encoding utf8
footer = "loadbench 0.1.0 (release, git c5a5b41) · AMD EPYC, 2 cores, 24105 MB, kernel 6.18.44-fc-v1045 · 2026-12-01 20:46 UTC · profile study2-seven-tool-ranking"
do for [fmt in "png svg"] {
  if (fmt eq "png") {
    set terminal pngcairo size 1000,820 font "DejaVu Sans,11" noenhanced background "white"
  } else {
    set terminal svg size 1000,820 font "DejaVu Sans,11" noenhanced background "white"
  }
  set output "ts_wrk." . fmt
  reset
  set datafile separator whitespace
  set border 3 lc rgb "#444444"
  set tics nomirror
  set grid ytics lc rgb "#dddddd"
  set label 99 footer at screen 0.01, screen 0.015 font ",8" tc rgb "#666666"
  set object 1 rect from first 0.080, graph 0 to first 60.080, graph 1 behind fc rgb "#f3f3f3" fs solid 0.6 noborder
  set label 42 "hold 1000" at first 0.115, graph 0.97 font ",8" tc rgb "#888888"
  set datafile separator ","
  set multiplot layout 3,1 title "wrk: CPU, memory and server-counted requests/s over time (load stages shaded)" font ",13" margins screen 0.1, screen 0.8, screen 0.1, screen 0.92 spacing screen 0.05
  set xrange [0:61]
  set yrange [0:*]
  set key outside right top vertical Left reverse
  set ylabel "CPU % (100 = one core)"
  set format x ""
  plot "../samples/wrk.csv" using 1:3 skip 1 with lines lw 2 lc rgb "#E69F00" title "wrk", "../samples/wrk.target.csv" using 1:3 skip 1 with lines lw 1.5 dt 2 lc rgb "#777777" title "lb-target"
  set ylabel "RSS (MB)"
  plot "../samples/wrk.csv" using 1:6 skip 1 with lines lw 2 lc rgb "#E69F00" title "wrk"
  set ylabel "requests/s (server)"
  set xlabel "seconds since the tool started"
  set format x "%g"
  plot "../samples/wrk.server.csv" using ($1+-1.420):($9 > 0 ? NaN : $3) skip 1 with linespoints lw 2 pt 7 ps 0.6 lc rgb "#E69F00" title "completed/s"
  unset multiplot
  set output
}
