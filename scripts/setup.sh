#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build, test and run Adjutant:
# libclang-dev (the webcam crate generates V4L2 bindings at build time),
# the Rust components and the system libraries the window opens with.
# Safe to run again: it installs only what is missing.
set -euo pipefail

need=()
# Runtime libraries for the eframe window (X11/Wayland, OpenGL, keyboard).
for pkg in libclang-dev libgl1 libegl1 libx11-6 libxcursor1 libxrandr2 libxi6 libxkbcommon0 libxkbcommon-x11-0 libwayland-client0 pkg-config; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null; then
  echo "setup: cargo not found; install Rust from https://rustup.rs first" >&2
  exit 1
fi
if command -v rustup >/dev/null; then
  for c in rustfmt clippy; do
    rustup component list --installed 2>/dev/null | grep -q "^$c" || rustup component add "$c"
  done
fi
