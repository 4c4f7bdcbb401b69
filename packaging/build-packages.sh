#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Debian packages (dpkg-buildpackage, debian/) and the RPMs
# (rpmbuild, packaging/rpm/scenic.spec) of the tree into build/packages/ and
# lints the .debs with lintian (an error fails; warnings are overridden with a
# reason in debian/*.lintian-overrides or explained in packaging/README.md).
#
#   packaging/build-packages.sh            .debs and .rpms
#   packaging/build-packages.sh --deb      .debs only
#   packaging/build-packages.sh --rpm      .rpms only
#   packaging/build-packages.sh --head     source = `git archive HEAD` (default: the
#                                          work tree's tracked and unignored files)
#
# Both builds start from one source tarball, build/packages/scenic-<version>.tar.gz,
# unpacked in build/packages/work/, so nothing is built or cleaned in the tree itself.
# Ends with "build-packages: ok" and exit status 0, or names the step that failed.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$top/build/packages
work=$out/work
deb=1 rpm=1 head=0
for a in "$@"; do
	case $a in
	--deb) rpm=0 ;;
	--rpm) deb=0 ;;
	--head) head=1 ;;
	*) sed -n '3,13s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done

die() { echo "build-packages: error: $*" >&2; exit 1; }
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/packaging/dkms/dkms.conf")
debver=$(sed -n '1s/^scenic (\([^)]*\)).*/\1/p' "$top/debian/changelog")
rpmver=$(sed -n 's/^Version: *//p' "$top/packaging/rpm/scenic.spec")
[ "$ver" = "$debver" ] && [ "$ver" = "$rpmver" ] ||
	die "versions differ: dkms.conf $ver, debian/changelog $debver, scenic.spec $rpmver"

rm -rf "$work" "$out"/*.tar.gz
mkdir -p "$work"
tarball=$out/scenic-$ver.tar.gz
if [ $head = 1 ]; then
	git -C "$top" archive --format=tar.gz --prefix="scenic-$ver/" -o "$tarball" HEAD
else
	# what `git archive` would pack if the work tree were committed
	(cd "$top" && git ls-files -z -c -o --exclude-standard |
		while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - --transform "s,^,scenic-$ver/," -czf "$tarball")
fi
echo "build-packages: source $tarball"

if [ $deb = 1 ]; then
	command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null &&
		command -v lintian >/dev/null || die "needs dpkg-dev, debhelper, dh-dkms, lintian (make setup)"
	rm -f "$out"/*.deb "$out"/*.dsc "$out"/*.tar.xz "$out"/*.buildinfo "$out"/*.changes "$out"/lintian.log
	tar -C "$work" -xzf "$tarball"
	log=$out/dpkg-buildpackage.log
	echo "build-packages: dpkg-buildpackage (log: $log)"
	(cd "$work/scenic-$ver" && DEB_BUILD_OPTIONS="parallel=2 ${DEB_BUILD_OPTIONS:-}" \
		dpkg-buildpackage -us -uc >"$log" 2>&1) || { tail -n 30 "$log"; die "dpkg-buildpackage failed"; }
	# dpkg-buildpackage writes next to the source tree (../): move the results up
	mv "$work"/*.deb "$work"/*.dsc "$work"/*.tar.xz "$work"/*.buildinfo "$work"/*.changes "$out/"
	mv "$work"/*.ddeb "$out/" 2>/dev/null || true
	rm -rf "${work:?}/scenic-$ver"
	echo "build-packages: lintian"
	changes=$(ls "$out"/scenic_"$ver"_*.changes)
	lintian --fail-on error --display-info \
		"$changes" | tee "$out/lintian.log" || die "lintian reported errors ($out/lintian.log)"
	printf 'build-packages: lintian: %s error(s), %s warning(s)\n' \
		"$(grep -c '^E:' "$out/lintian.log" || true)" "$(grep -c '^W:' "$out/lintian.log" || true)"
fi

if [ $rpm = 1 ]; then
	command -v rpmbuild >/dev/null || die "needs rpm (make setup)"
	rm -f "$out"/*.rpm
	rt=$work/rpm
	mkdir -p "$rt/SOURCES"
	cp "$tarball" "$rt/SOURCES/"
	log=$out/rpmbuild.log
	echo "build-packages: rpmbuild (log: $log)"
	# --nodeps: the BuildRequires are Fedora's names, not Debian's
	rpmbuild --nodeps -ba --define "_topdir $rt" "$top/packaging/rpm/scenic.spec" >"$log" 2>&1 ||
		{ tail -n 30 "$log"; die "rpmbuild failed"; }
	mv "$rt"/RPMS/*/*.rpm "$rt"/SRPMS/*.rpm "$out/"
	rm -rf "$rt"
	command -v rpmlint >/dev/null || die "needs rpmlint (make setup)"
	echo "build-packages: rpmlint"
	rpmlint -r "$top/packaging/rpm/scenic.rpmlintrc" "$out"/*.rpm >"$out/rpmlint.log" 2>&1 || true
	summary=$(tail -n 1 "$out/rpmlint.log")
	echo "build-packages: rpmlint: $summary"
	grep -q ' 0 errors' <<<"$summary" ||
		{ grep ': E: ' "$out/rpmlint.log"; die "rpmlint reported errors ($out/rpmlint.log)"; }
	# Install and erase the binary RPMs in a private root: every listed file lands, none stays.
	# --noscripts: the DKMS scriptlets are tested through the .debs (dkms-check.sh). The root's
	# database (var/, root/.rpmdb with Debian's rpm) is not a package file.
	r=$(mktemp -d)
	bins=$(ls "$out"/*.rpm | grep -v '\.src\.rpm$')
	rpm --root "$r" --initdb
	rpm --root "$r" -i --force-debian --nodeps --noscripts $bins || die "rpm -i into a private root failed"
	missing=0
	for f in $(rpm -qlp $bins 2>/dev/null); do
		[ -e "$r$f" ] || [ -L "$r$f" ] || { echo "build-packages: not installed: $f" >&2; missing=1; }
	done
	rpm --root "$r" -e --force-debian --nodeps --noscripts $(rpm -qp --qf '%{NAME} ' $bins) ||
		die "rpm -e in the private root failed"
	left=$(cd "$r" && find . \( -path ./var -o -path ./root/.rpmdb \) -prune -o -type f -print | head -n 5)
	rm -rf "$r"
	[ $missing = 0 ] || die "rpm -i left files of rpm -ql out"
	[ -z "$left" ] || die "rpm -e left files: $left"
	echo "build-packages: rpm install and erase in a private root: ok ($(wc -w <<<"$bins") packages)"
fi
rmdir "$work" 2>/dev/null || true
ls -1 "$out"
echo "build-packages: ok"
