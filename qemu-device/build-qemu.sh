#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds qemu-system-x86_64 with the SCENIC PCIe device from Debian 12's own QEMU source package.
#
#   qemu-device/build-qemu.sh
#
# 1. Builds the C++ device model (libscenic_model.a) with the project's CMake in build/cmake.
# 2. Fetches Debian's QEMU source (apt-get source; needs the deb-src entry tools/setup-host.sh
#    adds), unpacks and patches it once into a cache directory outside the tree:
#      ${SCENIC_CACHE:-/var/cache/scenic}/qemu-<debian version>-<hash>/{src,build}
#    where <hash> covers the configure flags, the functions below that shape the source tree
#    (prepare_source, sync_device) and the patches of qemu-device/patches: change any and a fresh
#    tree is built next to the old one.
# 3. Copies our device (glue, meson.build, headers, model library) into src/hw/net/scenic, only
#    the files whose content changed, so an unchanged tree is a no-op and a change to the device
#    is an incremental rebuild.
# 4. Builds qemu-system-x86_64 and copies it to build/qemu/qemu-system-x86_64.
# 5. With --asan, also relinks that build's objects with the model library of build/cmake-asan
#    (ASan + UBSan + _GLIBCXX_ASSERTIONS, as `make model-asan`) and -fsanitize=address,undefined
#    into build/qemu/qemu-system-x86_64-asan (the VM lane vm-asan, docs/fuzzing.md). Only the
#    model is instrumented: QEMU's own C and our glue (qemu/scenic.c) are not rebuilt. The relink
#    is cached next to the plain binary, keyed by the link command and the inputs it changes.
#
#   qemu-device/build-qemu.sh --asan
#
# Environment: SCENIC_CACHE (cache root), JOBS (parallel jobs, default nproc).
set -euo pipefail

asan=0
case "${1:-}" in
--asan) asan=1 ;;
"") ;;
*)
	printf 'usage: %s [--asan]\n' "$0" >&2
	exit 2
	;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${SCENIC_CACHE:-/var/cache/scenic}
jobs=${JOBS:-$(nproc)}

configure_flags=(
	--target-list=x86_64-softmmu
	--without-default-features
	--disable-docs
	--disable-install-blobs # the +dfsg source has no firmware; Debian's seabios is used
)

msg() { printf 'build-qemu: %s\n' "$*" >&2; }
die() {
	msg "error: $*"
	exit 1
}

