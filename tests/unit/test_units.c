/* Unit tests for common/units: durations and sizes as people write them. */
#include "tests/tap.h"
#include "common/sha256.h"
#include "common/units.h"
#include "common/util.h"

#include <string.h>

static void dur(const char *s, uint64_t want_ns)
{
    char err[UTIL_ERR_LEN] = "";
    uint64_t got = 0;
    int rc = units_parse_duration_ns(s, &got, err);
    if (!ok(rc == 0 && got == want_ns, "duration \"%s\" = %llu ns", s, (unsigned long long)want_ns))
        diag("  rc %d, got %llu, err %s", rc, (unsigned long long)got, err);
}

static void dur_bad(const char *s, const char *needle)
{
    char err[UTIL_ERR_LEN] = "";
    uint64_t got = 0;
    int rc = units_parse_duration_ns(s, &got, err);
    if (!ok(rc == -1 && strstr(err, needle), "duration \"%s\" rejected mentioning \"%s\"", s, needle))
        diag("  rc %d, err \"%s\"", rc, err);
}

static void size(const char *s, uint64_t want)
{
    char err[UTIL_ERR_LEN] = "";
    uint64_t got = 0;
    int rc = units_parse_size_bytes(s, &got, err);
    if (!ok(rc == 0 && got == want, "size \"%s\" = %llu B", s, (unsigned long long)want))
        diag("  rc %d, got %llu, err %s", rc, (unsigned long long)got, err);
}

static void size_bad(const char *s)
{
    char err[UTIL_ERR_LEN] = "";
    uint64_t got = 0;
    ok(units_parse_size_bytes(s, &got, err) == -1 && err[0], "size \"%s\" rejected (%s)", s, err);
}

static void fmt(uint64_t ns, const char *want)
{
    char buf[32];
    is_str(units_format_duration(ns, buf), want, "format %llu ns", (unsigned long long)ns);
}

int main(void)
{
    dur("20ms", 20000000);
    dur("2s", 2000000000ull);
    dur("1m30s", 90000000000ull);
    dur("1h", 3600000000000ull);
    dur("500us", 500000);
    dur("1.5s", 1500000000ull);
    dur("0s", 0);
    dur("250ns", 250);
    dur_bad("20", "needs a unit");
    dur_bad("20 ms", "needs a unit");
    dur_bad("20parsecs", "unknown unit");
    dur_bad("", "empty");
    dur_bad("-1s", "bad duration");
    dur_bad("ms", "bad duration");
    dur_bad("99999999999999h", "too long");

    size("800B", 800);
    size("800", 800);
    size("16KiB", 16384);
    size("1KB", 1000);
    size("2MiB", 2097152);
    size_bad("16 KiB");
    size_bad("1.5KiB");
    size_bad("-1B");
    size_bad("99999999999999999999B");
    size_bad("18446744073709551615GiB");

    uint64_t n = 0;
    char err[UTIL_ERR_LEN];
    ok(units_parse_count("200", "connections", &n, err) == 0 && n == 200, "count 200");
    ok(units_parse_count("2x", "connections", &n, err) == -1 && strstr(err, "connections"), "count 2x rejected naming the field");

    fmt(0, "0s");
    fmt(20000000, "20ms");
    fmt(90000000000ull, "1m30s");
    fmt(3600000000000ull, "1h");
    fmt(1500000000ull, "1500ms");
    fmt(1500, "1500ns");

    uint64_t mask = 0;
    ok(util_parse_cpulist("0-2,5", &mask, err) == 0 && mask == 0x27, "cpulist 0-2,5");
    ok(util_parse_cpulist("1,", &mask, err) == 0 && mask == 0x2, "cpulist trailing comma");
    ok(util_parse_cpulist("x", &mask, err) == -1, "cpulist x rejected");
    ok(util_parse_cpulist("64", &mask, err) == -1, "cpulist 64 rejected");
    char hex[65];
    sha256_hex("abc", 3, hex);
    is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256(\"abc\")");
    sha256_hex("", 0, hex);
    is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256(\"\")");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex(two, strlen(two), hex);
    is_str(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "sha256 of the two-block vector");
    return done_testing();
}
