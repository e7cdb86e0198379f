# bench/lib/servers.sh: what bench/target.sh and bench/target-tls.sh share
# (sourced, never run: bench/run runs bench/*.sh only) - a temp dir and the
# processes to stop by PID on exit, a process's CPU ticks, a median, and
# nginx-light serving lb-target's 800-byte body pinned to CPU 1.

tmp=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

hz=$(getconf CLK_TCK)
# cpu_ticks PID: utime+stime of the whole process (all threads).
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# start_nginx LISTEN: bench/nginx.conf with its listen line's address and
# port "127.0.0.1:@PORT@" replaced by LISTEN (e.g. "127.0.0.1:8443 ssl
# http2; ssl_certificate ..."), serving $tmp/ngx/www/data.json (the same
# 800-byte JSON body lb-target sends), on CPU 1. Sets NGX_PID.
start_nginx() {
    mkdir -p "$tmp/ngx/www"
    sed "s|listen 127.0.0.1:@PORT@;|listen $1;|; s|@DIR@|$tmp/ngx|g" bench/nginx.conf >"$tmp/ngx/nginx.conf"
    pad=$(awk 'BEGIN { for (i = 0; i < 800 - 31; i++) printf "x" }')
    printf '{"server":"lb-target","pad":"%s"}' "$pad" >"$tmp/ngx/www/data.json"
    taskset -c 1 nginx -p "$tmp/ngx" -c "$tmp/ngx/nginx.conf" 2>"$tmp/ngx.err" &
    NGX_PID=$!
    pids="$pids $NGX_PID"
    i=0
    # nginx writes its pid file after it opened its listening socket.
    until [ -s "$tmp/ngx/nginx.pid" ]; do
        i=$((i + 1))
        [ $i -lt 100 ] && kill -0 $NGX_PID 2>/dev/null ||
            { echo "nginx did not start: $(cat "$tmp/ngx.err" "$tmp/ngx/error.log" 2>/dev/null)" >&2; exit 1; }
        sleep 0.05
    done
}
