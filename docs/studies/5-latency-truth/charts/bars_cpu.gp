# loadbench chart: CPU average (100 % = one core)
# Render: gnuplot bars_cpu.gp  (writes bars_cpu.png and bars_cpu.svg; edit freely)
set encoding utf8
footer = "loadbench 0.1.0 (release, git c5a5b41) · AMD EPYC, 2 cores, 24105 MB, kernel 6.18.44-fc-v1045 · 2026-12-01 20:22 UTC · profile study5-latency-truth"
do for [fmt in "png svg"] {
  if (fmt eq "png") {
    set terminal pngcairo size 1000,560 font "DejaVu Sans,11" noenhanced background "white"
  } else {
    set terminal svg size 1000,560 font "DejaVu Sans,11" noenhanced background "white"
  }
  set output "bars_cpu." . fmt
  reset
  set datafile separator whitespace
  set border 3 lc rgb "#444444"
  set tics nomirror
  set grid ytics lc rgb "#dddddd"
  set label 99 footer at screen 0.01, screen 0.015 font ",8" tc rgb "#666666"
  set title "CPU average (100 % = one core), one run per tool" font ",13"
  set ylabel "% (log scale)"
  set logscale y
  set yrange [1:1000]
  set xrange [-0.6:11.6]
  set style fill solid 0.85 border lc rgb "#333333"
  set boxwidth 0.6
  set xtics rotate by -25 left
  set bmargin 7
  set key outside right top vertical Left reverse noautotitle
  plot "bars_cpu.dat" using 1:(strcol(8) eq "ok" ? $3 : NaN):7:xtic(2) with boxes lc rgb variable notitle, \
       "bars_cpu.dat" using 1:5:10 with labels center offset 0,0.8 font ",9" tc rgb "#222222" notitle, \
       keyentry with boxes lc rgb "#0072B2" title "lb-gen", \
       keyentry with boxes lc rgb "#E69F00" title "lb-gen-closed", \
       keyentry with boxes lc rgb "#009E73" title "wrk", \
       keyentry with boxes lc rgb "#D55E00" title "ab", \
       keyentry with boxes lc rgb "#CC79A7" title "siege", \
       keyentry with boxes lc rgb "#56B4E9" title "hey", \
       keyentry with boxes lc rgb "#8C564B" title "h2load", \
       keyentry with boxes lc rgb "#555555" title "bombardier", \
       keyentry with boxes lc rgb "#9467BD" title "k6", \
       keyentry with boxes lc rgb "#BCBD22" title "artillery", \
       keyentry with boxes lc rgb "#17BECF" title "locust", \
       keyentry with boxes lc rgb "#7F0000" title "jmeter"
  set output
}
