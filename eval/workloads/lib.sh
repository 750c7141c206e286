# lib.sh - shell functions shared by the workloads' record.sh and prepare.sh
# (sourced, bash).  Each caller has say() and die() with its own prefix:
# most from ppf_messages, the others their own.

# ppf_messages PREFIX: say MSG... prints "PREFIX: MSG..." on stderr, and
# die MSG... says "ERROR: MSG..." and exits 1.  Callable before ppf_recording
# (die is what the functions here stop with).
ppf_messages() {
  PPF_MESSAGES_PREFIX=$1
  say() { printf '%s: %s\n' "$PPF_MESSAGES_PREFIX" "$*" >&2; }
  die() { say "ERROR: $*"; exit 1; }
}

# ppf_recording NAME: the start every eval/workloads/NAME/record.sh shares,
# called right after it sources this file.  Sets
#   REPO       the top of the tree
#   W          the recipe's work area, ${PPF_WORKDIR:-/var/tmp/ppf-work}/NAME
#   SCRATCH    $W/scratch, the root andrew, mixed, pbuild and pystart run and
#              record their workload in (glimpse and gnuld use other parts of W)
#   PPF_TRACE  the recorder, ${PPF_TRACE:-$REPO/userspace/trace-replay/ppf-trace}
# and runs the rest of the script in the plain C locale (LC_ALL=C; LANG and
# LANGUAGE unset): no locale files in a trace, whatever the machine's locale.
ppf_recording() {
  REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  W="${PPF_WORKDIR:-/var/tmp/ppf-work}/$1"
  SCRATCH="$W/scratch"
  PPF_TRACE="${PPF_TRACE:-$REPO/userspace/trace-replay/ppf-trace}"
  export LC_ALL=C
  unset LANG LANGUAGE
}

# ppf_record_begin NAME [RUNS]: the start of a record.sh that records RUNS
# runs (empty: 2; a caller with another default passes "${1:-N}"), right
# after it sources this file:
# ppf_messages NAME/record, ppf_recording NAME, and RUNS checked (a
# positive integer, or the usage error).
ppf_record_begin() {
  ppf_messages "$1/record"
  ppf_recording "$1"
  RUNS="${2:-2}"
  [[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "usage: record.sh [RUNS]"
}

# ppf_ensure_packages PKG...: install the Debian packages that are missing,
# with scripts/install-deps.sh (only what is missing, so a repeated
# recording costs a dpkg query; as root, or through sudo).
ppf_ensure_packages() {
  "$REPO/scripts/install-deps.sh" --packages "$@" || die "could not install: $*"
}

# ppf_need_recorder: stop unless the recorder, $PPF_TRACE, is built.
ppf_need_recorder() {
  [[ -x "$PPF_TRACE" ]] || die "recorder not found at $PPF_TRACE (make -C userspace/trace-replay)"
}

# ppf_fetch_crate CRATE VERSION SHA256 FILE: the crates.io crate at FILE,
# downloaded unless FILE already has the pinned sha256.  The API address
# redirects to the static CDN; both are tried (some sandboxes only resolve
# the CDN host).
ppf_fetch_crate() {
  local crate=$1 version=$2 sha=$3 file=$4 u ok=
  local t
  for t in curl sha256sum tar; do
    command -v "$t" >/dev/null || die "'$t' not found (apt-get install curl coreutils tar)"
  done
  mkdir -p "$(dirname "$file")"
  if [[ -f "$file" ]] && echo "$sha  $file" | sha256sum -c --status; then
    say "using cached $file"
    return 0
  fi
  rm -f "$file" "$file.part"
  for u in "https://crates.io/api/v1/crates/$crate/$version/download" \
           "https://static.crates.io/crates/$crate/$crate-$version.crate"; do
    say "downloading $u"
    if curl -fsSL --retry 3 --connect-timeout 20 -m 300 -A 'ppf-eval-workloads (curl)' \
         -o "$file.part" "$u"; then ok=1; break; fi
    say "  failed, trying next address"
  done
  [[ -n "$ok" ]] || die "could not download $crate $version from crates.io"
  echo "$sha  $file.part" | sha256sum -c --status \
    || die "sha256 mismatch for $file.part (want $sha, got $(sha256sum "$file.part" | cut -d' ' -f1))"
  mv "$file.part" "$file"
  say "verified sha256 $sha"
}

# ppf_record_runs PREFIX RUNS CMD...: record CMD RUNS times, each after an
# untraced run of it (--untraced-run: CMD must leave the tree as it found
# it), rooted at $SCRATCH, as $HERE/PREFIX-I.trace.gz for I = 1..RUNS, and
# print each trace's summary (kept in $W/PREFIX-I.info).  "{I}" in CMD's
# words becomes the run's number, for a workload whose runs differ.
ppf_record_runs() {
  local prefix=$1 runs=$2 i name tmp
  shift 2
  for i in $(seq 1 "$runs"); do
    name="$prefix-$i"
    tmp="$W/$name.trace.gz"
    say "recording $name"
    "$PPF_TRACE" record -o "$tmp" --root "$SCRATCH" --name "$name" --untraced-run -- "${@//\{I\}/$i}"
    [[ -s "$tmp" ]] || die "no trace"
    mv "$tmp" "$HERE/$name.trace.gz"
    "$PPF_TRACE" info "$HERE/$name.trace.gz" > "$W/$name.info" && head -12 "$W/$name.info"
  done
}
