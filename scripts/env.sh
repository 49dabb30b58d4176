# Sourced by the project's scripts: where the tools live, and the settings
# that keep every build offline. Run from the repository root.
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

TRUNK_VERSION=0.21.14
MACHETE_VERSION=0.9.2

step() { printf '\n==> %s\n' "$*"; CURRENT_STEP="$*"; }
trap 'status=$?; if [ $status -ne 0 ]; then printf "\n*** FAILED (exit %s) at step: %s\n" "$status" "${CURRENT_STEP:-start}" >&2; fi' EXIT
