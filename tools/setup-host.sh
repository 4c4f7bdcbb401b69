#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs, from Debian 12's archive only, everything the project needs to build and test:
# toolchains, QEMU build dependencies, the guest kernel and user space, RTL tools.
# Idempotent: a second run only checks.
set -euo pipefail

[ "$(id -u)" -eq 0 ] || { echo "setup-host: run as root (apt-get)" >&2; exit 1; }

src=/etc/apt/sources.list.d/scenic-debian.sources
if [ ! -f "$src" ]; then
	# deb-src (bookworm only) for `apt-get source qemu rdma-core`; backports binaries only, for
	# the 6.12 headers W=1 check (a backports deb-src would make `apt-get source` pick QEMU 10).
	cat >"$src" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

pkgs=(
	# host toolchain and libraries
	build-essential cmake ninja-build meson pkg-config python3 python3-venv git dpkg-dev patch
	libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev
	libdeflate-dev # the device model's ICRC (PCLMULQDQ crc32)
	clang-format clang-tidy
	ccache # the C/C++ builds' compiler cache in /var/cache/scenic/ccache (CMakeLists.txt)
	sparse # kmod/build-check.sh: W=1 and sparse (C=2)
	clang libclang-rt-14-dev # libFuzzer and the sanitizers' runtimes (qemu-device/fuzz)
	# QEMU 7.2 build dependencies (x86_64-softmmu, minimal features)
	libglib2.0-dev libpixman-1-dev zlib1g-dev flex bison libfdt-dev
	# QEMU run time: firmware from Debian (the +dfsg source has none)
	seabios qemu-system-data ipxe-qemu
	# guest image: Debian kernel, modules, headers and user space
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 busybox-static kmod cpio zstd pciutils
	iproute2 ethtool iputils-ping iperf3 rdma-core ibverbs-utils perftest rdmacm-utils
	python3-pyverbs # rdma-core's test suite for the rdma-suite boot (mkimage --pyverbs)
	libelf-dev bc libssl-dev # the debug guest kernel (tools/vm/build-debug-kernel)
	rsync # kselftest's lib.mk installs with it (selftests/Makefile)
	# rdma-core 44.0 source build (provider) and the provider's unit tests
	libnl-3-dev libnl-route-3-dev libudev-dev libsystemd-dev python3-docutils cython3 pandoc
	libibverbs-dev
	pybind11-dev python3-dev python3-numpy # the Python module scenic (runtime/python)
	python3-matplotlib # the PNGs of tools/bench (scu-partition)
	# RTL
	verilator yosys
	# packages (packaging/): Debian and RPM builds, lintian, the DKMS check
	debhelper dh-dkms dkms lintian rpm rpmlint
)
need=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
fi

# The bookworm-backports 6.12 kernel: its headers for the W=1 build check and DKMS, its image
# for the 6.12 guest lane (packaging/deb-vm-test.sh --kver 6.12). The versioned packages alone,
# so that the 6.1 guest kernel (linux-image-amd64) and the host's default headers stay as they are.
if ! ls -d /usr/src/linux-headers-6.12*-amd64 >/dev/null 2>&1 ||
	! ls /boot/vmlinuz-6.12*-amd64 >/dev/null 2>&1; then
	apt-get update -q
	# The packages the backports metapackages point at (those are on the mirror).
	hdr=$(apt-cache show linux-headers-amd64/bookworm-backports 2>/dev/null |
		sed -n 's/^Depends: \(linux-headers-[^ ,]*\).*/\1/p' | head -n 1)
	if [ -n "$hdr" ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"$hdr/bookworm-backports" "${hdr/headers/image}/bookworm-backports"
	else
		echo "setup-host: warning: no 6.12 kernel in bookworm-backports" >&2
	fi
fi
echo "setup-host: ok"
