#!/usr/bin/env bash
# The captains issue's acceptance benches: every doctrine captain against the random baseline
# in each of its race's cadet duels (on both sides of the scenario), 200 seeded games each, the
# Klingon doctrine vs random play in cth-03 (Convoy Raid, freighters = robots), and both
# captains of scenarios 5 (Encounter) and 6 (The Enemy Unseen) on either side.
# The random baseline is ${RANDOM_POLICY:-random-fighter} (issue 13): plain `random` announces
# disengagement at once in cth-05/06 and flies off the map within a turn or two in the duels,
# so against it these rows say only that the captains never leave; `random-fighter` draws the
# same random masked orders but never disengages and keeps to the map. RANDOM_POLICY=random
# gives the older rows (docs/bench.md).
# Prints one markdown row per match; writes every bench's outputs under ${OUT:-out/doctrine}.
# Blue rows with the captain on red read the captain's win rate in the loss column.
set -euo pipefail
OUT=${OUT:-out/doctrine}
GAMES=${GAMES:-200}
SEED=${SEED:-0}
RND=${RANDOM_POLICY:-random-fighter}
bench() { sfb bench "$@" --games "$GAMES" --seed "$SEED" --no-progress | grep '^| [cd]'; }
for path in configs/scenarios/duel-*.yaml; do
  name=$(basename "$path" .yaml)
  pair=${name#duel-}
  pair=${pair#full-}  # duel-full-<race>-vs-<race>: the same race captains, full-size ships
  blue=${pair%-vs-*}
  blue=${blue%-kr}  # duel-full-romulan-kr-vs-klingon: the Romulan KR, a romulan-doctrine ship
  red=${pair#*-vs-}
  bench "$name" --blue "$blue-doctrine" --red "$RND" --out "$OUT/$name-$blue"
  bench "$name" --blue "$RND" --red "$red-doctrine" --out "$OUT/$name-$red"
done
bench cth-03 --blue klingon-doctrine --out "$OUT/cth-03-klingon"
bench cth-03 --blue "$RND" --out "$OUT/cth-03-random"
# Scenarios 5 and 6 (victory "encounter"): a side that disengages draws and the other wins a
# tactical victory, so read a red captain's record in the "red win rate" column.
bench cth-05 --blue klingon-doctrine --red "$RND" --out "$OUT/cth-05-klingon"
bench cth-05 --blue "$RND" --red federation-doctrine --out "$OUT/cth-05-federation"
bench cth-06 --blue federation-doctrine --red "$RND" --out "$OUT/cth-06-federation"
bench cth-06 --blue "$RND" --red romulan-doctrine --out "$OUT/cth-06-romulan"
