#!/usr/bin/env bash
# Sets up what is missing, then runs every test (unit, flows, UI, scripts).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec cargo test --all-targets
