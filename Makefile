# loadbench — one non-recursive Makefile.
#
#   make                 build lb-target, lb-gen and loadbench into build/bin
#   make run             install missing Debian packages (as root), build, run the default profile
#   make check           install missing Debian packages (as root), build, run every test through prove
#   make check-quick     unit tests and the main path's e2e tests, under 3 minutes: the edit-test loop
#   make check-busy      make check while our CPU burner (tests/progs/lb-burner --cpu 1) keeps one core
#                        busy: the timing tests' margins must hold under it (docs/testing.md)
#   make check-asan      build-asan/ (ASan+UBSan): every unit test and the parsing, hostile-input and
#                        fault e2e tests, any sanitizer finding failing the check (about 4 min on 2 cores)
#   make bench           peer-relative benchmarks (lb-target vs nginx, lb-gen vs wrk, sampler cost,
#                        the controller across 8 and 16 namespace hosts: bench/hosts-scale.sh)
#   make fuzz            build the libFuzzer targets (clang) into build-fuzz/, run each FUZZ_SECONDS
#   make install         PREFIX=/usr/local DESTDIR= (programs, data, man pages in PREFIX/share/man/man1)
#   make clean
#
# CI=true adds -Werror. SANITIZE=address builds everything with ASan+UBSan
# into build-asan/ (the build type is recorded in run.json); `make check
# SANITIZE=address` runs the whole suite against it with the sanitizer
# options of check-asan.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/loadbench
MANDIR  ?= $(PREFIX)/share/man
CC      ?= cc
OPT     ?= -O2 -g

ifeq ($(SANITIZE),address)
BUILD   ?= build-asan
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
BUILD_TYPE = asan
else
BUILD   ?= build
SANFLAGS =
BUILD_TYPE = release
endif

PKGS := yaml-0.1 jansson libproc2 zlib openssl libnghttp2
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# Each program links only what its folders use: lb-target, lb-gen and the
# test helpers need jansson; loadbench adds libyaml (the profile) and zlib
# (HdrHistogram interval logs, common/hdrlog.c). libproc2
# is the peer in tests/unit/test_sampler_cost.c only, so only the unit
# tests link them all.
LIBS_JSON  := $(shell pkg-config --libs jansson 2>/dev/null)
LIBS_LB    := $(shell pkg-config --libs yaml-0.1 jansson zlib 2>/dev/null)
# lb-target's TLS and HTTP/2 (targets/tls.c, targets/h2.c) and lb-gen's
# (generator/tls.c, generator/h2.c): OpenSSL, nghttp2.
LIBS_TARGET := $(shell pkg-config --libs openssl libnghttp2 2>/dev/null)
PKG_OK     := $(shell pkg-config --exists $(PKGS) 2>/dev/null && echo yes)

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
# The commit built from, "-dirty" after it when the working tree had
# changes not committed: a row made by such a build says so.
GIT_REV := $(shell git describe --always --dirty --exclude='*' 2>/dev/null || echo unknown)

WARN = -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ifeq ($(CI),true)
WARN += -Werror
endif
# Includes name their folder from the repository root ("common/util.h",
# "adapters/adapter.h", "spec/profile.h") or, for harness/'s layers,
# from harness/ ("engine/run.h", "report/charts.h").
CPPFLAGS += -D_GNU_SOURCE -I. -Iharness -I$(BUILD)/gen \
            -DLB_VERSION='"$(VERSION)"' -DLB_GIT_REV='"$(GIT_REV)"' -DLB_BUILD_TYPE='"$(BUILD_TYPE)"'
CFLAGS  += -std=gnu11 $(OPT) $(WARN) $(SANFLAGS) $(PKG_CFLAGS) -MMD -MP
LDFLAGS += $(SANFLAGS)
LDLIBS  += -lpthread -lm

