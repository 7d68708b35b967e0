#!/bin/sh
# Sets up .venv and runs the service soak test: 10 minutes of rolling on the simulated tray, checking
# that memory stays flat and every roll is read exactly once. DICETRAY_SOAK_SECONDS changes the length.
# shellcheck source=/dev/null
. "$(dirname "$0")/venv.sh"
exec .venv/bin/python -m pytest tests/soak -m soak -p no:cacheprovider -s --timeout=0 "$@"
