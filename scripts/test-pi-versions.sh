#!/bin/sh
# The tests that lean on numpy and OpenCV, run under the Raspberry Pi OS Bookworm versions the
# install script pins (deploy/constraints-bookworm.txt: numpy 1.24.2, OpenCV below 4.12), in a venv
# of their own (.venv-pi), so a newer numpy on the build machine cannot hide a call the Pi lacks.
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv-pi/bin/python ]; then
    "$PYTHON" -m venv .venv-pi
fi
stamp=.venv-pi/.dicetray-installed
want=$(cat pyproject.toml deploy/constraints-bookworm.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    .venv-pi/bin/python -m pip install --quiet --upgrade pip
    .venv-pi/bin/python -m pip install --quiet -c deploy/constraints-bookworm.txt -e '.[dev]'
    echo "$want" > "$stamp"
fi
.venv-pi/bin/python -c 'import numpy, cv2; print(f"under the Pi versions: numpy {numpy.__version__}, OpenCV {cv2.__version__}")'
exec .venv-pi/bin/python -m pytest tests/vision tests/calibration tests/hardware tests/game tests/rules -q -p no:cacheprovider "$@"
