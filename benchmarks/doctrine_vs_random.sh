#!/usr/bin/env bash
# The captains issue's acceptance benches: every doctrine captain against the random-masked
# policy in each of its race's cadet duels (on both sides of the scenario), 200 seeded games
# each, and the Klingon doctrine vs random play in cth-03 (Convoy Raid, freighters = robots).
# Prints one markdown row per match; writes every bench's outputs under ${OUT:-out/doctrine}.
# Blue rows with the captain on red read the captain's win rate in the loss column.
set -euo pipefail
OUT=${OUT:-out/doctrine}
GAMES=${GAMES:-200}
SEED=${SEED:-0}
bench() { sfb bench "$@" --games "$GAMES" --seed "$SEED" --no-progress | grep '^| [cd]'; }
for path in configs/scenarios/duel-*.yaml; do
  name=$(basename "$path" .yaml)
  pair=${name#duel-}
  blue=${pair%-vs-*}
  red=${pair#*-vs-}
  bench "$name" --blue "$blue-doctrine" --red random --out "$OUT/$name-$blue"
  bench "$name" --blue random --red "$red-doctrine" --out "$OUT/$name-$red"
done
bench cth-03 --blue klingon-doctrine --out "$OUT/cth-03-klingon"
bench cth-03 --blue random --out "$OUT/cth-03-random"
