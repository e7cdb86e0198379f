#!/bin/sh
# Every relative link in README.md, docs/ and results/ (Markdown
# [text](target) and HTML href/src) names a file or folder that exists in
# the tree; a #fragment is dropped, absolute URLs and mailto: are not
# followed. One check per page, naming each dead link.
# lb-test: parallel
set -eu
. "$(dirname "$0")/../lib/tap.sh"
cd "$LB_SRC"
pages=$(git ls-files README.md 'docs/*.md' 'docs/*.html' 'results/*.md' 'results/*.html' 2>/dev/null ||
    find README.md docs results -name '*.md' -o -name '*.html')
[ -n "$pages" ] || skip_all "no pages found"
for page in $pages; do
    dead=$(perl -e '
        use File::Basename; my $page = shift; my $dir = dirname($page);
        local $/; open my $f, "<", $page or die "$page: $!"; my $t = <$f>;
        $t =~ s/```.*?```//gs;                     # code blocks are not links
        $t =~ s/`[^`\n]*`//g;                      # nor inline code
        my @l = ($t =~ /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, $t =~ /(?:href|src)="([^"]+)"/g);
        for my $l (@l) {
            next if $l =~ m{^[a-z][a-z0-9+.-]*:}i || $l =~ /^#/ || $l =~ m{^//};
            (my $p = $l) =~ s/#.*//; $p =~ s/\?.*//;
            next if $p eq "";
            $p =~ s/%20/ /g;
            print "$l\n" unless -e "$dir/$p";
        }' "$page")
    if [ -z "$dead" ]; then
        ok 0 "$page: every relative link resolves"
    else
        ok 1 "$page: every relative link resolves"
        printf '%s\n' "$dead" | sed "s|^|#   dead: |"
    fi
done
done_testing
