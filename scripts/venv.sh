# Sourced by the other scripts: makes .venv at the repository root (Python 3.11+) and installs the
# project into it, again only when pyproject.toml changed.
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "dicetray needs Python 3.11 or newer; '$PYTHON' is $("$PYTHON" --version 2>&1)" >&2
    exit 2
fi
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
# EXTRAS: the optional dependency groups to install (the test command adds `train`, whose smoke
# test runs the training code).
EXTRAS=${EXTRAS:-dev}
stamp=.venv/.dicetray-installed
want=$( (cat pyproject.toml; echo "$EXTRAS") | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".[$EXTRAS]"
    echo "$want" > "$stamp"
fi
