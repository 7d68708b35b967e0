#!/usr/bin/env bash
# Installs the smart dice tray as a systemd service on Raspberry Pi OS Bookworm (Pi 4 or 5).
#
#   sudo deploy/install-pi.sh            # install or upgrade, then start the service
#   deploy/install-pi.sh --dry-run       # print every step without changing anything
#
# Steps: apt packages (picamera2, lgpio, i2c-tools) -> a "dicetray" system user in the video, gpio,
# i2c and spi groups -> a venv in /opt/dicetray/venv made with --system-site-packages (so apt's
# picamera2 imports) -> this checkout installed into it under deploy/constraints-bookworm.txt (numpy stays at the
# system 1.24, OpenCV below 4.12) -> import check -> /etc/dicetray/config.toml (kept if present) ->
# the unit, verified with systemd-analyze -> I2C check -> enable and start.
set -euo pipefail

PREFIX=/opt/dicetray
CONFIG_DIR=/etc/dicetray
UNIT_PATH=/etc/systemd/system/dicetray.service
SERVICE_USER=dicetray
APT_PACKAGES=(python3-venv python3-pip python3-picamera2 python3-numpy python3-lgpio i2c-tools)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=$(cd "$here/.." && pwd)
dry_run=0
start=1

usage() {
    echo "usage: $0 [--dry-run] [--no-start]" >&2
    exit 2
}

for arg in "$@"; do
    case "$arg" in
        --dry-run) dry_run=1 ;;
        --no-start) start=0 ;;
        -h | --help) usage ;;
        *)
            echo "install-pi.sh: error: unknown option '$arg'" >&2
            usage
            ;;
    esac
done

say() { printf '==> %s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
fail() {
    printf 'install-pi.sh: error: %s\n' "$*" >&2
    exit 1
}

# Runs a command, or prints it under --dry-run.
run() {
    if [ "$dry_run" -eq 1 ]; then
        printf '   '
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

for file in dicetray.service config.example.toml constraints-bookworm.txt; do
    [ -f "$here/$file" ] || fail "missing $here/$file: run this script from a dicetray checkout"
done

if [ "$dry_run" -eq 0 ]; then
    [ "$(id -u)" -eq 0 ] || fail "run as root: sudo $0"
    # shellcheck source=/dev/null
    . /etc/os-release 2>/dev/null || true
    [ "${VERSION_CODENAME:-}" = "bookworm" ] ||
        warn "this is ${PRETTY_NAME:-an unknown system}, not Raspberry Pi OS Bookworm; carrying on"
fi

say "apt packages: ${APT_PACKAGES[*]}"
run apt-get update
run apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"

say "service user $SERVICE_USER"
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
    run useradd --system --home-dir /var/lib/dicetray --no-create-home --shell /usr/sbin/nologin "$SERVICE_USER"
fi
for group in video gpio i2c spi; do
    if getent group "$group" >/dev/null 2>&1; then
        run usermod -a -G "$group" "$SERVICE_USER"
    else
        warn "group $group does not exist; the service may not reach that device"
    fi
done

say "venv in $PREFIX/venv (with the system site-packages, for picamera2)"
if [ ! -x "$PREFIX/venv/bin/python" ]; then
    run python3 -m venv --system-site-packages "$PREFIX/venv"
fi
run "$PREFIX/venv/bin/python" -m pip install --upgrade pip
# A regular (not editable) install: the service never runs code from the checkout.
run "$PREFIX/venv/bin/python" -m pip install -c "$here/constraints-bookworm.txt" "$source_dir"

say "import check: picamera2, numpy 1.x and OpenCV together"
run "$PREFIX/venv/bin/python" -c 'import numpy, cv2, picamera2; assert numpy.__version__.startswith("1."), numpy.__version__; print("numpy", numpy.__version__, "opencv", cv2.__version__)'

say "config in $CONFIG_DIR"
run install -d -m 0755 "$CONFIG_DIR"
if [ -f "$CONFIG_DIR/config.toml" ]; then
    say "keeping the existing $CONFIG_DIR/config.toml"
else
    run install -m 0644 "$here/config.example.toml" "$CONFIG_DIR/config.toml"
fi
run install -m 0644 "$here/config.example.toml" "$CONFIG_DIR/config.example.toml"

say "systemd unit $UNIT_PATH"
run install -m 0644 "$here/dicetray.service" "$UNIT_PATH"
run systemd-analyze verify "$UNIT_PATH"
run systemctl daemon-reload

say "I2C (the OLED)"
if [ -e /dev/i2c-1 ]; then
    say "/dev/i2c-1 present"
elif command -v raspi-config >/dev/null 2>&1 && [ "$(raspi-config nonint get_i2c 2>/dev/null || echo 1)" = "0" ]; then
    warn "I2C is enabled but /dev/i2c-1 is missing until the next reboot"
else
    warn "I2C is off: enable it with 'sudo raspi-config nonint do_i2c 0' and reboot; the tray runs without the display until then"
fi

if [ "$start" -eq 1 ]; then
    say "enable and start dicetray"
    run systemctl enable --now dicetray.service
    say "follow it with: journalctl -u dicetray -f"
else
    say "installed; start it with: sudo systemctl enable --now dicetray.service"
fi
