#!/usr/bin/env bash
# Installs and starts bluffcam.service for the user who runs it and the checkout it is in:
#   sudo deploy/install.sh            (as the player's own user, through sudo)
#   deploy/install.sh --print-unit    (only print the unit it would install)
# The service runs as that user (SUDO_USER; BLUFFCAM_USER overrides it), never as root.
set -euo pipefail
CHECKOUT=$(cd "$(dirname "$0")/.." && pwd)
RUN_AS=${BLUFFCAM_USER:-${SUDO_USER:-$(id -un)}}
UNIT_DIR=${UNIT_DIR:-/etc/systemd/system}

fail() { echo "install.sh: $*" >&2; exit 2; }

# the unit with this user and checkout written in (systemd would split a path with spaces)
render_unit() {
  [[ $RUN_AS =~ ^[a-z_][a-z0-9_-]*[$]?$ ]] || fail "user name ${RUN_AS@Q} is not one systemd takes"
  [[ $CHECKOUT =~ ^/[A-Za-z0-9._/-]+$ ]] \
    || fail "checkout path ${CHECKOUT@Q}: move it to a path of letters, digits, . _ - and /"
  sed -e "s|@USER@|$RUN_AS|g" -e "s|@CHECKOUT@|$CHECKOUT|g" "$CHECKOUT/deploy/bluffcam.service"
}

if [ "${1:-}" = --print-unit ]; then
  render_unit
  exit 0
fi
[ "$#" = 0 ] || fail "unknown argument ${1@Q}; usage: sudo deploy/install.sh [--print-unit]"
[ "$RUN_AS" != root ] || fail "run it with sudo from the player's own user (the service must not run as root), or set BLUFFCAM_USER"
id "$RUN_AS" >/dev/null 2>&1 || fail "no user ${RUN_AS@Q} on this machine"
[ "$(id -u)" = 0 ] || fail "needs root: sudo deploy/install.sh"
[ -x "$CHECKOUT/.venv/bin/bluffcam" ] \
  || fail "no $CHECKOUT/.venv yet: run ./run bluffcam --help as $RUN_AS first"
unit=$(render_unit)
printf '%s\n' "$unit" > "$UNIT_DIR/bluffcam.service"
chmod 644 "$UNIT_DIR/bluffcam.service"
if [ ! -e /etc/default/bluffcam ]; then
  install -m 600 "$CHECKOUT/deploy/bluffcam.env" /etc/default/bluffcam
  echo "edit /etc/default/bluffcam (--profile, --gpio real, the PIN), then: sudo systemctl restart bluffcam"
fi
systemctl daemon-reload
systemctl enable --now bluffcam
echo "bluffcam.service runs as $RUN_AS from $CHECKOUT; watch it: journalctl -u bluffcam -f"
