#!/bin/sh
# Sets up .venv, type-checks rules/ and vision/ strictly, and runs the whole test suite.
EXTRAS=dev,train
. "$(dirname "$0")/venv.sh"
.venv/bin/python -m mypy --strict rules vision
exec .venv/bin/python -m pytest "$@"