# Patches applied once to a freshly unpacked Debian source tree ($1). Part of the cache hash.
prepare_source() {
	local src=$1
	# The +dfsg tarball has no edk2 blobs, but meson unpacks them whenever bzip2 is installed.
	sed -i 's/^\( *\)unpack_edk2_blobs = bzip2.found()$/\1unpack_edk2_blobs = false # scenic: no blobs in +dfsg/' \
		"$src/meson.build"
	grep -q 'unpack_edk2_blobs = false # scenic' "$src/meson.build" ||
		die "could not patch the edk2 blob unpacking in $src/meson.build"
	cat >>"$src/hw/net/Kconfig" <<'KCONFIG'

config SCENIC
    bool
    default y if PCI_DEVICES
    depends on PCI && MSI_NONBROKEN
KCONFIG
	printf "\nsubdir('scenic')\n" >>"$src/hw/net/meson.build"
	mkdir -p "$src/hw/net/scenic/include/scenic"
	local p
	for p in "$here"/patches/*.patch; do
		patch -d "$src" -p1 --quiet --forward <"$p" || die "could not apply $p"
	done
}

# Copies $1 to $2 if the content differs (keeping the old file and its mtime otherwise).
# Returns 0 when it copied.
copy_if_changed() {
	if [ -f "$2" ] && cmp -s "$1" "$2"; then
		return 1
	fi
	mkdir -p "$(dirname "$2")"
	cp "$1" "$2.tmp"
	mv -f "$2.tmp" "$2"
	return 0
}

# Puts our device into the QEMU source tree ($1); $2 is the model library.
# Sets device_changed and lib_changed to 1 when something was copied.
sync_device() {
	local dst=$1/hw/net/scenic
	device_changed=0
	lib_changed=0
	copy_if_changed "$here/qemu/scenic.c" "$dst/scenic.c" && device_changed=1
	copy_if_changed "$here/qemu/meson.build" "$dst/meson.build" && device_changed=1
	copy_if_changed "$here/model/include/scenic/model.h" "$dst/include/scenic/model.h" &&
		device_changed=1
	copy_if_changed "$top/uapi/scenic_regs.h" "$dst/include/scenic_regs.h" && device_changed=1
	copy_if_changed "$2" "$dst/libscenic_model.a" && lib_changed=1
	return 0
}

# --- 1. the device model -------------------------------------------------------------------
for tool in cmake ninja meson apt-get dpkg-source flock; do
	command -v "$tool" >/dev/null || die "$tool not found (run tools/setup-host.sh)"
done

msg "building the device model (build/cmake)"
if [ ! -f "$top/build/cmake/CMakeCache.txt" ]; then
	cmake -S "$top" -B "$top/build/cmake" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$top/build/cmake" --target scenic_model
model_lib=$top/build/cmake/qemu-device/libscenic_model.a
[ -f "$model_lib" ] || die "$model_lib was not built"
asan_lib=$top/build/cmake-asan/qemu-device/libscenic_model.a
if [ "$asan" = 1 ]; then
	msg "building the device model with ASan + UBSan (build/cmake-asan)"
	if [ ! -f "$top/build/cmake-asan/CMakeCache.txt" ]; then
		cmake -S "$top" -B "$top/build/cmake-asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DSCENIC_SANITIZE=ON >/dev/null
	fi
	cmake --build "$top/build/cmake-asan" --target scenic_model
	[ -f "$asan_lib" ] || die "$asan_lib was not built"
fi

# --- 2. the QEMU source, cached ------------------------------------------------------------
mkdir -p "$cache"
exec 9>"$cache/.build-qemu.lock"
if ! flock -n 9; then
	msg "another build-qemu.sh holds $cache/.build-qemu.lock, waiting"
	flock 9
fi

dsc=$(apt-get source --print-uris qemu 2>/dev/null | grep -o "qemu_[^ ']*\.dsc" | head -n1 |
	sed 's/%2[bB]/+/g; s/%3[aA]/:/g') || true
[ -n "$dsc" ] || die "apt-get source qemu finds nothing: is the deb-src entry there (tools/setup-host.sh)?"
version=${dsc#qemu_}
version=${version%.dsc}

hash=$({
	printf '%s\n' "${configure_flags[@]}"
	declare -f prepare_source copy_if_changed sync_device
	grep -hv "^SPDX-License-Identifier:" "$here"/patches/*.patch # the licence line is no change to QEMU
} | sha256sum | cut -c1-10)
dir=$cache/qemu-$version-$hash
dl=$cache/downloads/$version

if [ ! -d "$dir/src" ]; then
	if [ ! -f "$dl/$dsc" ]; then
		msg "fetching Debian's QEMU source $version"
		mkdir -p "$dl"
		(cd "$dl" && apt-get source --download-only qemu)
		[ -f "$dl/$dsc" ] || die "apt-get source did not produce $dl/$dsc"
	fi
	msg "unpacking and patching into $dir/src"
	rm -rf "$dir/src.tmp"
	mkdir -p "$dir"
	dpkg-source --no-check -x "$dl/$dsc" "$dir/src.tmp" >/dev/null
	rm -f "$dir"/qemu_*.orig.tar.* # dpkg-source leaves a link to the tarball next to the tree
	prepare_source "$dir/src.tmp"
	mv "$dir/src.tmp" "$dir/src"
fi

sync_device "$dir/src" "$model_lib"

# --- 3. configure and build ----------------------------------------------------------------
if [ ! -f "$dir/build/build.ninja" ]; then
	msg "configuring QEMU in $dir/build (${configure_flags[*]})"
	rm -rf "$dir/build"
	mkdir -p "$dir/build"
	(cd "$dir/build" && "$dir/src/configure" "${configure_flags[@]}") >"$dir/configure.log" 2>&1 ||
		die "configure failed, see $dir/configure.log"
fi

binary=$dir/build/qemu-system-x86_64
if [ "$lib_changed" = 1 ]; then
	# Meson does not track link arguments: make the new model library reach the binary.
	rm -f "$binary"
fi
if [ "$device_changed" = 1 ] || [ "$lib_changed" = 1 ] || [ ! -x "$binary" ]; then
	msg "building qemu-system-x86_64 in $dir/build (-j$jobs)"
else
	msg "device unchanged, checking the cached build"
fi
start=$(date +%s)
ninja -C "$dir/build" -j"$jobs" qemu-system-x86_64 2>&1 | tee "$dir/build.log" >&2 ||
	die "the QEMU build failed, see $dir/build.log"
# QEMU does not build with -Werror: our device must not add warnings.
if grep -q 'hw/net/scenic/.*warning:' "$dir/build.log"; then
	rm -f "$dir/build/libcommon.fa.p/hw_net_scenic_scenic.c.o" # warn again next time
	die "warnings in the SCENIC glue (see above)"
fi
[ -x "$binary" ] || die "$binary was not built"
msg "qemu-system-x86_64 ready ($(($(date +%s) - start)) s)"

# --- 4. the binary in the tree --------------------------------------------------------------
# A copy, not a link: the cached build is shared by every checkout on the machine, and the next
# checkout's device sources relink it. Copied under the lock, renamed into place atomically.
mkdir -p "$top/build/qemu"
out=$top/build/qemu/qemu-system-x86_64
cp "$binary" "$out.tmp.$$"
mv -f "$out.tmp.$$" "$out"
msg "build/qemu/qemu-system-x86_64 (copied from $binary)"

# --- 5. --asan: the same objects, the sanitized model ---------------------------------------
[ "$asan" = 1 ] || exit 0
# The final link of the plain binary as ninja runs it, with the model library swapped, the
# sanitizer runtimes added and another output. Still under the lock: the objects are this
# checkout's.
link=$(ninja -C "$dir/build" -t commands qemu-system-x86_64 | tail -n 1)
glue_lib=$dir/src/hw/net/scenic/libscenic_model.a
case "$link" in
*" -o qemu-system-x86_64 "*"$glue_lib"*) ;;
*) die "unexpected link command for qemu-system-x86_64: ${link:0:300}" ;;
esac
link=${link/" -o qemu-system-x86_64 "/" -o qemu-system-x86_64-asan.tmp "}
link="${link//"$glue_lib"/"$asan_lib"} -fsanitize=address,undefined"
asan_bin=$dir/build/qemu-system-x86_64-asan
key=$({
	printf '%s\n' "$link"
	sha256sum "$asan_lib" "$binary" | cut -d' ' -f1
} | sha256sum | cut -c1-16)
if [ -x "$asan_bin" ] && [ "$(cat "$asan_bin.key" 2>/dev/null)" = "$key" ]; then
	msg "qemu-system-x86_64-asan up to date ($key)"
else
	msg "linking qemu-system-x86_64-asan with $asan_lib"
	start=$(date +%s)
	(cd "$dir/build" && eval "$link") || die "the ASan link failed"
	mv -f "$dir/build/qemu-system-x86_64-asan.tmp" "$asan_bin"
	echo "$key" >"$asan_bin.key"
	msg "qemu-system-x86_64-asan linked ($(($(date +%s) - start)) s)"
fi
# The sanitizers really are in: their runtimes are linked and the model's code calls them.
needed=$(readelf -d "$asan_bin" | grep NEEDED)
grep -q 'libasan\.so' <<<"$needed" || die "$asan_bin does not link libasan"
grep -q 'libubsan\.so' <<<"$needed" || die "$asan_bin does not link libubsan"
syms=$(nm -u "$asan_bin")
grep -q '__asan_report_load' <<<"$syms" || die "$asan_bin has no ASan-instrumented code"
grep -q '__ubsan_handle_.*_abort' <<<"$syms" || die "$asan_bin has no UBSan-instrumented code"
out=$top/build/qemu/qemu-system-x86_64-asan
cp "$asan_bin" "$out.tmp.$$"
mv -f "$out.tmp.$$" "$out"
msg "build/qemu/qemu-system-x86_64-asan (copied from $asan_bin)"
