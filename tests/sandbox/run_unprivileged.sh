#!/usr/bin/env bash
# The escape suite again, as an unprivileged user (nobody, through setpriv): what holds for root
# must hold for an ordinary user too, whose sandbox bubblewrap builds in a user namespace and
# whose limits cannot come from root-only cgroups.
#   tests/sandbox/run_unprivileged.sh SANDBOX_TEST ESCAPE_HELPER SAFESH_CONFINE [GTEST ARGS...]
# Exit 77 (skipped) when not run as root: there is no other user to become.
set -euo pipefail
test_bin=$1 helper=$2 confine=$3
shift 3
if [ "$(id -u)" != 0 ]; then
  echo "run_unprivileged: not root, so no other user to run as; the suite ran as this user" >&2
  # CI runs as root: there, not being able to run this is a failure (tests/support/requires.h).
  [ "${SAFESH_TESTS_REQUIRE_SANDBOX:-}" = 1 ] && exit 1
  exit 77
fi
command -v setpriv >/dev/null || { echo "run_unprivileged: setpriv (util-linux) is missing" >&2; exit 1; }
user=nobody
group=$(id -gn "$user")

# The build may sit where nobody cannot reach it (/root): copies in a folder it can, outside
# the sandbox's writable roots (a safesh-confine there would not be relied on).
work=$(mktemp -d /var/lib/safesh-unprivileged-XXXXXX)
# A home outside every root of the sandbox (not under /tmp), so that writing to it is an escape.
home=$(mktemp -d /var/lib/safesh-unprivileged-home-XXXXXX)
trap 'rm -rf "$work" "$home"' EXIT
install -m 0755 "$test_bin" "$work/sandbox_test"
install -m 0755 "$helper" "$work/escape_helper"
install -m 0755 "$confine" "$work/safesh-confine"
chmod 0755 "$work"
chown "$user:$group" "$home"

cd "$work"
setpriv --reuid="$user" --regid="$group" --clear-groups --inh-caps=-all --bounding-set=-all \
  --no-new-privs \
  env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" USER="$user" \
  SAFESH_TESTS_REQUIRE_SANDBOX="${SAFESH_TESTS_REQUIRE_SANDBOX:-}" \
  SAFESH_ESCAPE_HELPER="$work/escape_helper" SAFESH_CONFINE="$work/safesh-confine" \
  "$work/sandbox_test" --gtest_filter='Launchers/*' "$@"
