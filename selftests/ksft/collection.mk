# SPDX-License-Identifier: MIT
# Included by the Makefile of each kselftest collection (selftests/<collection>/Makefile), after
# it sets TEST_PROGS, TEST_FILES and TEST_GEN_PROGS_EXTENDED: the kernel's own lib.mk does the
# rest (all, run_tests, install, emit_tests, clean). The framework comes from Debian's
# linux-source-6.1 through fetch-framework; KSFT_FRAMEWORK= points at another copy (a kernel
# tree's tools/testing/selftests).
ksft_here := $(dir $(lastword $(MAKEFILE_LIST)))
KSFT_FRAMEWORK ?= $(shell $(ksft_here)fetch-framework)
ifeq ($(wildcard $(KSFT_FRAMEWORK)/lib.mk),)
$(error no kselftest lib.mk in '$(KSFT_FRAMEWORK)': install linux-source-6.1 or set KSFT_FRAMEWORK)
endif
# -I: the C tests include the framework's kselftest.h / kselftest_harness.h from there
CFLAGS += -O2 -Wall -Wextra -Wshadow -Werror -I$(KSFT_FRAMEWORK)
include $(KSFT_FRAMEWORK)/lib.mk
