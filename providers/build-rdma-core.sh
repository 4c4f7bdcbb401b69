#!/usr/bin/env bash
# Builds the SCENIC rdma-core provider inside Debian 12's own rdma-core source tree.
#
#   providers/build-rdma-core.sh
#
# A provider only loads into a libibverbs with the same private ABI, and Debian's libibverbs-dev
# does not ship infiniband/driver.h, so the provider is built in Debian's rdma-core 44.0 tree
# (private ABI 34), as Debian builds its own providers.
#
# 1. Fetches Debian's rdma-core source (apt-get source; needs the deb-src entry that
#    tools/setup-host.sh adds), checks it against the .dsc checksums, unpacks and registers our
#    provider once into a cache directory outside the tree:
#      ${SCENIC_CACHE:-/var/cache/scenic}/rdma-core-<debian version>-<hash>/{src,build}
#    where <hash> covers the CMake flags and the functions below that shape the source tree
#    (prepare_source, sync_provider): change either and a fresh tree is built next to the old one.
#    If the mirror does not serve the upstream tarball, put rdma-core_<upstream>.orig.tar.gz in
#    ${SCENIC_CACHE}/downloads/rdma-core-<debian version>/ (or name it with RDMA_CORE_ORIG=path);
#    it must match the .dsc's SHA-256.
# 2. Copies providers/scenic/ to src/providers/scenic/ and uapi/rdma/scenic-abi.h to
#    src/kernel-headers/rdma/scenic-abi.h, only files whose content changed (and removes files we
#    deleted), so an unchanged tree is a no-op and a changed file is an incremental rebuild.
# 3. Configures once (CMake + Ninja, Release like debian/rules, without pyverbs, man pages and
#    static libraries) and builds only the provider target (and what it depends on).
# 4. Puts the results where tools/vm/mkimage looks:
#      build/provider/libscenic-rdmav34.so   (a copy of the real file)
#      build/provider/scenic.driver
#      build/provider/include -> the build tree's include/ (for providers/test.sh)
#
# Environment: SCENIC_CACHE (cache root), JOBS (parallel jobs, default nproc), RDMA_CORE_ORIG.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${SCENIC_CACHE:-/var/cache/scenic}
jobs=${JOBS:-$(nproc)}
out=$top/build/provider

cmake_flags=(
	-GNinja
	-DCMAKE_BUILD_TYPE=Release
	-DDISTRO_FLAVOUR=Debian
	-DCMAKE_INSTALL_PREFIX=/usr
	-DCMAKE_INSTALL_SYSCONFDIR:PATH=/etc
	-DNO_PYVERBS=1
	-DNO_MAN_PAGES=1
	-DENABLE_STATIC=0
)

msg() { printf 'build-rdma-core: %s\n' "$*" >&2; }
die() {
	msg "error: $*"
	exit 1
}

