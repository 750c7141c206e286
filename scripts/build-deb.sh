#!/usr/bin/env bash
# build-deb.sh [OUTDIR] - build OUTDIR/predictive-prefetch-dkms_VERSION_ARCH.deb
#
# The package (packaging/): the module's sources under
# /usr/src/predictive-prefetch-VERSION with a dkms.conf, so that installing
# it builds the module for every installed kernel with headers (and loads it
# into the running one, and at boot) and DKMS rebuilds it on kernel
# upgrades; /usr/sbin/ppfctl; the admin guide and a
# sysctl.d example under /usr/share/doc/predictive-prefetch-dkms/.
# Removing it unloads the module and removes it from every kernel.  Built
# with dpkg-deb alone (no debhelper): the package holds no compiled code but
# ppfctl.  Prints the path of the .deb.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-build}")
version=$(cat VERSION)
arch=$(dpkg --print-architecture)
name=predictive-prefetch
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

src=$root/usr/src/$name-$version
mkdir -p "$src"
cp Kbuild Kconfig "$src/"
# Only the module's own files: no build products of a tree that was built.
find fs mm models -name '*.[ch]' -print0 | xargs -0 cp --parents -t "$src/"
sed "s/@VERSION@/$version/" packaging/dkms.conf.in > "$src/dkms.conf"

make -s -C userspace/ppfctl clean
make -s -C userspace/ppfctl ppfctl
install -D -m 0755 userspace/ppfctl/ppfctl "$root/usr/sbin/ppfctl"
make -s -C userspace/ppfctl clean

install -D -m 0644 packaging/modules-load.d-predictive-prefetch.conf \
	"$root/usr/lib/modules-load.d/$name.conf"
for unit in packaging/systemd/*; do
	install -D -m 0644 "$unit" "$root/usr/lib/systemd/system/$(basename "$unit")"
done

doc=$root/usr/share/doc/$name-dkms
install -D -m 0644 docs/admin-guide.md "$doc/admin-guide.md"
install -D -m 0644 packaging/sysctl.d-predictive-prefetch.conf \
	"$doc/examples/60-predictive-prefetch.conf"
printf 'ppf: predictive page-cache prefetching\nLicense: GPL-2.0\n' > "$doc/copyright"

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
	packaging/debian/control.in > "$root/DEBIAN/control"
for script in postinst prerm; do
	sed "s/@VERSION@/$version/" "packaging/debian/$script" > "$root/DEBIAN/$script"
	chmod 0755 "$root/DEBIAN/$script"
done
chmod -R u=rwX,go=rX "$root"

mkdir -p "$out"
deb=$out/${name}-dkms_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
