#!/usr/bin/env bash
# Builds and tests the Python package (python/, docs/python.md) the way a user
# installs it: a fresh venv under target/, `pip install ./python` (maturin from
# PyPI builds the Rust extension), then pytest. Called by .ci/run; runs alone too.
#
#   scripts/python-ci.sh            # PYTHON=python3.12 to pick the interpreter
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
py=${PYTHON:-python3}
venv=target/python-venv

# Debian's python3 has venv only with the python3-venv package.
SECONDS=0
rm -rf "$venv"
if ! "$py" -m venv "$venv" >/dev/null 2>&1; then
    rm -rf "$venv"
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "python-ci: installing python3-venv"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
        "$py" -m venv "$venv"
    else
        echo "python-ci: '$py -m venv' failed; install python3-venv" >&2
        exit 1
    fi
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install maturin pytest pandas matplotlib pyarrow
echo "python-ci: venv and pip install maturin pytest pandas matplotlib pyarrow: ${SECONDS} s"
SECONDS=0
# The extension builds in the repository's target/ (its own subdirectories by
# crate hash), so dependencies already built by `cargo build --release` are reused.
CARGO_TARGET_DIR="$root/target" "${pip[@]}" install ./python
echo "python-ci: pip install ./python: ${SECONDS} s"

# From the repository root, so that python/rocesim (the source, without the
# compiled extension) does not shadow the installed package.
set +e
"$venv/bin/python" -m pytest python/tests -q -p no:cacheprovider
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "python-ci: pytest collected no tests" >&2
    exit 1
fi
exit "$rc"
