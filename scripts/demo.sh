#!/bin/sh
# Sets up .venv and plays the demo game on the simulated tray; display frames go to demo-out/.
. "$(dirname "$0")/venv.sh"
exec .venv/bin/dicetray demo --out demo-out "$@"
