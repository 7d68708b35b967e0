#!/bin/sh
# Sets up .venv and runs the speed benchmarks (odds, reading, settle latency) on one core.
. "$(dirname "$0")/venv.sh"
exec .venv/bin/python -m pytest tests/benchmarks --benchmark-enable -p no:cacheprovider "$@"
