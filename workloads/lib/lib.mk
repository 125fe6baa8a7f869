# SPDX-License-Identifier: MIT
# libtbutil, the helpers shared by gups and antagonist: $(BUILD)/lib/libtbutil.a,
# and an ASan/UBSan copy in $(BUILD)/obj/tbutil-asan/ for the programs'
# sanitized test builds. Included by workloads/lib/Makefile and, through
# tool.mk, by each program's Makefile, so a program builds the library on
# demand. Needs BUILD set before the include; defines TB_CFLAGS,
# TB_SAN_FLAGS, TB_LDLIBS, TBLIB_DIR, TBLIB and TBLIB_SAN. Honours CC,
# EXTRA_CFLAGS and AR.
ifndef TBLIB_DIR
# before any include: MAKEFILE_LIST grows with every included file
TBLIB_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

TB_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -pthread \
	-MMD -MP
TB_SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
TB_LDLIBS := -lnuma -lm -pthread

TBLIB_SRCS := tbutil.c tbcli.c
TBLIB_OBJDIR := $(BUILD)/obj/tbutil
TBLIB_SANDIR := $(BUILD)/obj/tbutil-asan
TBLIB := $(BUILD)/lib/libtbutil.a
TBLIB_SAN := $(TBLIB_SANDIR)/libtbutil.a
TBLIB_OBJS := $(TBLIB_SRCS:%.c=$(TBLIB_OBJDIR)/%.o)
TBLIB_SANOBJS := $(TBLIB_SRCS:%.c=$(TBLIB_SANDIR)/%.o)

$(TBLIB): $(TBLIB_OBJS) | $(BUILD)/lib
	rm -f $@
	$(AR) rcs $@ $(TBLIB_OBJS)

$(TBLIB_SAN): $(TBLIB_SANOBJS)
	rm -f $@
	$(AR) rcs $@ $(TBLIB_SANOBJS)

$(TBLIB_OBJDIR)/%.o: $(TBLIB_DIR)/%.c | $(TBLIB_OBJDIR)
	$(CC) $(TB_CFLAGS) $(EXTRA_CFLAGS) -c -o $@ $<

$(TBLIB_SANDIR)/%.o: $(TBLIB_DIR)/%.c | $(TBLIB_SANDIR)
	$(CC) $(TB_CFLAGS) $(TB_SAN_FLAGS) $(EXTRA_CFLAGS) -c -o $@ $<

$(TBLIB_OBJDIR) $(TBLIB_SANDIR) $(BUILD)/lib:
	mkdir -p $@

-include $(TBLIB_OBJS:.o=.d) $(TBLIB_SANOBJS:.o=.d)
endif
