#!/usr/bin/env bash
# Regenerates the mechanical part of the lint set-up: ruff's automatic fixes (import order, pyupgrade, unused
# imports: only the fixes ruff marks safe) and then its formatter, both configured in pyproject.toml. Run it after
# a merge and commit the result on its own ("Mechanical: ..."), so that reviews of real changes stay readable.
# What it cannot fix (`make lint` still fails on it) needs a hand fix or a `# noqa: RULE - reason`.
set -euo pipefail
cd "$(dirname "$0")/.."
RUFF="${RUFF:-.venv/bin/ruff}"
"$RUFF" check --fix --quiet . || true   # what remains is reported by the check below
"$RUFF" format --quiet .
"$RUFF" check --quiet .
