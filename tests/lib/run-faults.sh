# run-faults.sh: helpers for the tests that stop or kill a loadbench run
# (run_faults.t, run_kill9.t); sourced after tap.sh ($tmp set).

# leftovers SID [live]: pids still alive in loadbench's session SID
# (loadbench is started with setsid, so its pid is the session id), or whose
# command line names this test's temp dir (a tool that setsid'd away).
# Zombies count, unless "live" is given: after a kill -9 of loadbench its
# killed children are init's to reap, which some inits do only every few
# seconds.
leftovers() {
    perl -e '
        my ($sid, $tmp, $live) = @ARGV; my @left;
        for my $d (glob "/proc/[0-9]*") {
            my ($pid) = $d =~ m{(\d+)$}; next if $pid == $$ || $pid == getppid();
            open my $f, "<", "$d/stat" or next; my $st = <$f>; close $f;
            my @s = split / /, substr($st, rindex($st, ")") + 2);
            next if $live && $s[0] =~ /[ZX]/;
            my $cmd = ""; if (open my $c, "<", "$d/cmdline") { local $/; $cmd = <$c> // ""; }
            push @left, $pid if $s[3] == $sid || index($cmd, $tmp) >= 0 && $cmd !~ /run_faults|run_kill9/;
        }
        print join(" ", @left);
    ' "$1" "$tmp" "${2:-}"
}

# json_all_valid DIR: every *.json under DIR parses, and no temporary file
# of an atomic write (*.tmp.PID) is left.
json_all_valid() {
    perl -MJSON::PP -MFile::Find -e '
        my $bad = 0;
        find(sub {
            return unless -f;
            if (/\.tmp\.\d+$/) { print STDERR "left: $File::Find::name\n"; $bad++; return }
            return unless /\.json$/;
            local $/; open my $f, "<", $_ or return; my $t = <$f>;
            eval { decode_json($t); 1 } or do { print STDERR "bad JSON: $File::Find::name\n"; $bad++ };
        }, $ARGV[0]);
        exit($bad ? 1 : 0);
    ' "$1"
}

# wait_line FILE PATTERN PID: until FILE has a line matching PATTERN or PID is gone (20 s at most).
wait_line() {
    n=0
    while [ $n -lt 1000 ] && ! grep -q "$2" "$1" 2>/dev/null; do
        st=$(awk '{ print $3 }' /proc/$3/stat 2>/dev/null || echo gone)
        [ "$st" = Z ] || [ "$st" = gone ] && return 0
        sleep 0.02; n=$((n + 1))
    done
}
