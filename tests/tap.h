/* tap.h: a minimal TAP producer for the unit tests (read by prove). */
#ifndef LB_TAP_H
#define LB_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

static void tap_vreport(int pass, const char *fmt, va_list ap)
{
    tap_n++;
    if (!pass)
        tap_failed++;
    printf("%s %d - ", pass ? "ok" : "not ok", tap_n);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
}

/* Report one check; returns pass so callers can add diagnostics. */
static int __attribute__((format(printf, 2, 3), unused)) ok(int pass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_vreport(pass, fmt, ap);
    va_end(ap);
    return pass;
}

static void __attribute__((format(printf, 1, 2), unused)) diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

#define is_u64(got, want, ...)                                                        \
    do {                                                                              \
        unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want); \
        if (!ok(g_ == w_, __VA_ARGS__))                                               \
            diag("  got %llu, want %llu", g_, w_);                                    \
    } while (0)

#define is_str(got, want, ...)                                                        \
    do {                                                                              \
        const char *g_ = (got), *w_ = (want);                                         \
        if (!ok(g_ && w_ && !strcmp(g_, w_), __VA_ARGS__))                            \
            diag("  got \"%s\", want \"%s\"", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
    } while (0)

/* Report one skipped check ("ok N # SKIP why"); prove counts it as passed
 * and shows the reason. */
static void __attribute__((format(printf, 1, 2), unused)) skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_n++;
    printf("ok %d # SKIP ", tap_n);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

/* True in the SANITIZE=address build (the Makefile defines LB_BUILD_TYPE),
 * where memory and timing figures are the sanitizer's, not the program's. */
#define TAP_UNDER_ASAN (__builtin_strcmp(LB_BUILD_TYPE, "asan") == 0)

/* End the test: print the plan and exit non-zero if anything failed. */
static int __attribute__((unused)) done_testing(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

#endif
