# SPDX-License-Identifier: MIT
# Rules shared by the command-line programs (gups, antagonist). A program's
# Makefile sets HERE (its own directory, with :=), BUILD, COMPONENT (the
# object directory name), PROG (the binary) and SRCS (its own sources), then
# includes this file, which gives it the targets:
#   all    $(BUILD)/bin/$(PROG), linked with $(BUILD)/lib/libtbutil.a
#          (built on demand); STATIC=1 links fully statically
#   test   also an ASan/UBSan copy in $(BUILD)/obj/$(COMPONENT)-asan/, then
#          $(HERE)/tests/run_tests.sh on both binaries
#   clean  the program's own objects and binaries (the shared library stays;
#          make -C workloads/lib clean removes it)
# Honours CC, EXTRA_CFLAGS, EXTRA_LDFLAGS and STATIC=1.
TOOL_MK_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

ifeq ($(STATIC),1)
STATIC_LDFLAGS := -static
endif

OBJDIR := $(BUILD)/obj/$(COMPONENT)
SANDIR := $(BUILD)/obj/$(COMPONENT)-asan
BIN := $(BUILD)/bin/$(PROG)
SANBIN := $(SANDIR)/$(PROG)
OBJS := $(SRCS:%.c=$(OBJDIR)/%.o)
SANOBJS := $(SRCS:%.c=$(SANDIR)/%.o)

# first rule, so that it stays the default goal
all: $(BIN)

include $(TOOL_MK_DIR)/lib.mk

TOOL_CFLAGS := $(TB_CFLAGS) -I$(TBLIB_DIR)

$(BIN): $(OBJS) $(TBLIB) | $(BUILD)/bin
	$(CC) $(TOOL_CFLAGS) $(EXTRA_CFLAGS) $(STATIC_LDFLAGS) $(EXTRA_LDFLAGS) \
		-o $@ $(OBJS) $(TBLIB) $(TB_LDLIBS)

$(OBJDIR)/%.o: $(HERE)/%.c | $(OBJDIR)
	$(CC) $(TOOL_CFLAGS) $(EXTRA_CFLAGS) -c -o $@ $<

# The sanitizer build never links statically.
$(SANBIN): $(SANOBJS) $(TBLIB_SAN)
	$(CC) $(TOOL_CFLAGS) $(TB_SAN_FLAGS) $(EXTRA_CFLAGS) $(EXTRA_LDFLAGS) \
		-o $@ $(SANOBJS) $(TBLIB_SAN) $(TB_LDLIBS)

$(SANDIR)/%.o: $(HERE)/%.c | $(SANDIR)
	$(CC) $(TOOL_CFLAGS) $(TB_SAN_FLAGS) $(EXTRA_CFLAGS) -c -o $@ $<

$(OBJDIR) $(SANDIR) $(BUILD)/bin:
	mkdir -p $@

test: $(BIN) $(SANBIN)
	$(HERE)/tests/run_tests.sh $(BIN) $(SANBIN)

clean:
	rm -rf $(OBJDIR) $(SANDIR) $(BIN)

-include $(OBJS:.o=.d) $(SANOBJS:.o=.d)

.PHONY: all test clean
