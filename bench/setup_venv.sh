#!/usr/bin/env bash
# Create bench's own venv (.bench-venv at the repo root, gitignored) with the engines we compare
# against. clingo and pyDatalog are benchmark-only: they are NOT project dependencies.
# Our package is installed non-editable from the repo root, as users get it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${BENCH_VENV:-$root/.bench-venv}"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
fi
"$venv/bin/python" -m pip install --quiet "clingo==5.8.3" "pyDatalog==0.22.4" "networkx>=3.0"
# Record what was installed: reports name this commit, not whatever HEAD is when they run.
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$root" status --porcelain -- analyzer grammar 2>/dev/null)" ]; then commit="$commit+dirty"; fi
echo "$commit" > "$venv/installed-commit.txt"
# Reinstall ours every time so the venv measures the current working tree.
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps "$root"
"$venv/bin/python" -m pip install --quiet "$root"
"$venv/bin/python" - <<'PY'
import sys, importlib.metadata as md
print("bench venv:", sys.executable, sys.version.split()[0])
for dist in ("clingo", "pyDatalog", "networkx", "memory-analyzer"):
    print(f"  {dist} {md.version(dist)}")
PY
