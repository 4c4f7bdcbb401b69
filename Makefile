# SPDX-License-Identifier: MIT
# scenic: top-level orchestration. The real builds are Kbuild (kmod/), CMake (C++ model and
# tools), Debian's QEMU source (qemu-device/build-qemu.sh) and providers/Makefile (provider).
#
#   make demo     install what is missing, build everything, boot two emulated SCENIC nodes
#   make check    install what is missing, build everything, run unit tests and VM selftests
#
# `make -C $KDIR M=$PWD` from here builds the modules like any in-tree-style project: Kbuild
# reads ./Kbuild, not this file.

# The guest kernel: the newest Debian 6.1 linux-image installed on the host (as tools/vm/mkimage).
KVER ?= $(shell ls /boot/vmlinuz-6.1.*-amd64 2>/dev/null | sed 's|/boot/vmlinuz-||' | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build
BUILD := $(CURDIR)/build
CMAKE_BUILD := $(BUILD)/cmake
export KVER KDIR

.PHONY: all setup regmap regmap-check model runtime scu-images model-asan fuzz qemu qemu-asan kmod provider image demo shell unit vmtest check clean help

help:
	@sed -n '1,9p' Makefile | sed 's/^# \{0,1\}//'

all: regmap-check model runtime qemu kmod provider image

setup:
	bash tools/setup-host.sh

regmap:
	python3 tools/regmap/gen_regmap.py tools/regmap/scenic-regs.toml .

regmap-check:
	python3 tools/regmap/gen_regmap.py tools/regmap/scenic-regs.toml . --check

$(CMAKE_BUILD)/build.ninja:
	cmake -S . -B $(CMAKE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

model: $(CMAKE_BUILD)/build.ninja
	cmake --build $(CMAKE_BUILD)

# The SCU runtime alone (runtime/README.md): libscenic-runtime, scenicctl, the Python module,
# their tests, the examples and build/scu/<name>.scuimg. `make model` builds them too (one CMake
# project).
runtime: $(CMAKE_BUILD)/build.ninja
	cmake --build $(CMAKE_BUILD) --target scenic_runtime scenicctl scenic_runtime_test scu_images \
		scenic_python scenic_example_aes_ctr scenic_example_hash_partition

scu-images: $(CMAKE_BUILD)/build.ninja
	cmake --build $(CMAKE_BUILD) --target scu_images

# The model and its unit tests under ASan + UBSan + _GLIBCXX_ASSERTIONS, and the libFuzzer
# harness (clang): lanes of make check (docs/fuzzing.md).
ASAN_BUILD := $(BUILD)/cmake-asan
FUZZ_BUILD := $(BUILD)/fuzz
$(ASAN_BUILD)/build.ninja:
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCENIC_SANITIZE=ON

model-asan: $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) --target scenic_model_test scenic_rdma_test scenic_containment_test \
		scenic_scu_test scenic_loopback_test scenic_runtime_test scenic_switch_test

$(FUZZ_BUILD)/build.ninja:
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DSCENIC_FUZZ=ON

fuzz: $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) --target scenic_fuzz_model scenic_fuzz_corpus

qemu: model
	bash qemu-device/build-qemu.sh

# The same QEMU relinked with the model of build/cmake-asan (ASan + UBSan): the vm-asan lane of
# make check runs a few VM boots on it (docs/fuzzing.md). Costs a link when model-asan is built.
qemu-asan: model
	bash qemu-device/build-qemu.sh --asan

kmod:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

# The rdma-core provider, out of tree against Debian's libibverbs (providers/README.md).
provider:
	$(MAKE) -C providers

image: kmod provider
	tools/vm/mkimage

demo: setup all
	tools/vm/demo.sh

# Log into node 1 of two wired SCENIC nodes (node 2 is 10.0.0.2 and runs an iperf3 server);
# `exit` stops both.
shell: all
	tools/vm/scenic-vm -n 2 --shell --timeout 3600 --cmd '2:iperf3 -s -D; \
		while :; do ib_write_bw -d scenic_0 -x 1 -N --report_gbits >/dev/null 2>&1; sleep 1; done &'

unit: model
	ctest --test-dir $(CMAKE_BUILD) --output-on-failure

vmtest: image qemu
	selftests/run-vm-tests

check: setup all model-asan fuzz qemu-asan
	tools/run-tests.sh

clean:
	rm -rf $(BUILD)
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
