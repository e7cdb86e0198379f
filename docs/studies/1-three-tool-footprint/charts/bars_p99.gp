# loadbench chart: Latency p99 (tool-reported)
# Render: gnuplot bars_p99.gp  (writes bars_p99.png and bars_p99.svg; edit freely)
set encoding utf8
footer = "loadbench 0.1.0 (release, git c5a5b41) · AMD EPYC, 2 cores, 24105 MB, kernel 6.18.44-fc-v1045 · 2026-12-01 20:33 UTC · profile study1-three-tool-footprint"
do for [fmt in "png svg"] {
  if (fmt eq "png") {
    set terminal pngcairo size 1000,560 font "DejaVu Sans,11" noenhanced background "white"
  } else {
    set terminal svg size 1000,560 font "DejaVu Sans,11" noenhanced background "white"
  }
  set output "bars_p99." . fmt
  reset
  set datafile separator whitespace
  set border 3 lc rgb "#444444"
  set tics nomirror
  set grid ytics lc rgb "#dddddd"
  set label 99 footer at screen 0.01, screen 0.015 font ",8" tc rgb "#666666"
  set title "Latency p99 (tool-reported), one run per tool" font ",13"
  set ylabel "ms"
  set yrange [0:*]
  set xrange [-0.6:5.6]
  set style fill solid 0.85 border lc rgb "#333333"
  set boxwidth 0.6
  set xtics rotate by -25 left
  set bmargin 10
  set key outside right top vertical Left reverse noautotitle
  plot "bars_p99.dat" using 1:(strcol(8) eq "ok" ? $3 : NaN):7:xtic(2) with boxes lc rgb variable notitle, \
       "bars_p99.dat" using 1:(strstrt(strcol(9), "below-floor") ? $5 : NaN) with points pt 12 ps 2.4 lw 1.5 lc rgb "#000000" notitle, \
       "bars_p99.dat" using 1:5:10 with labels center offset 0,1.4 font ",9" tc rgb "#222222" notitle, \
       keyentry with boxes lc rgb "#0072B2" title "lb-gen-closed", \
       keyentry with boxes lc rgb "#E69F00" title "k6", \
       keyentry with boxes lc rgb "#009E73" title "jmeter", \
       keyentry with boxes lc rgb "#D55E00" title "artillery-200", \
       keyentry with boxes lc rgb "#CC79A7" title "artillery-7450", \
       keyentry with boxes lc rgb "#56B4E9" title "lb-gen-open", \
       keyentry with points pt 12 ps 2 lw 1.5 lc rgb "#000000" title "latency below the server's floor"
  set output
}