# Registers the scenic provider in a freshly unpacked rdma-core tree ($1). Part of the cache hash.
prepare_source() {
	local src=$1
	# the provider and its man pages, next to efa's
	sed -i 's|^\( *\)add_subdirectory(providers/efa)$|&\n\1add_subdirectory(providers/scenic)|' \
		"$src/CMakeLists.txt"
	sed -i 's|^\( *\)add_subdirectory(providers/efa/man)$|&\n\1add_subdirectory(providers/scenic/man)|' \
		"$src/CMakeLists.txt"
	# the uverbs ABI header: published internally and turned into kernel-abi/scenic-abi.h
	sed -i 's|^\( *\)rdma/efa-abi.h$|&\n\1rdma/scenic-abi.h|' "$src/kernel-headers/CMakeLists.txt"
	grep -q '^ *add_subdirectory(providers/scenic)$' "$src/CMakeLists.txt" ||
		die "could not register providers/scenic in $src/CMakeLists.txt"
	grep -q '^ *add_subdirectory(providers/scenic/man)$' "$src/CMakeLists.txt" ||
		die "could not register providers/scenic/man in $src/CMakeLists.txt"
	[ "$(grep -c '^ *rdma/scenic-abi.h$' "$src/kernel-headers/CMakeLists.txt")" -ge 2 ] ||
		die "could not list rdma/scenic-abi.h in $src/kernel-headers/CMakeLists.txt"
	mkdir -p "$src/providers/scenic"
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

# Puts our provider into the rdma-core tree ($1). Sets changed to the number of files that
# were copied or removed.
sync_provider() {
	local src=$1 f rel
	changed=0
	while IFS= read -r -d '' f; do
		rel=${f#"$here/scenic/"}
		copy_if_changed "$f" "$src/providers/scenic/$rel" && changed=$((changed + 1))
	done < <(find "$here/scenic" -type f ! -name '*~' -print0)
	while IFS= read -r -d '' f; do
		rel=${f#"$src/providers/scenic/"}
		if [ ! -f "$here/scenic/$rel" ]; then
			rm -f "$f"
			changed=$((changed + 1))
		fi
	done < <(find "$src/providers/scenic" -type f -print0)
	copy_if_changed "$top/uapi/rdma/scenic-abi.h" "$src/kernel-headers/rdma/scenic-abi.h" &&
		changed=$((changed + 1))
	return 0
}

for tool in cmake ninja apt-get dpkg-source flock sha256sum; do
	command -v "$tool" >/dev/null || die "$tool not found (run tools/setup-host.sh)"
done

# --- 1. the rdma-core source, cached --------------------------------------------------------
mkdir -p "$cache"
exec 9>"$cache/.build-rdma-core.lock"
if ! flock -n 9; then
	msg "another build-rdma-core.sh holds $cache/.build-rdma-core.lock, waiting"
	flock 9
fi

dsc=$(apt-get source --print-uris rdma-core 2>/dev/null | grep -o "rdma-core_[^ ']*\.dsc" |
	head -n1 | sed 's/%2[bB]/+/g; s/%3[aA]/:/g') || true
[ -n "$dsc" ] ||
	die "apt-get source finds no rdma-core: is the deb-src entry there (tools/setup-host.sh)?"
version=${dsc#rdma-core_}
version=${version%.dsc}

hash=$({
	printf '%s\n' "${cmake_flags[@]}"
	declare -f prepare_source copy_if_changed sync_provider
} | sha256sum | cut -c1-10)
dir=$cache/rdma-core-$version-$hash
dl=$cache/downloads/rdma-core-$version

# Files the .dsc lists, with their SHA-256 ("sum name" lines).
dsc_files() {
	awk '/^Checksums-Sha256:/ {on = 1; next} /^[^ ]/ {on = 0} on && NF == 3 {print $1, $3}' "$1"
}

if [ ! -d "$dir/src" ]; then
	mkdir -p "$dl"
	if [ ! -f "$dl/$dsc" ]; then
		msg "fetching Debian's rdma-core source $version into $dl"
		(cd "$dl" && apt-get source --download-only rdma-core >"$dl/fetch.log" 2>&1) || true
		[ -f "$dl/$dsc" ] || die "apt-get source did not produce $dl/$dsc (see $dl/fetch.log)"
	fi
	while read -r sum name; do
		if [ ! -f "$dl/$name" ] && [ -n "${RDMA_CORE_ORIG:-}" ] &&
			[ "$(basename "$RDMA_CORE_ORIG")" = "$name" ]; then
			cp "$RDMA_CORE_ORIG" "$dl/$name.tmp" && mv "$dl/$name.tmp" "$dl/$name"
		fi
		if [ ! -f "$dl/$name" ]; then
			msg "fetching $name"
			(cd "$dl" && apt-get source --download-only rdma-core >"$dl/fetch.log" 2>&1) || true
		fi
		[ -f "$dl/$name" ] ||
			die "$name is missing: Debian's mirror did not serve it (see $dl/fetch.log)." \
				"Put the file (SHA-256 $sum) into $dl or name it with RDMA_CORE_ORIG=path."
		echo "$sum  $dl/$name" | sha256sum -c --quiet - ||
			die "$dl/$name does not match the SHA-256 in $dsc"
	done < <(dsc_files "$dl/$dsc")

	msg "unpacking and registering the provider into $dir/src"
	rm -rf "$dir/src.tmp"
	mkdir -p "$dir"
	dpkg-source --no-check -x "$dl/$dsc" "$dir/src.tmp" >/dev/null
	rm -f "$dir"/rdma-core_*.orig.tar.* # dpkg-source leaves a link to the tarball next to the tree
	prepare_source "$dir/src.tmp"
	mv "$dir/src.tmp" "$dir/src"
fi

sync_provider "$dir/src"

# --- 2. configure and build ----------------------------------------------------------------
if [ ! -f "$dir/build/build.ninja" ]; then
	msg "configuring rdma-core in $dir/build (${cmake_flags[*]})"
	rm -rf "$dir/build"
	cmake -S "$dir/src" -B "$dir/build" "${cmake_flags[@]}" >"$dir/configure.log" 2>&1 ||
		die "configure failed, see $dir/configure.log"
fi

if [ "$changed" != 0 ]; then
	msg "$changed provider file(s) changed: building the scenic provider (-j$jobs)"
else
	msg "provider unchanged, checking the cached build"
fi
start=$(date +%s)
# The shared library's file target (lib/libscenic.so.1.0.<version>); its target name otherwise.
target=$(ninja -C "$dir/build" -t targets all | awk -F: '/^lib\/libscenic\.so\.[0-9.]*:/ {t = $1} END {print t}')
ninja -C "$dir/build" -j"$jobs" "${target:-scenic}" 2>&1 | tee "$dir/build.log" >&2 ||
	die "the provider build failed, see $dir/build.log"
# rdma-core does not build with -Werror by default: our provider must not add warnings.
if grep -q 'providers/scenic/.*warning:' "$dir/build.log"; then
	touch "$dir/src/providers/scenic/"*.c # warn again next time
	die "warnings in providers/scenic (see above)"
fi

lib=$(find "$dir/build/lib" -maxdepth 1 -type f -name 'libscenic.so.*' -print -quit)
[ -n "$lib" ] || die "libscenic.so was not built in $dir/build/lib"
pabi=$(sed -n 's/^ *set( *IBVERBS_PABI_VERSION *"\{0,1\}\([0-9]*\)"\{0,1\} *)/\1/p' "$dir/src/CMakeLists.txt")
[ "$pabi" = 34 ] || die "expected libibverbs private ABI 34, $dir/src/CMakeLists.txt has '$pabi'"
suffix=-rdmav$pabi.so
msg "provider ready ($(($(date +%s) - start)) s)"

# --- 3. the results in the tree ------------------------------------------------------------
mkdir -p "$out"
copy_if_changed "$lib" "$out/libscenic$suffix" || true
drv=$dir/build/etc/libibverbs.d/scenic.driver
if [ -f "$drv" ]; then
	copy_if_changed "$drv" "$out/scenic.driver" || true
else
	printf 'driver scenic\n' >"$out/scenic.driver"
fi
ln -sfn "$dir/build/include" "$out/include"
msg "build/provider/libscenic$suffix and scenic.driver from $dir"
