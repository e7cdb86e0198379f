# gen-lib.sh: helpers for the lb-gen end-to-end tests (sourced, not a test).
# On top of tests/lib/tap.sh (TAP, temp dir, `track PID` for cleanup on
# exit): starts real lb-target processes on free loopback ports, talks to
# their control channel, reads several JSON paths at once.
: "${LB_BUILD:?LB_BUILD must name the build directory (make check sets it)}"
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/target.sh"
GEN=$LB_BUILD/bin/lb-gen
TARGET=$LB_BUILD/bin/lb-target
FAULTS=$LB_BUILD/tests/progs/gen-faults

# jget FILE PATH... (in place of tap.sh's one-path jget): print each dotted
# path's value (a.b.0.c), "null" when absent; "len:PATH" prints an array's
# length.
jget() {
    perl -MJSON::PP -e '
        local $/; open my $f, "<", shift or die "$!\n"; my $j = decode_json(<$f>);
        for my $p (@ARGV) {
            my $len = $p =~ s/^len://;
            my $v = $j;
            for my $k (split /\./, $p) {
                $v = ref $v eq "ARRAY" ? $v->[$k] : ref $v eq "HASH" ? $v->{$k} : undef;
            }
            print $len ? scalar(@{$v || []}) : defined $v ? (ref $v ? encode_json($v) : $v) : "null", "\n";
        }' "$@"
}

# ctl PORT METHOD PATH: the body of a control-channel request.
ctl() {
    perl -MIO::Socket::INET -e '
        my ($port, $m, $path) = @ARGV;
        my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $port, Timeout => 5) or die "connect: $!\n";
        print $s "$m $path HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
        local $/; my $r = <$s>; $r =~ s/^.*?\r\n\r\n//s; print $r;' "$@"
}

# served CTLPORT: the target's responses_completed so far.
served() {
    ctl "$1" GET /stats >"$tmp/stats.json"
    jget "$tmp/stats.json" responses_completed
}

# fcmp EXPR: true when the Perl expression holds (floating point checks).
fcmp() { perl -e "exit(($1) ? 0 : 1)"; }

# start_faults MODE: a tests/progs/gen-faults server (a fault server: it
# misbehaves on purpose) answering by MODE; sets F_PID, F_URL.
start_faults() {
    # A MODE's earlier file goes first: the loop below must never read the
    # port of the server before (the child truncates the file only when
    # it runs, maybe after the first look).
    rm -f "$tmp/f-$1.out"
    "$FAULTS" "$1" >"$tmp/f-$1.out" 2>&1 &
    F_PID=$!
    track $F_PID
    i=0
    until grep -q '^port=' "$tmp/f-$1.out" 2>/dev/null; do
        i=$((i + 1))
        [ $i -le 100 ] || { echo "Bail out! gen-faults did not start"; exit 1; }
        sleep 0.05
    done
    F_URL="http://127.0.0.1:$(sed -n 's/^port=//p' "$tmp/f-$1.out")/"
}

# faults_stop MODE: SIGTERM gen-faults, reap it (in this shell, not in a
# $(...) subshell, which could not wait for it) and set SERVED to its count.
faults_stop() {
    kill "$F_PID"
    wait "$F_PID" 2>/dev/null || true
    SERVED=$(sed -n 's/^responses=//p' "$tmp/f-$1.out")
}

# signal_after SECONDS LIMIT CMD...: run CMD, send it SIGTERM after SECONDS
# ("caught": as soon as /proc says CMD catches SIGTERM, the earliest moment
# a program can answer it), and wait at most LIMIT seconds more before
# SIGKILL. Prints the ms from
# the signal to the exit and how it ended ("exit N", "signal N" or
# "killed" when LIMIT ran out).
signal_after() {
    perl -MTime::HiRes=time,sleep -MPOSIX=:sys_wait_h -e '
        my ($delay, $limit, @cmd) = @ARGV;
        my $pid = fork() // die "fork: $!\n";
        if (!$pid) { exec @cmd or die "exec: $!\n" }
        if ($delay eq "caught") {
            my $until = time + 5;
            while (time < $until) {
                open my $st, "<", "/proc/$pid/status" or last;
                my ($cgt) = join("", <$st>) =~ /^SigCgt:\s*([0-9a-f]+)/m;
                last if $cgt && hex(substr($cgt, -8)) & (1 << 14);
                sleep(0.0005);
            }
        } else {
            sleep($delay);
        }
        my $t0 = time;
        kill "TERM", $pid;
        while (waitpid($pid, WNOHANG) == 0) {
            if (time - $t0 > $limit) { kill "KILL", $pid; waitpid($pid, 0); printf "%d killed\n", $limit * 1000; exit }
            sleep(0.002);
        }
        my $how = WIFEXITED($?) ? "exit " . WEXITSTATUS($?) : "signal " . WTERMSIG($?);
        printf "%d %s\n", (time - $t0) * 1000, $how;' "$@"
}

# now_ms: the time in ms (for spans measured around a command).
now_ms() { perl -MTime::HiRes=time -e 'printf "%d\n", time * 1000'; }
