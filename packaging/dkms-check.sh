#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The built .debs installed into a private root, the way a user gets them: dpkg unpacks them,
# DKMS builds and installs scenic-dkms for every installed kernel header tree we support
# (Debian 6.1 and bookworm-backports 6.12), then dpkg purges the packages. Nothing on the host
# changes: dpkg works on its own database (--root), DKMS on its own tree and install tree
# (a `dkms` wrapper first in PATH, also for the packages' maintainer scripts), no signing.
#
#   packaging/dkms-check.sh [DIR]        DIR: the .debs (default build/packages)
#
# Checks, per kernel: `dkms build` with no compiler warning; the three modules installed under
# <root>/lib/modules/<kver>/updates/dkms with that kernel's vermagic; `dkms status` says
# installed. Then the purge (scenic-dkms' prerm runs `dkms remove --all`): every file that
# `dpkg -L` listed is gone, no module and no DKMS state is left, nothing at all in the root but
# dpkg's database. Prints TAP and "N passed, N failed"; exit status 1 on a failure.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/packaging/private-root.sh"
dir=${1:-$top/build/packages}
pkgs=(scenic-dkms libscenic1 ibverbs-provider-scenic libscenic-runtime0 libscenic-dev scenic-tools
	python3-scenic)
debs=()
for p in "${pkgs[@]}"; do
	f=$(ls "$dir/${p}_"*.deb 2>/dev/null | head -n 1)
	[ -n "$f" ] || { echo "dkms-check: no $p .deb in $dir (packaging/build-packages.sh --deb)" >&2; exit 2; }
	debs+=("$f")
done
[ -x /usr/sbin/dkms ] || { echo "dkms-check: needs dkms (make setup)" >&2; exit 2; }

tmp=$(mktemp -d /tmp/scenic-dkms-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
# no signing key is generated or used (DKMS signs with /var/lib/dkms/mok.key otherwise)
private_root "$root" "$tmp/bin"
# dependencies (libc, libibverbs, dkms) are the host's; maintainer scripts run outside a chroot
# (the root has no shell) with the wrapper above
dpkg_r() { dpkg --root="$root" --force-depends --force-script-chrootless "$@"; }
mods=(scenic scenic_eth scenic_rdma scenic_scu)

n=0 pass=0 fail=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }

kvers=()
for h in /usr/src/linux-headers-6.1.*-amd64 /usr/src/linux-headers-6.12.*-amd64; do
	[ -d "$h" ] && kvers+=("${h#/usr/src/linux-headers-}")
done
echo "1..$((${#kvers[@]} * 3 + 5))"
if [ ${#kvers[@]} -lt 2 ]; then
	notok "headers of both 6.1 and 6.12 installed (found: ${kvers[*]:-none}; make setup)"
else
	ok "headers: ${kvers[*]}"
fi

# the unpack is what `dpkg -i` does before configure; configure would run dh_dkms'
# postinst, which builds for the host's own kernels: done by hand below for the chosen ones
if dpkg_r --unpack "${debs[@]}" >"$tmp/unpack.log" 2>&1; then
	ok "dpkg --unpack ${pkgs[*]}"
else
	notok "dpkg --unpack"; sed 's/^/# /' "$tmp/unpack.log"
fi
for p in "${pkgs[@]}"; do dpkg --root="$root" -L "$p"; done | sort -u >"$tmp/files"
ver=$(dpkg-deb -f "${debs[0]}" Version)
dkms add -m scenic -v "$ver" >"$tmp/add.log" 2>&1 || sed 's/^/# /' "$tmp/add.log"

for k in "${kvers[@]}"; do
	mkdir -p "$root/lib/modules/$k"
	t0=$(date +%s)
	if dkms build -m scenic -v "$ver" -k "$k" >"$tmp/build-$k.log" 2>&1; then
		warn=$(grep -E 'warning:|error:' "$root/var/lib/dkms/scenic/$ver/$k"/*/log/make.log || true)
		if [ -z "$warn" ]; then
			ok "$k: dkms build, no warnings ($(($(date +%s) - t0)) s)"
		else
			notok "$k: dkms build has warnings"
			echo "$warn" | sed 's/^/# /'
		fi
	else
		notok "$k: dkms build"
		sed 's/^/# /' "$tmp/build-$k.log" | tail -n 20
		grep -hE 'error|warning' "$root/var/lib/dkms/scenic/$ver/build/make.log" 2>/dev/null |
			sed 's/^/# /' | head -n 30 || true
	fi
	if dkms install -m scenic -v "$ver" -k "$k" >"$tmp/install-$k.log" 2>&1; then
		bad=""
		for m in "${mods[@]}"; do
			f=$(ls "$root/lib/modules/$k/updates/dkms/$m.ko"* 2>/dev/null | head -n 1)
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
	status=$(dkms status -m scenic -v "$ver" -k "$k" 2>/dev/null || true)
	if echo "$status" | grep -q ": installed"; then
		ok "$k: dkms status: $status"
	else
		notok "$k: dkms status says installed ($status)"
	fi
done

# dpkg runs no prerm for a package it did not configure: run the packages' own prerm scripts
# (scenic-dkms': dkms remove --all) as `dpkg --purge` would, then purge
for s in "$root"/var/lib/dpkg/info/*.prerm; do
	[ -e "$s" ] || continue
	DPKG_ROOT=$root sh "$s" remove >>"$tmp/purge.log" 2>&1 || notok "$(basename "$s") remove failed"
done
if dpkg_r --purge "${pkgs[@]}" >>"$tmp/purge.log" 2>&1; then
	ok "dpkg --purge ${pkgs[*]}"
else
	notok "dpkg --purge"; sed 's/^/# /' "$tmp/purge.log"
fi
left=""
while IFS= read -r f; do
	[ "$f" = /. ] && continue
	if [ -L "$root$f" ] || [ -f "$root$f" ]; then left+=" $f"; fi
done <"$tmp/files"
if [ -z "$left" ]; then
	ok "purge removed all $(wc -l <"$tmp/files") paths dpkg -L listed"
else
	notok "purge left files dpkg -L listed:$left"
fi
left=$(cd "$root" && find . -mindepth 1 \( -type f -o -type l \) -not -path './var/lib/dpkg/*' |
	head -n 10 || true)
if [ -z "$left" ]; then
	ok "nothing left in the root (modules, DKMS tree) but dpkg's database"
else
	notok "left after purge: $(echo $left)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
