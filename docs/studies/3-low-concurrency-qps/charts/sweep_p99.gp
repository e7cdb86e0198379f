# loadbench chart: Latency p99 (tool-reported)
# Render: gnuplot sweep_p99.gp  (writes sweep_p99.png and sweep_p99.svg; edit freely)
set encoding utf8
footer = "loadbench 0.1.0 (release, git e3ae974) · AMD EPYC, 2 cores, 24105 MB, kernel 6.18.44-fc-v1045 · 2026-12-01 18:53 UTC · profile study3-low-concurrency-qps"
do for [fmt in "png svg"] {
  if (fmt eq "png") {
    set terminal pngcairo size 1000,560 font "DejaVu Sans,11" noenhanced background "white"
  } else {
    set terminal svg size 1000,560 font "DejaVu Sans,11" noenhanced background "white"
  }
  set output "sweep_p99." . fmt
  reset
  set datafile separator whitespace
  set border 3 lc rgb "#444444"
  set tics nomirror
  set grid ytics lc rgb "#dddddd"
  set label 99 footer at screen 0.01, screen 0.015 font ",8" tc rgb "#666666"
  set title "Latency p99 (tool-reported) against concurrency" font ",13"
  set ylabel "ms (log scale)"
  set logscale y
  set yrange [0.01:100]
  set xlabel "concurrency (connections / VUs), log scale"
  set logscale x
  set xrange [0.666667:30]
  set xtics (1, 5, 10, 20)
  set key outside right top vertical Left reverse
  set bmargin 5
  plot "sweep_p99.dat" index 0 using 1:2 with linespoints lw 2 pt 7 ps 1.2 lc rgb "#0072B2" title "lb-gen", \
       "sweep_p99.dat" index 1 using 1:2 with linespoints lw 2 pt 7 ps 1.2 lc rgb "#E69F00" title "wrk", \
       "sweep_p99.dat" index 2 using 1:2 with linespoints lw 2 pt 7 ps 1.2 lc rgb "#009E73" title "go-fasthttp", \
       "sweep_p99.dat" index 3 using 1:2 with linespoints lw 2 pt 7 ps 1.2 lc rgb "#D55E00" title "k6", \
       "sweep_p99.dat" index 4 using 1:2 with linespoints lw 2 pt 7 ps 1.2 lc rgb "#CC79A7" title "jmeter", \
       "sweep_p99.dat" index 0 using 1:(strstrt(strcol(6), "target") ? $2 : NaN) with points pt 8 ps 2.4 lw 1.5 lc rgb "#000000" notitle, \
       "sweep_p99.dat" index 0 using 1:($1 == 20 ? $2 : NaN):7 with labels left offset 1,0 font ",9" tc rgb "#0072B2" notitle, \
       "sweep_p99.dat" index 1 using 1:(strstrt(strcol(6), "target") ? $2 : NaN) with points pt 8 ps 2.4 lw 1.5 lc rgb "#000000" notitle, \
       "sweep_p99.dat" index 1 using 1:($1 == 20 ? $2 : NaN):7 with labels left offset 1,0 font ",9" tc rgb "#E69F00" notitle, \
       "sweep_p99.dat" index 2 using 1:(strstrt(strcol(6), "target") ? $2 : NaN) with points pt 8 ps 2.4 lw 1.5 lc rgb "#000000" notitle, \
       "sweep_p99.dat" index 2 using 1:($1 == 20 ? $2 : NaN):7 with labels left offset 1,0 font ",9" tc rgb "#009E73" notitle, \
       "sweep_p99.dat" index 3 using 1:(strstrt(strcol(6), "target") ? $2 : NaN) with points pt 8 ps 2.4 lw 1.5 lc rgb "#000000" notitle, \
       "sweep_p99.dat" index 3 using 1:($1 == 20 ? $2 : NaN):7 with labels left offset 1,0 font ",9" tc rgb "#D55E00" notitle, \
       "sweep_p99.dat" index 4 using 1:(strstrt(strcol(6), "target") ? $2 : NaN) with points pt 8 ps 2.4 lw 1.5 lc rgb "#000000" notitle, \
       "sweep_p99.dat" index 4 using 1:($1 == 20 ? $2 : NaN):7 with labels left offset 1,0 font ",9" tc rgb "#CC79A7" notitle, \
       keyentry with points pt 8 ps 2 lw 1.5 lc rgb "#000000" title "target-bound: the server's ceiling"
  set output
}
