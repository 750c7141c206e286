#!/usr/bin/env bash
# install-deps.sh GROUP...             install the Debian packages a make target needs
# install-deps.sh --packages PKG...     install these packages
#
# Installs only what is missing, so repeated runs cost a dpkg query.  Groups:
#   build   gcc make zlib1g-dev            (models, simulator, benchmark)
#   test    + clang libclang-rt-14-dev     (sanitizers, libFuzzer)
#           + strace python3                (trace recorder and its tests)
#           + mypy                          (make test's python-checks suite)
#           + cpio python3-matplotlib       (the VM overlay's and the figures'
#                                            tests, which skip without them)
#
# mypy comes from Debian (the mypy package, /usr/bin/mypy, 1.0.1 on Debian 12)
# like every other tool here, not from pip: one version per Debian release, so
# a new mypy release cannot turn make test red overnight, and no pip
# install into whichever python3 is first on PATH.  It checks source files;
# the interpreter it runs under does not matter.
set -euo pipefail

declare -A GROUP=(
	[build]="gcc make libc6-dev zlib1g-dev python3"
	[test]="gcc make libc6-dev zlib1g-dev python3 clang libclang-rt-14-dev strace mypy
	       cpio python3-matplotlib"
)

want=()
if [[ ${1:-} == --packages ]]; then
	shift
	want=("$@")
	set --
fi
for g in "$@"; do
	[[ -n "${GROUP[$g]:-}" ]] || { echo "install-deps: unknown group '$g'" >&2; exit 2; }
	want+=(${GROUP[$g]})
done
missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
echo "install-deps: installing ${missing[*]}"
sudo=
if [[ $(id -u) -ne 0 ]]; then
	if ! command -v sudo >/dev/null; then
		echo "install-deps: need root to run: apt-get install ${missing[*]}" >&2
		exit 1
	fi
	sudo=sudo
fi
# Wait up to ten minutes for another apt or dpkg rather than fail at once.
lock=(-o DPkg::Lock::Timeout=600)
$sudo apt-get "${lock[@]}" update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get "${lock[@]}" install -y -qq --no-install-recommends "${missing[@]}"
