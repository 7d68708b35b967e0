#!/bin/sh
# Sets up .venv and runs every speed benchmark (odds, reading, profile reading, settle latency, display,
# simulated tray, camera frames, the table app) with pytest-benchmark, pinned to one core where taskset exists.
. "$(dirname "$0")/venv.sh"
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
exec $pin .venv/bin/python -m pytest "${@:-tests}" --benchmark-only --benchmark-enable -p no:cacheprovider -q
