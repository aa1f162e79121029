#!/usr/bin/env bash
# Sets up what is missing, then opens Adjutant. Extra arguments go to adjutant
# (e.g. `./scripts/run.sh --resume`, `./scripts/run.sh rules t52 panic`).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec cargo run --release --quiet -- "$@"
