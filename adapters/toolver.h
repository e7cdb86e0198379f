/* toolver: reading a tool's version from what it prints or ships, and
 * which versions each adapter ran with here (live) or was checked against
 * by that version's source only. Pure functions on text, so that versions
 * that cannot be installed here are tested on fixtures taken from their
 * sources (tests/fixtures/<tool>/); and one reader of the module version a
 * Go binary carries. Every name starts with toolver_. */
#ifndef LB_ADAPTER_TOOLVER_H
#define LB_ADAPTER_TOOLVER_H

#include <stddef.h>

/* How far loadbench knows a version. */
enum toolver_known {
    TOOLVER_UNKNOWN = 0,    /* neither run nor checked: the adapter warns */
    TOOLVER_LIVE,           /* its tests ran it here */
    TOOLVER_SOURCE,         /* checked against that version's source only */
};

/* The version in `k6 version` output ("k6 v0.48.0 (go1.19.8, linux/amd64)",
 * "k6 v2.2.0 (commit/1a2b3c4d5e, go1.24.4, linux/amd64)") into out as
 * "v2.2.0". Returns 0, or -1 when there is none. */
int toolver_k6(const char *text, char *out, size_t len);

/* What is known of k6 version (as toolver_k6 gives it; text after it,
 * such as " (source, go1.19.8)", is ignored). */
enum toolver_known toolver_k6_known(const char *version);

/* The value of key in a JAR manifest's text (META-INF/MANIFEST.MF: "Key:
 * value" lines, continuation lines starting with a space), blanks trimmed,
 * into out. Returns 0, or -1 when the key is absent or empty. */
int toolver_manifest(const char *mf, const char *key, char *out, size_t len);

/* JMeter's version from its --version output: 5.x prints an ASCII-art
 * banner whose fifth line ends with the version (jmeter_as_ascii_art.txt),
 * older ones and 5.x without that resource "Version 2.13.19691222". Into
 * out. Returns 0, or -1 when neither is there. */
int toolver_jmeter_banner(const char *text, char *out, size_t len);

/* What is known of JMeter version ("2.13.19691222", "5.6.3"). */
enum toolver_known toolver_jmeter_known(const char *version);

/* The version of Go module `module` in a Go binary's build information
 * (the text `go version -m` prints, which the go command embeds in every
 * binary it builds in module mode: "path\tMOD\nmod\tMOD\tVERSION\tSUM\n")
 * found in buf[0..n), into out: what `go install MOD@VERSION` fetched,
 * whether or not the build stamped a version with -ldflags. Returns 0, or -1
 * when it is absent, cut off at the end of buf, or "(devel)" (a build from a
 * work tree names no version). */
int toolver_go_module(const char *buf, size_t n, const char *module, char *out, size_t len);

/* toolver_go_module over the file at path (its links resolved: it is the
 * binary loadbench runs), read in blocks through the safe reader
 * (fsutil_open_input, at most FSUTIL_CAP_RESULT). Returns 0, or -1. */
int toolver_go_module_file(const char *path, const char *module, char *out, size_t len);

/* A Go tool's version into out: the n bytes at stamped, what the tool
 * printed as its version, unless they are empty or "unspecified" (a build
 * that stamped none with -ldflags); then toolver_go_module_file's module
 * version of the binary at path; else "unknown". */
void toolver_go_version(const char *stamped, size_t n, const char *path, const char *module, char *out,
                        size_t len);

/* The major number of version ("v1.2.3", "5.6.3"), or -1. */
int toolver_major(const char *version);

#endif
