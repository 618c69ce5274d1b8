#!/usr/bin/env bash
# Builds a Raspberry Pi OS-like arm64 Bookworm userland under qemu and checks bluffcam in it:
# the venv exactly as ./run makes it, `import picamera2` there, the reader (`bluffcam read` on
# the demo frames gives the same values as on this machine) and `panel-test --mock`.
#
#   sudo nice -n 19 tools/pi/build_userland.sh [ROOT]     (default ROOT: /var/tmp/bluffcam-arm64)
#
# Needs root (debootstrap, chroot) and Debian's qemu-user-static, debootstrap and
# binfmt-support (installed here with apt-get when missing). Slow: qemu emulates every arm64
# instruction. Each step leaves a stamp in ROOT, so a second run goes on where one stopped.
# Not run in CI; what it printed last is in docs/hardware.md.
#
# What Debian cannot give: Raspberry Pi OS's own archive holds python3-picamera2,
# python3-libcamera and python3-simplejpeg; Debian's Bookworm has none of them. This script
# stands in for the first and the last with the same releases from PyPI put into the system's
# dist-packages (simplejpeg 1.6.6, built against numpy 1.x as Pi OS's is, and picamera2); there
# is no stand-in for libcamera's Python bindings, which are built with libcamera itself, so
# `import picamera2` stops at `import libcamera` here and the check says so.
set -euo pipefail
ROOT=${1:-/var/tmp/bluffcam-arm64}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
USER_NAME=player          # Bookworm images have no "pi" user: the player picks a name
HOME_DIR=/home/$USER_NAME
APP=$HOME_DIR/bluffcam

step() { printf '\n== %s  %s\n' "$(date -u +%H:%M:%S)" "$*"; }
done_before() { [ -f "$ROOT/.stamp-$1" ]; }
mark() { touch "$ROOT/.stamp-$1"; }
# pip inside trusts the host's CA bundle (copied in below): a network whose TLS a proxy
# re-signs needs it, and any other is served as well by it
CERT=/etc/ssl/certs/host-ca-certificates.crt
in_root() {
  chroot "$ROOT" /usr/bin/env -i HOME=/root PIP_CERT=$CERT PIP_ROOT_USER_ACTION=ignore \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
as_user() {
  chroot --userspec="$USER_NAME:$USER_NAME" "$ROOT" /usr/bin/env -i HOME="$HOME_DIR" \
    PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 PIP_CERT=$CERT "$@"
}

[ "$(id -u)" = 0 ] || { echo "run as root (debootstrap and chroot need it)" >&2; exit 2; }

step "host: qemu-user-static, debootstrap, binfmt for aarch64"
if ! command -v debootstrap >/dev/null || [ ! -e /usr/libexec/qemu-binfmt/aarch64-binfmt-P ]; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user-static debootstrap binfmt-support
fi
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
grep -q enabled /proc/sys/fs/binfmt_misc/qemu-aarch64

mkdir -p "$ROOT"
if ! done_before debootstrap; then
  step "debootstrap bookworm arm64 (Python 3.11, Debian's numpy 1.24 as on Pi OS)"
  debootstrap --arch=arm64 --variant=minbase \
    --include=python3,python3-venv,python3-pip,python3-numpy,ca-certificates,git \
    bookworm "$ROOT"
  mark debootstrap
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
cp /etc/ssl/certs/ca-certificates.crt "$ROOT$CERT"
mountpoint -q "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
mountpoint -q "$ROOT/dev" || mount --bind /dev "$ROOT/dev"
# no /sys: it would describe this machine's x86 cores, and ONNX Runtime's CPU probe, reading
# them as arm64 ones, dies of a segmentation fault under qemu; without it, it says "Error in
# cpuinfo" and runs
trap 'umount "$ROOT/proc" "$ROOT/dev" 2>/dev/null || true' EXIT

step "what the chroot runs on"
in_root uname -m
in_root python3 -c 'import sys, numpy; print(sys.version.split()[0], "numpy", numpy.__version__)'

if ! done_before system-camera-packages; then
  step "stand-ins for Pi OS's python3-simplejpeg and python3-picamera2 (not in Debian)"
  in_root python3 -m pip install -q --break-system-packages --no-deps \
    --target /usr/lib/python3/dist-packages "simplejpeg==1.6.6" "picamera2==0.3.18"
  mark system-camera-packages
fi
in_root python3 -c 'import simplejpeg, numpy; print("system python: simplejpeg", simplejpeg.__version__, "imports with numpy", numpy.__version__)'

if ! done_before user; then
  step "a player account (no pi user) and the checkout"
  in_root useradd --create-home --shell /bin/bash "$USER_NAME"
  mark user
fi
rm -rf "$ROOT$APP"
mkdir -p "$ROOT$APP"
git -C "$SRC" ls-files -z --cached --others --exclude-standard \
  | (cd "$SRC" && xargs -0 tar cf - --no-recursion) | tar xf - -C "$ROOT$APP"
chroot "$ROOT" chown -R "$USER_NAME:$USER_NAME" "$APP"

step "the issue reproduced: a venv with system site packages and numpy 2, no remedy"
if ! done_before bare-venv; then
  as_user python3 -m venv --system-site-packages "$HOME_DIR/bare-venv"
  as_user "$HOME_DIR/bare-venv/bin/python" -m pip install -q "numpy>=2"
  mark bare-venv
fi
as_user "$HOME_DIR/bare-venv/bin/python" -c 'import simplejpeg' 2>&1 | tail -1 || true

step "./run bluffcam --help (sets the venv up exactly as on a Pi)"
as_user bash -c "cd $APP && time ./run bluffcam --help" 2>&1 | grep -v '^  \|^$' | tail -20

step "what pip put in the venv"
as_user "$APP/.venv/bin/python" -m pip list 2>/dev/null \
  | grep -iE '^(numpy|opencv-python-headless|onnxruntime|gpiozero|lgpio|simplejpeg) '

step "inside the venv: simplejpeg, picamera2, the camera error bluffcam gives"
as_user "$APP/.venv/bin/python" -c 'import simplejpeg, numpy; print("venv: simplejpeg", simplejpeg.__version__, "with numpy", numpy.__version__)'
as_user "$APP/.venv/bin/python" -c 'import picamera2; print("import picamera2: ok")' 2>&1 | tail -1 || true
as_user bash -c "cd $APP && .venv/bin/python -c 'from hardware.cameras import open_camera; open_camera(\"picamera2\")'" 2>&1 | tail -1 || true

step "the reader: bluffcam read on the demo frames, compared with this machine's"
mapfile -t FRAMES < <(cd "$SRC" && ls bluffcam/recordings/demo/frames/*/0007.jpg)
(cd "$SRC" && PYTHONPATH="$SRC" "${PYTHON:-$SRC/.venv/bin/python}" -m bluffcam read "${FRAMES[@]}") > "$ROOT/tmp/read-host.jsonl"
as_user bash -c "cd $APP && time .venv/bin/bluffcam read ${FRAMES[*]}" > "$ROOT/tmp/read-arm64.jsonl"
python3 "$SRC/tools/pi/compare_readings.py" "$ROOT/tmp/read-host.jsonl" "$ROOT/tmp/read-arm64.jsonl"

step "panel-test --mock"
as_user bash -c "cd $APP && timeout 600 .venv/bin/bluffcam panel-test --mock --demo-presses --seconds 2 --led-s 0.05" 2>&1

step "finished"
