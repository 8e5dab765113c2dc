# shellcheck shell=bash
# Sourced by every scripts/toolchain/ensure-* (not run on its own): the one cache folder, the progress line and the
# lock that lets one run build a tool while the others wait for its result. Each ensure-* script caches under
# ~/.cache/pulumi-pims (PIMS_CACHE_DIR overrides the folder) so that a second run, or a second jest worker, reuses
# what the first one built; nothing built is committed.

# The repository's root (this file is scripts/toolchain/lib.sh) and the cache folder every tool is kept in.
PIMS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PIMS_CACHE="${PIMS_CACHE_DIR:-$HOME/.cache/pulumi-pims}"
PIMS_TOOL="$(basename "$0")"

# One progress line `[ensure-<tool>] …` on stderr (stdout is for the path the script prints) and, when PIMS_ENSURE_LOG
# names a file, in it too: scripts/engine/index.ts quotes that file when a script fails.
log() {
  printf '[%s] %s\n' "$PIMS_TOOL" "$*" >&2
  if [ -n "${PIMS_ENSURE_LOG:-}" ]; then printf '[%s] %s\n' "$PIMS_TOOL" "$*" >>"$PIMS_ENSURE_LOG"; fi
}

# one_at_a_time <cached path> <what is built> <ready-check command>: takes the lock `<cached path>.lock` for the rest
# of the script (flock, on a file descriptor of its own, so a script run by another keeps its own lock), saying so
# while another run holds it. Succeeds when, with the lock taken, the ready-check already holds: the other run built
# it, use its result. Fails when this run must build. Without flock it only fails (the build then runs unguarded).
one_at_a_time() {
  mkdir -p "$(dirname "$1")"
  command -v flock >/dev/null 2>&1 || return 1
  exec {PIMS_LOCK_FD}>"$1.lock"
  flock -n "$PIMS_LOCK_FD" || { log "another run is building $2; waiting for it"; flock "$PIMS_LOCK_FD"; }
  "$3"
}
