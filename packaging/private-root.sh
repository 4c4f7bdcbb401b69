# SPDX-License-Identifier: MIT
# Sourced by deb-root.sh and dkms-check.sh: a private dpkg root in which the packages are
# unpacked and DKMS builds, so that the host's dpkg database, /var/lib/dkms and /lib/modules
# are never touched.
#
#   private_root ROOT BIN   makes ROOT's dpkg database and DKMS tree, puts a dkms wrapper bound to
#                           ROOT into BIN and BIN first in PATH; no module signing key is made or used
private_root() {
	local root=$1 bin=$2
	mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dkms" \
		"$root/lib/modules" "$bin"
	touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
	cat >"$bin/dkms" <<WRAP
#!/bin/sh
exec /usr/sbin/dkms "\$@" --dkmstree "$root/var/lib/dkms" --sourcetree "$root/usr/src" \\
	--installtree "$root/lib/modules" --no-depmod
WRAP
	chmod +x "$bin/dkms"
	export PATH="$bin:$PATH" sign_file=/nonexistent
}