# Each program's main() lives in <folder>/main.c; every other .c file of the
# folder goes into the folder's library, which the unit tests link.
# loadbench's harness/ is layers, each its own library: the engine (runs
# tools), the remote transport (other hosts, over ssh), the agent and the
# reports (read run.json); below them and the
# adapters sits spec/ (reads YAML: the contract both depend on).
# tests/e2e/layers.t fails when the reports reach into the engine.
COMMON_SRC  := $(wildcard common/*.c)
TARGET_SRC  := $(filter-out targets/main.c,$(wildcard targets/*.c))
GEN_SRC     := $(filter-out generator/main.c,$(wildcard generator/*.c))
ENGINE_SRC  := $(wildcard harness/engine/*.c)
REMOTE_SRC  := $(wildcard harness/remote/*.c)
AGENT_SRC   := $(wildcard harness/agent/*.c)
PROFILE_SRC := $(wildcard spec/*.c)
REPORT_SRC  := $(wildcard harness/report/*.c)
ADAPTER_SRC := $(wildcard adapters/*.c)
HARNESS_SRC := $(AGENT_SRC) $(REMOTE_SRC) $(ENGINE_SRC) $(PROFILE_SRC) $(REPORT_SRC) $(ADAPTER_SRC)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBCOMMON  := $(BUILD)/lib/libcommon.a
LIBTARGET  := $(BUILD)/lib/libtarget.a
LIBGEN     := $(BUILD)/lib/libgen.a
LIBENGINE  := $(BUILD)/lib/libengine.a
LIBREMOTE  := $(BUILD)/lib/libremote.a
LIBAGENT   := $(BUILD)/lib/libagent.a
LIBPROFILE := $(BUILD)/lib/libprofile.a
LIBREPORT  := $(BUILD)/lib/libreport.a
LIBADAPTER := $(BUILD)/lib/libadapters.a
LIBHARNESS := $(LIBAGENT) $(LIBREMOTE) $(LIBENGINE) $(LIBADAPTER) $(LIBREPORT) $(LIBPROFILE)
LIBS_ALL   := $(LIBHARNESS) $(LIBGEN) $(LIBTARGET) $(LIBCOMMON)

PROGRAMS := $(BUILD)/bin/lb-target $(BUILD)/bin/lb-gen
ifneq ($(wildcard harness/main.c),)
PROGRAMS += $(BUILD)/bin/loadbench
endif

UNIT_SRC   := $(wildcard tests/unit/*.c)
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
# Helper programs for tests (fault injectors, burners, raw clients): one .c each.
TESTPROG_SRC := $(wildcard tests/progs/*.c)
TESTPROGS    := $(patsubst tests/progs/%.c,$(BUILD)/tests/progs/%,$(TESTPROG_SRC))

.PHONY: all run check check-quick check-busy check-asan bench install install-man clean deps check-deps unit e2e fuzz fuzz-build
# Objects made on the way to a test program are kept, not deleted as
# intermediates, so a second build does nothing.
.SECONDARY:
.DEFAULT_GOAL := all

# The JMeter launcher (adapters/jmeter/LbJMeter.java) is compiled here when
# JMeter and javac are installed, so the first run does not pay for javac
# inside the tool's version check; lb-jmeter compiles it itself otherwise.
# (Assigned before `all:`, whose prerequisites make expands as it reads them.)
JMETER_JAR ?= /usr/share/jmeter/bin/ApacheJMeter.jar
ifneq ($(wildcard $(JMETER_JAR)),)
ifneq ($(shell command -v javac 2>/dev/null),)
JMETER_CLASS := build/jmeter/LbJMeter.class
endif
endif

all: check-deps $(PROGRAMS) $(TESTPROGS) $(JMETER_CLASS)

build/jmeter/LbJMeter.class: adapters/jmeter/LbJMeter.java
	@mkdir -p $(dir $@)
	javac -nowarn -d $(dir $@) -cp $(JMETER_JAR):/usr/share/java/xstream.jar:/usr/share/java/excalibur-logkit.jar $<

check-deps:
ifneq ($(PKG_OK),yes)
	@echo "missing build libraries ($(PKGS)); install them with: scripts/deps build  (or: make run / make check as root)" >&2
	@exit 1
endif

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# The charts' hash: what draws the pictures (the chart scripts, report.html,
# the statistics and tables behind them). loadbench version prints it and
# run.json records it, so a committed run made by older chart code is found
# (tests/e2e/sample_fresh.t) without git dates, which a tarball lacks.
CHARTS_HASH_SRC := harness/report/charts.c harness/report/charts.h harness/report/html.c harness/report/html.h \
                   harness/report/stats.c harness/report/stats.h harness/report/report.c
$(BUILD)/gen/generated/charts_hash.h: $(CHARTS_HASH_SRC)
	@mkdir -p $(dir $@)
	@printf '#define LB_CHARTS_HASH "%s"\n' "$$(cat $(CHARTS_HASH_SRC) | sha256sum | cut -c1-12)" >$@.tmp && mv $@.tmp $@
$(call obj,harness/main.c harness/engine/run.c): $(BUILD)/gen/generated/charts_hash.h
# The git revision is a compiler flag: a file holding it, rewritten (at
# parse time) only when HEAD moves, makes the files that print it rebuild
# then (run.json and the charts' footer name the build that made them).
GIT_REV_FILE := $(BUILD)/gen/git-rev
_ := $(shell mkdir -p $(BUILD)/gen && [ "$$(cat $(GIT_REV_FILE) 2>/dev/null)" = "$(GIT_REV)" ] || echo "$(GIT_REV)" > $(GIT_REV_FILE))
$(call obj,harness/main.c harness/engine/run.c harness/remote/ssh.c generator/main.c generator/report.c): $(GIT_REV_FILE)

$(BUILD)/lib/%.a:
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(LIBCOMMON):  $(call obj,$(COMMON_SRC))
$(LIBTARGET):  $(call obj,$(TARGET_SRC))
$(LIBGEN):     $(call obj,$(GEN_SRC))
$(LIBENGINE):  $(call obj,$(ENGINE_SRC))
$(LIBREMOTE):  $(call obj,$(REMOTE_SRC))
$(LIBAGENT):   $(call obj,$(AGENT_SRC))
$(LIBPROFILE): $(call obj,$(PROFILE_SRC))
$(LIBREPORT):  $(call obj,$(REPORT_SRC))
$(LIBADAPTER): $(call obj,$(ADAPTER_SRC))

$(BUILD)/bin/lb-target: $(call obj,targets/main.c) $(LIBTARGET) $(LIBCOMMON)
$(BUILD)/bin/lb-gen:    $(call obj,generator/main.c) $(LIBGEN) $(LIBCOMMON)
$(BUILD)/bin/loadbench: $(call obj,harness/main.c) $(LIBHARNESS) $(LIBCOMMON)
$(BUILD)/bin/lb-gen: PROG_LIBS := $(LIBS_JSON) $(LIBS_TARGET)
$(BUILD)/bin/lb-target: PROG_LIBS := $(LIBS_JSON) $(LIBS_TARGET)
$(BUILD)/bin/loadbench: PROG_LIBS := $(LIBS_LB)

$(BUILD)/bin/%:
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< -Wl,--start-group $(filter %.a,$^) -Wl,--end-group $(PROG_LIBS) $(LDLIBS)

$(BUILD)/tests/%: $(call obj,tests/unit/%.c) $(LIBS_ALL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< -Wl,--start-group $(LIBS_ALL) -Wl,--end-group $(PKG_LIBS) $(LDLIBS)

$(BUILD)/tests/progs/%: $(call obj,tests/progs/%.c) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_JSON) $(LDLIBS)

# Fuzzing: fuzz/NAME.c is a libFuzzer target, built with clang, ASan and
# UBSan into build-fuzz/ (never build/), with every library source linked in.
# `make fuzz` runs each for FUZZ_SECONDS on its committed seed corpus
# fuzz/corpus/NAME (new inputs go to build-fuzz/corpus/NAME) and prints the
# executions; a crash leaves build-fuzz/NAME-crash-* and fails. This is the
# long fuzz: `make check` (tests/e2e/fuzz.t) builds the same targets and
# runs each for 2 s (LB_FUZZ_SECONDS): every committed seed, then a short fuzz.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 20
FUZZ_SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_OBJ     := $(patsubst %.c,build-fuzz/obj/%.o,$(COMMON_SRC) $(TARGET_SRC) $(GEN_SRC) $(HARNESS_SRC))
FUZZERS      := $(patsubst fuzz/%.c,build-fuzz/bin/%,$(wildcard fuzz/*.c))

fuzz-build: check-deps $(FUZZERS)

build-fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -std=gnu11 -O1 -g $(filter-out -Werror,$(WARN)) -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

build-fuzz/bin/%: build-fuzz/obj/fuzz/%.o $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LIBS_LB) $(LIBS_TARGET) $(LDLIBS)

fuzz: fuzz-build
	@for f in $(FUZZERS); do n=$${f##*/}; mkdir -p build-fuzz/corpus/$$n; \
	    $$f -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 -artifact_prefix=build-fuzz/$$n- \
	        build-fuzz/corpus/$$n fuzz/corpus/$$n >build-fuzz/$$n.log 2>&1 || { tail -n 60 build-fuzz/$$n.log; exit 1; }; \
	    echo "$$n: $$(sed -n 's/^stat::number_of_executed_units: *//p' build-fuzz/$$n.log) executions in $(FUZZ_SECONDS) s"; \
	done

