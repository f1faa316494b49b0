#!/usr/bin/env bash
# The training issue's report: the published checkpoints (checkpoints/*.zip, or CKPT_DIR) against
# the doctrine captains and random-masked play, 200 seeded games each (GAMES, SEED, OUT).
# cth-03: the trained Klingon, the Klingon doctrine and random play against the scripted convoy.
# Duel: the trained duel captain on both sides of duel-klingon-vs-federation.
# Blue rows with the captain on red read the captain's win rate in the loss column.
set -euo pipefail
CKPT_DIR=${CKPT_DIR:-checkpoints}
OUT=${OUT:-out/trained}
GAMES=${GAMES:-200}
SEED=${SEED:-0}
bench() { sfb bench "$@" --games "$GAMES" --seed "$SEED" --no-progress | grep '^| [cd]'; }
kl="$CKPT_DIR/klingon-cth03.zip"
duel="$CKPT_DIR/duel-klingon-vs-federation.zip"
bench cth-03 --blue "$kl" --out "$OUT/cth-03-trained"
bench cth-03 --blue klingon-doctrine --out "$OUT/cth-03-doctrine"
bench cth-03 --blue random --out "$OUT/cth-03-random"
d=duel-klingon-vs-federation
bench "$d" --blue "$duel" --red federation-doctrine --out "$OUT/$d-blue-doctrine"
bench "$d" --blue "$duel" --red random --out "$OUT/$d-blue-random"
bench "$d" --blue klingon-doctrine --red "$duel" --out "$OUT/$d-red-doctrine"
bench "$d" --blue random --red "$duel" --out "$OUT/$d-red-random"
