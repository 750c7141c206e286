#!/usr/bin/env bash
# build-deb.sh [OUTDIR] - build OUTDIR/predictive-prefetch-dkms_VERSION_ARCH.deb
#
# The package (packaging/): the module's sources under
# /usr/src/predictive-prefetch-VERSION with a dkms.conf, so that installing
# it builds the module for every installed kernel with headers (and loads it
# into the running one, and at boot) and DKMS rebuilds it on kernel
# upgrades; /usr/sbin/ppfctl with its man page ppfctl(8) and bash
# completion; the systemd units; the admin guide, a sysctl.d example, the
# changelog and the copyright under /usr/share/doc/predictive-prefetch-dkms/.
# Removing it unloads the module and removes it from every kernel; purging
# it removes the saved state.  Built with dpkg-deb alone (no debhelper: the
# package holds no compiled code but ppfctl), doing what debhelper would:
# ppfctl built with dpkg-buildflags' flags (hardening=+all) and stripped,
# its libc6 dependency from dpkg-shlibdeps, documentation compressed with
# gzip -9n, md5sums, units enabled and started by deb-systemd-helper and
# deb-systemd-invoke (packaging/debian/postinst).  lintian reports no error
# or warning on it, with no override (tests/package/test_deb.py checks).
# Prints the path of the .deb.
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

changelog_version=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' packaging/debian/changelog)
if [[ $changelog_version != "$version" ]]; then
	echo "build-deb: packaging/debian/changelog's last entry is $changelog_version, VERSION is $version: add an entry" >&2
	exit 1
fi

# ppfctl as Debian builds packages: hardening flags, stripped as dh_strip does.
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
make -s -C userspace/ppfctl clean
CFLAGS=$(dpkg-buildflags --get CFLAGS) CPPFLAGS=$(dpkg-buildflags --get CPPFLAGS) \
	LDFLAGS=$(dpkg-buildflags --get LDFLAGS) make -s -C userspace/ppfctl ppfctl
install -D -m 0755 userspace/ppfctl/ppfctl "$root/usr/sbin/ppfctl"
make -s -C userspace/ppfctl clean
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/sbin/ppfctl"
# The libc6 version ppfctl needs, as dpkg-shlibdeps finds it (it wants a debian/control).
shlibs=$(mktemp -d)
mkdir "$shlibs/debian"
printf 'Source: %s\n\nPackage: %s-dkms\nArchitecture: any\n' "$name" "$name" > "$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O "$root/usr/sbin/ppfctl" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
rm -rf "$shlibs"
[[ $depends == *"libc6 ("* ]] || { echo "build-deb: dpkg-shlibdeps found no libc6 version: '$depends'" >&2; exit 1; }

# ppfctl(8) from docs/man/ppfctl.8.md, compressed as dh_installman does.
man=$(mktemp -d)
python3 scripts/make-man.py "$man" docs/man/ppfctl.8.md > /dev/null
install -D -m 0644 "$man/ppfctl.8" "$root/usr/share/man/man8/ppfctl.8"
gzip -9n "$root/usr/share/man/man8/ppfctl.8"
rm -rf "$man"
install -D -m 0644 packaging/bash-completion/ppfctl \
	"$root/usr/share/bash-completion/completions/ppfctl"

install -D -m 0644 packaging/modules-load.d-predictive-prefetch.conf \
	"$root/usr/lib/modules-load.d/$name.conf"
for unit in packaging/systemd/*; do
	install -D -m 0644 "$unit" "$root/usr/lib/systemd/system/$(basename "$unit")"
done

doc=$root/usr/share/doc/$name-dkms
install -D -m 0644 docs/admin-guide.md "$doc/admin-guide.md"
install -D -m 0644 packaging/sysctl.d-predictive-prefetch.conf \
	"$doc/examples/60-predictive-prefetch.conf"
install -m 0644 packaging/debian/copyright "$doc/copyright"
gzip -9n < packaging/debian/changelog > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
	-e "s/@SHLIBS_DEPENDS@/$depends/" packaging/debian/control.in > "$root/DEBIAN/control"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
	xargs -0 md5sum) > "$root/DEBIAN/md5sums"
for script in postinst prerm postrm; do
	sed "s/@VERSION@/$version/" "packaging/debian/$script" > "$root/DEBIAN/$script"
	chmod 0755 "$root/DEBIAN/$script"
done
chmod -R u=rwX,go=rX "$root"

mkdir -p "$out"
deb=$out/${name}-dkms_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
