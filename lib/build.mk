# SPDX-License-Identifier: MIT
# build.mk - the build of every C component of tierbench. A component's
# Makefile sets the variables below and ends with
#	include <path to>/lib/build.mk
# Paths and patterns are relative to the component's directory.
#
#   LIBS             static libraries it builds: $(BUILD)/lib/lib<L>.a from
#                    <L>_SRCS (patterns)
#   PROGS            programs it builds: $(BUILD)/bin/<P> from <P>_SRCS
#                    (default src/*.c)
#   COMPONENT        name of its object directories: $(BUILD)/obj/$(COMPONENT)
#                    (plain) and $(BUILD)/obj/$(COMPONENT)-san (ASan/UBSan);
#                    default: its first library or program
#   USES             libraries its programs and tests link, in link order:
#                    its own LIBS or another component's (colloid-mech,
#                    colloid, tbutil), which are built on demand by that
#                    component's Makefile; the system libraries each needs
#                    (-lm, -lnuma) come with it
#   CPPFLAGS_C       its own preprocessor flags (e.g. -I$(HERE)/src)
#   TESTS            tests (patterns, default tests/*.c tests/*.sh): a .c
#                    file is one test program, built with ASan/UBSan; a .sh
#                    file is a test script
#   TEST_SRCS        the component's sources linked into every test program
#   TEST_ENV         environment of the tests (VAR=value ...)
#   TEST_NEEDS       component directories (from the top) to build first
#   TEST_SAN_SCRIPTS 0: run the scripts only against the plain programs
#
# Targets: all (default), test, clean, prog-<P> (program P alone: the
# workflow's build jobs, one per binary, so two jobs of one component never
# build the same objects at once). Honours BUILD (default: the
# repository's build/), CC, AR, EXTRA_CFLAGS, EXTRA_LDFLAGS and STATIC=1
# (programs linked statically; never the sanitizer build). make test builds
# the programs twice, plain and with ASan/UBSan, and the test programs with
# ASan/UBSan; it runs the test programs and scripts with lib/runtests.sh
# (per-test timeout TEST_TIMEOUT, a pass/fail/skip summary), the scripts
# once against the plain programs and once against the sanitized ones. A
# test finds program <P> in the environment variable named <P> in capitals
# (dashes become underscores): TIERSIM, GUPS, ...
#
# Dependency files (-MMD -MP) make a changed header rebuild what uses it.

HERE := $(patsubst %/,%,$(dir $(abspath $(firstword $(MAKEFILE_LIST)))))
TOP := $(abspath $(dir $(abspath $(lastword $(MAKEFILE_LIST))))..)
BUILD ?= $(TOP)/build
override BUILD := $(abspath $(BUILD))

