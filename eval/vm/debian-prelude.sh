# debian-prelude.sh - put in front of each guest command on Debian's kernel (debian.py)
#
# Debian builds ext4 and virtio_blk as modules: load the subset staged at
# /lib/modules/$(uname -r)/ (list in ppf-load), then wait for the disks.
ppf_kver=$(uname -r)
if [ "$ppf_kver" != "@ABI@" ]; then
	echo "Bail out! debian prelude: kernel $ppf_kver, expected @ABI@"
	exit 1
fi
for ppf_m in $(cat "/lib/modules/$ppf_kver/ppf-load"); do
	modprobe "$ppf_m" || { echo "Bail out! debian prelude: modprobe $ppf_m"; exit 1; }
done
for ppf_d in /sys/block/vd*; do
	[ -e "$ppf_d" ] || continue
	ppf_n=0
	while [ ! -b "/dev/${ppf_d##*/}" ] && [ $ppf_n -lt 50 ]; do
		sleep 0.1
		ppf_n=$((ppf_n + 1))
	done
done
echo "debian prelude: $ppf_kver, loaded: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
# ---- the test script follows ----
