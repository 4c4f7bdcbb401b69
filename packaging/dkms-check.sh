#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dkms add/build/install/remove of the scenic-dkms package's source against every
# installed kernel header tree of the kernels we support (Debian 6.1, and
# bookworm-backports 6.12), in a private DKMS tree: the host's /var/lib/dkms and
# /lib/modules are not touched, the modules are not signed.
#
#   packaging/dkms-check.sh [build/packages/scenic-dkms_<version>_all.deb]
#
# Checks, per kernel: the three modules are built with no compiler warning,
# installed under <installtree>/<kver>/updates/dkms with the kernel's vermagic,
# and `dkms remove` leaves nothing of them in the DKMS tree or the install tree.
# Prints TAP and ends with "N passed, N failed"; exit status 1 on a failure.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deb=${1:-$(ls "$top"/build/packages/scenic-dkms_*_all.deb 2>/dev/null | head -n 1)}
[ -f "$deb" ] || { echo "dkms-check: no scenic-dkms .deb (packaging/build-packages.sh --deb)" >&2; exit 2; }
command -v dkms >/dev/null || { echo "dkms-check: needs dkms (make setup)" >&2; exit 2; }

tmp=$(mktemp -d /tmp/scenic-dkms-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/root"
src=$(ls -d "$tmp"/root/usr/src/scenic-*)
ver=${src##*/scenic-}
opts=(--dkmstree "$tmp/dkms" --sourcetree "$tmp/root/usr/src" --installtree "$tmp/inst" --no-depmod)
mods=(scenic scenic_eth scenic_rdma)
# no signing key is generated or used (DKMS signs with /var/lib/dkms/mok.key otherwise)
export sign_file=/nonexistent

n=0 pass=0 fail=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }

kvers=()
for h in /usr/src/linux-headers-6.1.*-amd64 /usr/src/linux-headers-6.12.*-amd64; do
	[ -d "$h" ] && kvers+=("${h#/usr/src/linux-headers-}")
done
echo "1..$((${#kvers[@]} * 4 + 1))"
if [ ${#kvers[@]} -lt 2 ]; then
	notok "headers of both 6.1 and 6.12 installed (found: ${kvers[*]:-none}; make setup)"
else
	ok "headers: ${kvers[*]}"
fi

mkdir -p "$tmp/dkms" "$tmp/inst"
dkms add -m scenic -v "$ver" "${opts[@]}" >"$tmp/add.log" 2>&1 || { cat "$tmp/add.log"; exit 1; }
for k in "${kvers[@]}"; do
	mkdir -p "$tmp/inst/$k"
	t0=$(date +%s)
	if dkms build -m scenic -v "$ver" -k "$k" "${opts[@]}" >"$tmp/build-$k.log" 2>&1; then
		warn=$(grep -E 'warning:|error:' "$tmp/dkms/scenic/$ver/$k"/*/log/make.log || true)
		if [ -z "$warn" ]; then
			ok "$k: dkms build, no warnings ($(($(date +%s) - t0)) s)"
		else
			notok "$k: dkms build has warnings"
			echo "$warn" | sed 's/^/# /'
		fi
	else
		notok "$k: dkms build"
		sed 's/^/# /' "$tmp/build-$k.log" | tail -n 20
		grep -hE 'error|warning' "$tmp/dkms/scenic/$ver/build/make.log" 2>/dev/null |
			sed 's/^/# /' | head -n 30 || true
	fi
	if dkms install -m scenic -v "$ver" -k "$k" "${opts[@]}" >"$tmp/install-$k.log" 2>&1; then
		bad=""
		for m in "${mods[@]}"; do
			f=$(ls "$tmp/inst/$k/updates/dkms/$m.ko"* 2>/dev/null | head -n 1)
			vm=$([ -n "$f" ] && /sbin/modinfo -F vermagic "$f" | cut -d' ' -f1)
			[ "$vm" = "$k" ] || bad+=" $m(${vm:-missing})"
		done
		if [ -z "$bad" ]; then
			ok "$k: dkms install: ${mods[*]} with vermagic $k"
		else
			notok "$k: dkms install: wrong or missing modules:$bad"
		fi
	else
		notok "$k: dkms install"
		sed 's/^/# /' "$tmp/install-$k.log" | tail -n 20
	fi
	status=$(dkms status -m scenic -v "$ver" -k "$k" "${opts[@]}" 2>/dev/null || true)
	if echo "$status" | grep -q ": installed"; then
		ok "$k: dkms status: $status"
	else
		notok "$k: dkms status says installed ($status)"
	fi
done
dkms remove -m scenic -v "$ver" --all "${opts[@]}" >"$tmp/remove.log" 2>&1 || cat "$tmp/remove.log"
for k in "${kvers[@]}"; do
	left=$(find "$tmp/inst/$k" "$tmp/dkms/scenic" -type f 2>/dev/null | head -n 5 || true)
	if [ -z "$left" ]; then
		ok "$k: dkms remove --all leaves no file"
	else
		notok "$k: dkms remove --all leaves files: $left"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
