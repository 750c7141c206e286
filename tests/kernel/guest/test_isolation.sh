# test_isolation.sh - whose patterns predict whose opens, and permissions
#
# isolation (domain.c): under none, one user's open of A brings in the
# files another user opened after A (the leak a page-cache probe reads);
# under user, it brings in nothing of theirs while their own opens still
# do; under cgroup, the same between two cgroups of one user.  max_domains
# bounds the models, the least recently used is reclaimed.  Permissions
# (readahead.c): a file only root may read is never prefetched for a task
# that may not read it (skipped_perm), and is for root.
. /ppf/guest/lib.sh
. /ppf/guest/test_robust_lib.sh

plan 24
mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
cd /mnt
hold B C D Q
always_prefetch
set_ppf enabled 1

as() { uid=$1; shift; /ppf/runas "$uid" "$@"; }
train_as() {
	for i in 1 2 3 4 5; do
		as "$1" sh -c 'cat A B C D > /dev/null; cat X > /dev/null'
	done
}

check "users can read the data disk" eval 'as 1000 cat A > /dev/null'

# none: the leak isolation closes.
check "isolation is none by default" eq "$(cat $PPF/isolation)" none
set_ppf reset 1
train_as 1000
settle
drop_caches
check "cold cache before the test" eq "$(bcd)" 000
as 1001 cat A > /dev/null
settle
echo "none: after user 1001 opened A: B C D $(bcd)"
check "isolation=none: user 1001's open of A prefetches what user 1000 opened after it" \
	eq "$(bcd)" 256256256

# user: one model per uid.
set_ppf isolation user
check "isolation=user set" eq "$(cat $PPF/isolation)" user
train_as 1000
settle
drop_caches
as 1001 cat A > /dev/null
settle
echo "user: after user 1001 opened A: B C D $(bcd)"
check "isolation=user: user 1001's open of A prefetches none of user 1000's successors" \
	eq "$(bcd)" 000
check "isolation=user: a model for each of the two users" eq "$(stat_of model_domains)" 2
drop_caches
as 1000 cat A > /dev/null
settle
check "isolation=user: user 1000's own open of A still prefetches B C D" eq "$(bcd)" 256256256

# max_domains: the least recently used domain's model goes.
set_ppf max_domains 2
check "max_domains=2 set (models rebuilt empty)" eq "$(stat_of model_domains) $(cat $PPF/max_domains)" "0 2"
for uid in 1000 1001 1002; do
	as $uid cat X > /dev/null
done
settle
check "max_domains=2: three users, two models" eq "$(stat_of model_domains)" 2
check "max_domains=2: the least recently used one reclaimed" ge "$(stat_of model_domains_reclaimed)" 1
check "isolation: an unknown name refused, the old one kept" refuse isolation everyone
check "max_domains: 0 refused" refuse max_domains 0
check "max_domains: 65 refused" refuse max_domains 65
set_ppf max_domains 8

# cgroup: two cgroups of root, one model each.
mkdir -p /sys/fs/cgroup
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
if [ -f /sys/fs/cgroup/cgroup.procs ]; then
	mkdir -p /sys/fs/cgroup/g1 /sys/fs/cgroup/g2
	in_cg() { g=$1; shift; sh -c "echo \$\$ > /sys/fs/cgroup/$g/cgroup.procs && exec $*"; }
	set_ppf isolation cgroup
	check "isolation=cgroup set" eq "$(cat $PPF/isolation)" cgroup
	for i in 1 2 3 4 5; do
		in_cg g1 "sh -c 'cat A B C D > /dev/null; cat X > /dev/null'"
	done
	settle
	drop_caches
	in_cg g2 "cat A > /dev/null"
	settle
	check "isolation=cgroup: another cgroup's open of A prefetches none of g1's successors" \
		eq "$(bcd)" 000
	drop_caches
	in_cg g1 "cat A > /dev/null"
	settle
	check "isolation=cgroup: g1's own open of A prefetches B C D" eq "$(bcd)" 256256256
	rmdir /sys/fs/cgroup/g1 /sys/fs/cgroup/g2
	umount /sys/fs/cgroup
else
	for c in "isolation=cgroup set" \
		 "isolation=cgroup: another cgroup's open of A prefetches none of g1's successors" \
		 "isolation=cgroup: g1's own open of A prefetches B C D"; do
		skip "$c" "no cgroup2 in this kernel"
	done
fi

# Permissions: Q readable by root only.
set_ppf isolation none
chmod 600 Q
for i in 1 2 3 4 5; do
	cat A Q > /dev/null
	cat X > /dev/null
done
settle
drop_caches
perm=$(stat_of skipped_perm)
as 1001 cat A > /dev/null
settle
check "permissions: user 1001 may not read Q" eval '! as 1001 cat Q 2>/dev/null'
check "permissions: Q, readable by root only, is not prefetched for user 1001" eq "$(resident_kb Q)" 0
check "permissions: skipped_perm counts it" ge "$(stat_of skipped_perm)" $((perm + 1))
drop_caches
cat A > /dev/null
settle
check "permissions: Q is prefetched for root" eq "$(resident_kb Q)" 256
chmod 644 Q

release
cd /
umount /mnt
check "file system unmounts" eq $? 0
rmmod predictive_prefetch
check "module unloads" eq $? 0
kmemleak_check
finish
