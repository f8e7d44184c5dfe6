#!/usr/bin/env bash
# The README's Start block as a new user types it: a fresh clone in a temporary folder (no
# ../shared beside it), an empty HOME (no data cache, no pip cache of ours), `make install`
# with the package registry, then every command of the README's Start block in turn with no
# network at all (a network namespace of its own: `unshare -rn`; where that is not allowed,
# an unreachable proxy). Prints each command's exit status, time and output size, then the
# study pages written; exits non-zero if a command failed.
#   scripts/start_trial.sh [REPO]       (about 30 minutes on 2 idle cores)
#   scripts/start_trial.sh --commands   (the commands it would run, one per line)
set -u
start_block() {  # the Start section's bash block, comments dropped: what the README shows
    sed -n '/^## Start$/,/^## /p' "$1" | sed -n '/^```bash$/,/^```$/p' | sed '1d;$d' \
        | sed 's/ *#.*$//' | sed '/^ *$/d'
}
if [ "${1:-}" = "--commands" ]; then
    start_block "$(dirname "$0")/../README.md"; exit 0
fi
REPO=$(cd "${1:-$(dirname "$0")/..}" && pwd)
T=$(mktemp -d)
git clone -q "$REPO" "$T/clone" && cd "$T/clone" || exit 2
mkdir -p "$T/home"
export HOME="$T/home"
echo "start-trial: fresh clone in $T/clone; ../shared: $(ls -d ../shared 2>/dev/null || echo none)"
if unshare -rn ip link set lo up 2>/dev/null; then
    # A namespace of its own has no network but its loopback, which a machine without network
    # still has (tests talk to servers they start on 127.0.0.1): brought up first.
    offline() { unshare -rn bash -c "ip link set lo up && $1"; }
    echo "start-trial: no network (unshare -rn, loopback only)"
else
    offline() { HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 \
        http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 bash -c "$1"; }
    echo "start-trial: no network (an unreachable proxy: unshare is not allowed here)"
fi
start=$SECONDS
make install > "$T/install.log" 2>&1 || { echo "start-trial: make install failed ($T/install.log)"; exit 1; }
echo "start-trial: make install: $((SECONDS - start)) s (with the package registry)"
start_block README.md > "$T/start.sh"
failed=0; n=0
while IFS= read -r line; do
    n=$((n + 1)); start=$SECONDS
    offline "$line" > "$T/step$n.log" 2>&1; rc=$?
    echo "start-trial: '$line': exit $rc, $((SECONDS - start)) s, $(wc -l < "$T/step$n.log") lines ($T/step$n.log)"
    [ $rc -eq 0 ] || failed=1
done < "$T/start.sh"
echo "start-trial: $(ls results/offline/*/report/index.html 2>/dev/null | wc -l) study pages;" \
     "index: $(ls results/offline/index.html 2>/dev/null || echo missing)"
exit $failed