# The README's commands: each first installs missing Debian packages (as
# root; otherwise it prints the apt-get line and stops), then builds.
run:
	@scripts/deps build run
	@$(MAKE) --no-print-directory all
	@scripts/run-default $(BUILD)

# Under the sanitizers the first finding (memory error, leak, undefined
# behaviour) ends the program with an error, so it fails its test;
# LB_BUILD_TYPE=asan lets a test skip a timing or memory bound (tap.sh
# under_asan) that only holds for the release build. Reports go to
# $(SAN_LOGS)/{asan,ubsan}.PID, so that a finding in a process whose exit
# status nobody checks (lb-target under loadbench, a tool's children) still
# fails the check: san_verdict prints them and fails when there are any.
SAN_LOGS := $(abspath build-asan/sanitizer-logs)
SAN_ENV  := ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:log_path=$(SAN_LOGS)/asan \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$(SAN_LOGS)/ubsan LB_BUILD_TYPE=asan
san_verdict = if [ -n "$$(ls -A $(SAN_LOGS))" ]; then head -n 40 $(SAN_LOGS)/*; \
              echo "sanitizer findings: $(SAN_LOGS)" >&2; exit 1; fi; exit $$rc
ifeq ($(SANITIZE),address)
CHECK_ENV := $(SAN_ENV)
CHECK_PRE := rm -rf $(SAN_LOGS) && mkdir -p $(SAN_LOGS) &&
CHECK_POST = $(san_verdict)
endif

# Three lanes first, then one (prove -j3, --rules): the tests that measure
# nothing in time or CPU run three at a time — every unit test but
# SERIAL_UNIT's, the e2e tests marked "# lb-test: parallel" (they parse and
# compute only) and those marked "# lb-test: shared" (they start tools and
# lb-target but judge counts, statuses and faults only: no bound a
# neighbour's CPU can move; each passes `make check-busy`). Every other
# test then runs alone, one at a time, as prove runs what no rule matched.
# The rules' order is the order they start in (TAP::Parser::Scheduler):
# SHARED_FIRST first, longest first, so that the lanes end together.
SERIAL_UNIT := test_sampler test_sampler_cost test_cgroup test_delay test_proc test_guard test_agent test_crosscheck
SHARED_FIRST := tests/e2e/multihost.t tests/e2e/run_check.t tests/e2e/run_faults.t tests/e2e/multihost_faults.t
SHARED_TESTS = $(shell grep -l '^\# lb-test: shared' tests/e2e/*.t 2>/dev/null)
PAR_TESTS    = $(SHARED_FIRST) $(filter-out $(SHARED_FIRST),$(SHARED_TESTS)) \
               $(filter-out $(addprefix $(BUILD)/tests/,$(SERIAL_UNIT)),$(UNIT_TESTS)) \
               $(shell grep -l '^\# lb-test: parallel' tests/e2e/*.t 2>/dev/null)
PROVE_PAR    = -j3 $(foreach t,$(PAR_TESTS),--rules=par=$(t))

# Every test file that skipped whole is named again after prove's summary,
# with its reason (each reason names the command that enables it): a fresh
# machine's skips are said where the run ends (tests/lib/skipped-summary).
SKIPPED := $(abspath $(BUILD))/check-skipped.txt
CHECK_POST ?= exit $$rc

check:
	@scripts/deps build test $(if $(filter true,$(CI)),ci)
	@$(MAKE) --no-print-directory all $(UNIT_TESTS)
	@rm -f $(SKIPPED); $(CHECK_PRE) LB_SKIPPED=$(SKIPPED) LB_BUILD=$(abspath $(BUILD)) $(CHECK_ENV) prove -f --timer $(PROVE_PAR) --exec tests/lib/timeout-exec $(UNIT_TESTS) $(sort $(wildcard tests/e2e/*.t)); \
	 rc=$$?; tests/lib/skipped-summary $(SKIPPED); $(CHECK_POST)

# check-quick: the edit-test loop, not a gate (CI and the README run the
# whole `make check`): every unit test and the end-to-end tests of the main
# path — profile checks, a run of lb-gen and the Debian tools, reports,
# the gate, the lying-tool fixtures — in under 3 minutes on 2 cores
# (docs/testing.md says which tests each target runs and how long).
QUICK_E2E_TESTS ?= layers.t cli.t hostile_profiles.t run_basic.t run_suspect.t report_fixture.t compare_labels.t history.t \
                   target-count.t gen_args.t
QUICK_E2E := $(addprefix tests/e2e/,$(QUICK_E2E_TESTS))
check-quick:
	@scripts/deps build test
	@$(MAKE) --no-print-directory all $(UNIT_TESTS)
	@LB_BUILD=$(abspath $(BUILD)) prove -f --timer --exec tests/lib/timeout-exec $(UNIT_TESTS) $(QUICK_E2E)

# check-busy: the whole suite while lb-burner keeps one core busy (all of
# it, wherever the scheduler puts it). The burner dies with this recipe's
# shell (--exit-with-parent) and stops by itself after BUSY_MAX anyway.
BUSY_MAX ?= 60m
check-busy:
	@$(MAKE) --no-print-directory all
	@$(BUILD)/tests/progs/lb-burner --cpu 1 --duration $(BUSY_MAX) --exit-with-parent >/dev/null & b=$$!; \
	 $(MAKE) --no-print-directory check; rc=$$?; kill $$b; wait $$b; exit $$rc

# check-asan: the ASan+UBSan build (build-asan/) against every unit test and
# the end-to-end tests that feed the programs parsing work, hostile input
# and faults; the precision and throughput tests stay in `make check`,
# since under ASan they measure the sanitizer.
ASAN_UNIT := $(patsubst tests/unit/%.c,build-asan/tests/%,$(UNIT_SRC))
ASAN_E2E_TESTS ?= hostile_profiles.t run_basic.t target-bad.t target-cli.t gen_args.t gen_errors.t gen_eof.t \
                  gen_closed_counts.t target-count.t report_fixture.t adapter_raw.t \
                  target-control.t target-parent.t gen_signals.t compare_labels.t target-tls.t target-h2.t \
                  target-body.t
ASAN_E2E  := $(addprefix tests/e2e/,$(ASAN_E2E_TESTS))

check-asan:
	@scripts/deps build test
	@$(MAKE) --no-print-directory SANITIZE=address all $(ASAN_UNIT)
	@rm -rf $(SAN_LOGS) build-asan/check-skipped.txt && mkdir -p $(SAN_LOGS) && \
	 LB_SKIPPED=$(abspath build-asan)/check-skipped.txt LB_BUILD=$(abspath build-asan) $(SAN_ENV) prove -f --timer --exec tests/lib/timeout-exec $(ASAN_UNIT) $(ASAN_E2E); \
	 rc=$$?; tests/lib/skipped-summary build-asan/check-skipped.txt; $(san_verdict)

bench:
	@scripts/deps build bench
	@$(MAKE) --no-print-directory all
	@LB_BUILD=$(abspath $(BUILD)) bench/run

install: all install-man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/profiles/studies
	install -m 755 $(PROGRAMS) $(DESTDIR)$(BINDIR)/
	install -m 644 profiles/*.yaml $(DESTDIR)$(DATADIR)/profiles/
	install -m 644 profiles/studies/*.yaml $(DESTDIR)$(DATADIR)/profiles/studies/
	@# Adapter data files (wrk's Lua hook, siege's rc, the JMeter launcher,
	@# the Locust hook, the reference generators), modes kept.
	@for f in $$(find adapters refgen -mindepth 2 -type f 2>/dev/null); do \
	    m=644; [ -x "$$f" ] && m=755; \
	    install -D -m $$m "$$f" "$(DESTDIR)$(DATADIR)/$$f" || exit 1; \
	done

# The man pages alone (tests/e2e/manpages.t installs them into a DESTDIR).
install-man:
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 644 docs/man/loadbench.1 docs/man/lb-target.1 docs/man/lb-gen.1 $(DESTDIR)$(MANDIR)/man1/

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD)/obj build-fuzz/obj -name '*.d' 2>/dev/null)