COMPONENT ?= $(firstword $(LIBS) $(PROGS))
TESTS ?= tests/*.c tests/*.sh
$(foreach p,$(PROGS),$(eval $(p)_SRCS ?= src/*.c))
CC ?= cc
AR ?= ar
# objects compile through ccache where it works (lib/ccache.sh; TIERBENCH_CCACHE=0: without), with
# base_dir the repository: ccache then hashes the absolute paths under it as relative ones, and with
# -ffile-prefix-map (BASE_CFLAGS) it need not hash the working directory either, so a second clone
# takes the first one's objects (ccache(1), "COMPILING IN DIFFERENT DIRECTORIES")
ifeq ($(origin CCACHE),undefined)
CCACHE := $(shell . $(TOP)/lib/ccache.sh && printf %s "$$CCACHE")
endif
COMPILE = $(if $(CCACHE),CCACHE_BASEDIR=$(TOP) $(CCACHE))$(CC)
EXTRA_CFLAGS ?=
EXTRA_LDFLAGS ?=
TEST_SAN_SCRIPTS ?= 1

OBJ := $(BUILD)/obj/$(COMPONENT)
SANOBJ := $(BUILD)/obj/$(COMPONENT)-san
RUNTESTS := $(TOP)/lib/runtests.sh

# where each library lives (its component's directory and object name), the
# include directories its users need and the system libraries it links
LIBDIR_colloid := colloid
LIBCOMP_colloid := colloid
LIBINC_colloid := colloid/include
LIBSYS_colloid := -lm
LIBDIR_colloid-mech := colloid
LIBCOMP_colloid-mech := colloid
LIBINC_colloid-mech := colloid/include colloid/mech
LIBSYS_colloid-mech := -lm
LIBDIR_tbutil := lib
LIBCOMP_tbutil := tbutil
LIBINC_tbutil := lib/include
LIBSYS_tbutil := -lnuma -lm

# -ffile-prefix-map: the clone's own directory stays out of the objects (debug info, __FILE__), so
# that two clones build the same objects and ccache may give one the other's (below)
BASE_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -pthread -MMD -MP -ffile-prefix-map=$(TOP)=.
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ifeq ($(STATIC),1)
STATIC_LDFLAGS := -static
endif

expand = $(sort $(wildcard $(addprefix $(HERE)/,$(1))))
objs = $(patsubst $(HERE)/%.c,$(2)/%.o,$(call expand,$(1)))
all_uses := $(sort $(USES))
inc_of = $(addprefix -I$(TOP)/,$(sort $(foreach l,$(1),$(LIBINC_$(l)))))
# a library's archive, plain or sanitized
lib_a = $(BUILD)/lib/lib$(1).a
san_a = $(BUILD)/obj/$(LIBCOMP_$(1))-san/lib/lib$(1).a
envname = $(subst -,_,$(shell echo '$(1)' | tr a-z A-Z))

uses_sys := $(foreach l,$(USES),$(LIBSYS_$(l)))
LDLIBS_C := $(sort $(filter -lnuma,$(uses_sys))) $(sort $(filter -lm,$(uses_sys)))
CFLAGS_ALL = $(BASE_CFLAGS) $(CPPFLAGS_C) $(call inc_of,$(all_uses)) $(EXTRA_CFLAGS)
TEST_CFLAGS = $(CFLAGS_ALL) -I$(TOP)/lib/include

PROG_BINS := $(addprefix $(BUILD)/bin/,$(PROGS))
SAN_BINS := $(addprefix $(SANOBJ)/bin/,$(PROGS))
LIB_FILES := $(foreach l,$(LIBS),$(call lib_a,$(l)))
SAN_LIB_FILES := $(foreach l,$(LIBS),$(call san_a,$(l)))
C_TESTS := $(filter %.c,$(call expand,$(TESTS)))
SH_TESTS := $(filter %.sh,$(call expand,$(TESTS)))
TEST_BINS := $(patsubst $(HERE)/%.c,$(SANOBJ)/%,$(C_TESTS))
TEST_OBJS := $(call objs,$(TEST_SRCS),$(SANOBJ))

.PHONY: all test clean FORCE
.SECONDARY:
all: $(LIB_FILES) $(PROG_BINS)

# ---- objects (a change of flags in a Makefile rebuilds them)
MAKEFILES_USED := $(abspath $(firstword $(MAKEFILE_LIST)) $(lastword $(MAKEFILE_LIST)))

$(OBJ)/%.o: $(HERE)/%.c $(MAKEFILES_USED)
	@mkdir -p $(@D)
	$(COMPILE) $(CFLAGS_ALL) -c -o $@ $<

$(SANOBJ)/%.o: $(HERE)/%.c $(MAKEFILES_USED)
	@mkdir -p $(@D)
	$(COMPILE) $(TEST_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

# ---- the component's libraries, plain and sanitized
define LIB_RULES
$(call lib_a,$(1)): $(call objs,$($(1)_SRCS),$(OBJ))
	@mkdir -p $$(@D)
	rm -f $$@
	$(AR) rcs $$@ $$^
$(call san_a,$(1)): $(call objs,$($(1)_SRCS),$(SANOBJ))
	@mkdir -p $$(@D)
	rm -f $$@
	$(AR) rcs $$@ $$^
endef
$(foreach l,$(LIBS),$(eval $(call LIB_RULES,$(l))))

# ---- other components' libraries: their own Makefile builds them
define USE_RULES
$(call lib_a,$(1)): FORCE
	+@$(MAKE) -q --no-print-directory -C $(TOP)/$(LIBDIR_$(1)) BUILD=$(BUILD) $$@ 2>/dev/null || \
	  $(MAKE) --no-print-directory -C $(TOP)/$(LIBDIR_$(1)) BUILD=$(BUILD) $$@
$(call san_a,$(1)): FORCE
	+@$(MAKE) -q --no-print-directory -C $(TOP)/$(LIBDIR_$(1)) BUILD=$(BUILD) $$@ 2>/dev/null || \
	  $(MAKE) --no-print-directory -C $(TOP)/$(LIBDIR_$(1)) BUILD=$(BUILD) $$@
endef
$(foreach l,$(filter-out $(LIBS),$(all_uses)),$(eval $(call USE_RULES,$(l))))

# ---- programs, plain and sanitized (never static)
define PROG_RULES
$(BUILD)/bin/$(1): $(call objs,$($(1)_SRCS),$(OBJ)) $(foreach l,$(USES),$(call lib_a,$(l)))
	@mkdir -p $$(@D)
	$(CC) -pthread $(STATIC_LDFLAGS) $(EXTRA_LDFLAGS) -o $$@ $$^ $(LDLIBS_C)
$(SANOBJ)/bin/$(1): $(call objs,$($(1)_SRCS),$(SANOBJ)) $(foreach l,$(USES),$(call san_a,$(l)))
	@mkdir -p $$(@D)
	$(CC) -pthread $(SAN_FLAGS) $(EXTRA_LDFLAGS) -o $$@ $$^ $(LDLIBS_C)
endef
$(foreach p,$(PROGS),$(eval $(call PROG_RULES,$(p))))
.PHONY: $(addprefix prog-,$(PROGS))
$(foreach p,$(PROGS),$(eval prog-$(p): $(BUILD)/bin/$(p)))

# ---- test programs: ASan/UBSan, one per tests/*.c
$(SANOBJ)/%: $(SANOBJ)/%.o $(TEST_OBJS) $(foreach l,$(USES),$(call san_a,$(l)))
	$(CC) -pthread $(SAN_FLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS_C)

# ---- tests
PLAIN_ENV := $(foreach p,$(PROGS),$(call envname,$(p))=$(BUILD)/bin/$(p))
SAN_ENV := $(foreach p,$(PROGS),$(call envname,$(p))=$(SANOBJ)/bin/$(p))
SAN_RUN_ENV := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

test: all $(SAN_BINS) $(TEST_BINS)
	@for d in $(TEST_NEEDS); do \
		$(MAKE) --no-print-directory -C $(TOP)/$$d BUILD=$(BUILD) || exit 1; \
	done
	@$(TEST_ENV) $(PLAIN_ENV) $(SAN_RUN_ENV) $(RUNTESTS) -n "$(COMPONENT)" $(TEST_BINS) $(SH_TESTS)
ifneq ($(and $(PROGS),$(SH_TESTS),$(filter 1,$(TEST_SAN_SCRIPTS))),)
	@$(TEST_ENV) $(SAN_ENV) $(SAN_RUN_ENV) $(RUNTESTS) -n "$(COMPONENT) (ASan/UBSan)" $(SH_TESTS)
endif

clean:
	rm -rf $(OBJ) $(SANOBJ) $(LIB_FILES) $(PROG_BINS)

FORCE:

-include $(shell find $(OBJ) $(SANOBJ) -name '*.d' 2>/dev/null)
