"""Ship sheets (``sfb_env/data/ships/*.yaml``) against CTH-DATA §9, §7.3, §8.5, §12.1, §12.2.

The expected values are the printed cells of CTH-DATA's tables, copied here as literal strings
(``CADET_SHEETS``, ``FULL_SHEETS``, ...) and parsed by small helpers; one test checks that every
literal still appears in the reference file, so a copying slip cannot hide on both sides.
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from sfb_env.data import DataFileError
from sfb_env.data.ships import (
    ARC_TOKENS,
    BASE_ARCS,
    SHIPS_DIR,
    ShipClass,
    UnknownShipError,
    all_ships,
    load_ship,
    ship_keys,
)

CTH_DATA = Path(__file__).resolve().parents[2] / "shared/reference/CTH-DATA.md"

# --------------------------------------------------------------------------- literal tables

# §9.1: {ship key: {row label: printed cell}}; "column" is the table's column heading.
CADET_SHEETS: dict[str, dict[str, str]] = {
    "fed-cadet": {
        "column": "Fed Cadet Cruiser",
        "SSD page": "2",
        "shields #1..#6": "16,12,10,10,10,12",
        "warp": "L8 R8 = 16",
        "impulse": "2",
        "APR": "2",
        "total power": "20",
        "batteries": "2",
        "phasers": "Ph-1 #1 FA; #2 LS; #3 RS",
        "phaser capacitor": "3",
        "heavy weapons": "PHOT A, B (FA)",
        "drone racks": "–",
        "control": "bridge 1",
        "hull": "6",
        "other": "TRAN 1, LAB 1, SHTL 2",
        "excess damage": "3",
        "damage control (printed) / move cost": "4 / 1",
        "turn mode": "1–6 = 1, 7–16 = 2",
        "cloak": "–",
    },
    "klingon-cadet": {
        "column": "Klingon Cadet BC",
        "SSD page": "2",
        "shields #1..#6": "16,12,8,8,8,12",
        "warp": "L8 R8 = 16",
        "impulse": "2",
        "APR": "2",
        "total power": "20",
        "batteries": "2",
        "phasers": "Ph-2 #1, #2 FX; #3 L+LR; #4 R+RR",
        "phaser capacitor": "4",
        "heavy weapons": "DISR A, B (FA), range 30",
        "drone racks": "1 rack (4 drones)",
        "control": "bridge 1, security 1",
        "hull": "4 (2 fwd, 2 aft)",
        "other": "TRAN 1, LAB 1, SHTL 1",
        "excess damage": "3",
        "damage control (printed) / move cost": "4 / 1",
        "turn mode": "1–8 = 1, 9–16 = 2",
        "cloak": "–",
    },
    "romulan-cadet": {
        "column": "Romulan Cadet Cruiser",
        "SSD page": "2",
        "shields #1..#6": "12,12,12,12,12,12",
        "warp": "L8 R8 = 16",
        "impulse": "2",
        "APR": "0",
        "total power": "18",
        "batteries": "2",
        "phasers": "Ph-1 #1 L+FA; #2 FA+R",
        "phaser capacitor": "2",
        "heavy weapons": "PL-S A (FA, fixed)",
        "drone racks": "–",
        "control": "bridge 1",
        "hull": "4",
        "other": "TRAN 1, LAB 1, SHTL 2",
        "excess damage": "3",
        "damage control (printed) / move cost": "4 / 1",
        "turn mode": "1–6 = 1, 7–16 = 2",
        "cloak": "6 per turn (War Eagle class)",
    },
    "romulan-kr-cadet": {
        "column": "Romulan Cadet KR BC",
        "SSD page": "8",
        "shields #1..#6": "16,12,8,8,8,12",
        "warp": "L8 R8 = 16",
        "impulse": "2",
        "APR": "2",
        "total power": "20",
        "batteries": "2",
        "phasers": "Ph-1 #1, #2 FX; Ph-2 #3 L+LR; #4 R+RR",
        "phaser capacitor": "4",
        "heavy weapons": "PL-S A (FA, fixed)",
        "drone racks": "–",
        "control": "bridge 1",
        "hull": "5",
        "other": "TRAN 1, LAB 1, SHTL 2",
        "excess damage": "3",
        "damage control (printed) / move cost": "4 / 1",
        "turn mode": "1–8 = 1, 9–16 = 2",
        "cloak": "8 per turn",
    },
    "gorn-cadet": {
        "column": "Gorn Cadet Cruiser",
        "SSD page": "8",
        "shields #1..#6": "16,12,12,12,12,12",
        "warp": "L8 R8 = 16",
        "impulse": "2 (1+1)",
        "APR": "2 (1+1)",
        "total power": "20",
        "batteries": "2",
        "phasers": "Ph-1 #1 FA; #2 LS; #3 RS; #4 RA",
        "phaser capacitor": "4",
        "heavy weapons": "PL-F A (L+LF), PL-F B (RF+R)",
        "drone racks": "–",
        "control": "bridge 1",
        "hull": "6",
        "other": "TRAN 1, LAB 1, SHTL 2",
        "excess damage": "3",
        "damage control (printed) / move cost": "4 / 1",
        "turn mode": "1–6 = 1, 7–16 = 2",
        "cloak": "–",
    },
    "kzinti-cadet": {
        "column": "Kzinti Cadet Cruiser",
        "SSD page": "8",
        "shields #1..#6": "12,10,10,12,10,10",
        "warp": "L5 C5 R5 = 15",
        "impulse": "2 (1+1)",
        "APR": "2",
        "total power": "19",
        "batteries": "2",
        "phasers": "Ph-1 #1 FA; Ph-3 #2, #3 LS; #4, #5 RS",
        "phaser capacitor": "3",
        "heavy weapons": "DISR A (FA), range 30",
        "drone racks": "2 racks (4 each)",
        "control": "bridge 1",
        "hull": "6",
        "other": "TRAN 1, LAB 1, SHTL 1",
        "excess damage": "3",
        "damage control (printed) / move cost": "4 / 1",
        "turn mode": "1–7 = 1, 8–16 = 2",
        "cloak": "–",
    },
    "orion-cadet": {
        "column": "Orion Cadet Cruiser",
        "SSD page": "9",
        "shields #1..#6": "12,12,8,8,8,12",
        "warp": "L5 C5 R5 = 15",
        "impulse": "2",
        "APR": "0",
        "total power": "17",
        "batteries": "2",
        "phasers": "Ph-1 #1 FA+L; #2 FA+R; Ph-3 #3 L+LR; #4 R+RR",
        "phaser capacitor": "3",
        "heavy weapons": "PHOT A, B (FA)",
        "drone racks": "2 racks (4 each)",
        "control": "bridge 1",
        "hull": "4",
        "other": "TRAN 1, SHTL 2",
        "excess damage": "3",
        "damage control (printed) / move cost": "4 / 1",
        "turn mode": "1–8 = 1, 9–16 = 2",
        "cloak": "optional: 6 per turn",
    },
    "hydran-cadet": {
        "column": "Hydran Cadet Cruiser",
        "SSD page": "9",
        "shields #1..#6": "16,12,8,8,8,12",
        "warp": "L5 C5 R5 = 15",
        "impulse": "2",
        "APR": "2",
        "total power": "19",
        "batteries": "2",
        "phasers": "Ph-2 #1 FA; #2 LF+L; #3 RF+R; Ph-G #4 RA",
        "phaser capacitor": "4",
        "heavy weapons": "FUS A (LF+L), FUS B (RF+R)",
        "drone racks": "–",
        "control": "bridge 1",
        "hull": "8",
        "other": "TRAN 1, LAB 1, SHTL 2",
        "excess damage": "3",
        "damage control (printed) / move cost": "4 / 1",
        "turn mode": "1–7 = 1, 8–16 = 2",
        "cloak": "–",
    },
    "lyran-cadet": {
        "column": "Lyran Cadet Cruiser",
        "SSD page": "9",
        "shields #1..#6": "16,12,8,8,8,12",
        "warp": "L8 R8 = 16",
        "impulse": "2",
        "APR": "2",
        "total power": "20",
        "batteries": "2",
        "phasers": "Ph-1 #1 FA+L; #2 FA+R; Ph-3 #3 LS; #4 RS",
        "phaser capacitor": "3",
        "heavy weapons": "DISR A, B (FA), range 30; ESG ×1 (max 2 energy)",
        "drone racks": "–",
        "control": "bridge 1",
        "hull": "6",
        "other": "TRAN 1, LAB 1, SHTL 1",
        "excess damage": "3",
        "damage control (printed) / move cost": "4 / 1",
        "turn mode": "1–7 = 1, 8–16 = 2",
        "cloak": "–",
    },
}

# §9.2: {ship key: {column heading: printed cell}}; D7 and D6 share one printed row.
_D7_D6_ROW = {
    "ship (SSD page)": "Klingon D7/D6 Battlecruiser (p.4)",
    "shields #1..#6": "30,22,15,13,15,22",
    "warp": "15+15 = 30",
    "imp": "4 (2+2)",
    "APR": "4 (D6: 2)",
    "batt": "3",
    "weapons (arcs)": "Ph-2 #1–3 FX (may also fire down the row astern); Ph-2 #4 LF+L+RR and "
    "#5 RF+R+LR (wing phasers, absent on D6); #6, 7 L+LR; #8, 9 R+RR; DISR A–D FA (range 30; "
    "D6 22); DRONE racks 1, 2 (one launch per turn in total)",
    "control / hull / other": "BRIDGE 2, EMER 1, EMER IMP 1, SCTY 2, AUX 2; F HULL 4, A HULL 7; "
    "LAB 4, TRAN 5, TRAC 3, PRB 1, SHTL 2; BP 14, probes 5",
    "sensor; scanner; dam-con tracks; excess": "6,6,5,3,1,0; 0,0,1,3,5,9; 4,4,2,2,2,0; 4",
    "class, turn mode, move cost": "D7/D6; B; 1",
}
FULL_SHEETS: dict[str, dict[str, str]] = {
    "fed-ca": {
        "ship (SSD page)": "Federation Heavy Cruiser NCC-1017 *Constellation* (p.3)",
        "shields #1..#6": "30,24,20,20,20,24",
        "warp": "15+15 = 30",
        "imp": "4",
        "APR": "2",
        "batt": "4",
        "weapons (arcs)": "PHOT A–D FA; Ph-1 #1, 2 FA; #3, 4 LF+L; #5, 6 RF+R (side phasers may "
        "also fire down the row directly astern); #7, 8 RA",
        "control / hull / other": "BRIDGE 2, EMER 2, AUX CON 2; F HULL 12, A HULL 4; LAB 8, "
        "TRAN 3, TRAC 2, PRB 1, SHTL 4; BP 10, probes 5",
        "sensor; scanner; dam-con tracks; excess": "6,6,5,3,1,0; 0,0,1,3,5,9; 4,4,2,2,2,0; 6",
        "class, turn mode, move cost": "CA; D; 1",
    },
    "klingon-d7": _D7_D6_ROW,
    "klingon-d6": _D7_D6_ROW,
    "romulan-war-eagle": {
        "ship (SSD page)": "Romulan War Eagle I.R.V. *Eagle* (p.5)",
        "shields #1..#6": "25 ×6",
        "warp": "10+10 = 20",
        "imp": "6",
        "APR": "0",
        "batt": "6",
        "weapons (arcs)": "PL-R A FA (fixed); Ph-1 #1, 2 FA+L; #3, 4 FA+R",
        "control / hull / other": "BRDG 2; ARMOR 5; C HULL 6; LAB 2, PRB 1, TRAN 1, TRAC 1, "
        "SHTL 2; BP 5",
        "sensor; scanner; dam-con tracks; excess": "6,6,5,4,2,0; 0,0,0,3,6,9; 4,4,2,2,2,0; 6",
        "class, turn mode, move cost": "WE; D; 1; cloak 6",
    },
    "gorn-ca": {
        "ship (SSD page)": "Gorn Heavy Cruiser C.S.S. *Reptilicon* (p.6)",
        "shields #1..#6": "30,24,24,24,24,24",
        "warp": "16+16 = 32",
        "imp": "4 (2+2)",
        "APR": "2",
        "batt": "4",
        "weapons (arcs)": "Ph-1 #1 FA+L, #2 FA+R, #3, 4 LS, #5, 6 RS, #7 L+RA, #8 R+RA; "
        "PL-S A L+LF, B RF+R",
        "control / hull / other": "BRDG 2, EMER 2, AUX 2; F HULL 4, C HULL 8, R HULL 4; LAB 4, "
        "TRAN 3, TRAC 2, PRB 1, SHTL 6; BP 16, probes 5",
        "sensor; scanner; dam-con tracks; excess": "6,6,5,3,2,0; 0,0,1,2,4,9; 4,4,2,2,2,0; 6",
        "class, turn mode, move cost": "CA; D; 1",
    },
    "orion-raider": {
        "ship (SSD page)": "Orion Raider Cruiser *Queen of Diamonds* (p.7)",
        "shields #1..#6": "18,16,12,11,12,16",
        "warp": "10+10 = 20",
        "imp": "3",
        "APR": "0",
        "batt": "3",
        "weapons (arcs)": "PHOT A FA; Ph-1 #1, 2 FA+L; #3, 4 FA+R; Ph-3 #5, 6 RA; DRN 1, 2 (one "
        "launch from each rack per turn)",
        "control / hull / other": "BRDG 2, AUX 1; C HULL 5, CARGO 5; TRAN 3, TRAC 2, SHTL 2; "
        "BP 12; no probe",
        "sensor; scanner; dam-con tracks; excess": "6,5,1,0; 0,1,5,9; 4,2,2,0; 4",
        "class, turn mode, move cost": "CR; A; ⅔ (table §7.3)",
    },
    "romulan-kr": {
        "ship (SSD page)": "Romulan KR Cruiser I.R.V. *Kestrel* (p.10)",
        "shields #1..#6": "30,22,15,13,15,22",
        "warp": "15+15 = 30",
        "imp": "4",
        "APR": "3",
        "batt": "4",
        "weapons (arcs)": "Ph-1 #1–3 FX (may also fire down the row astern); Ph-2 #4, 5 L+LR; "
        "#6, 7 R+RR; PL-S A (left swivel), B (right swivel)",
        "control / hull / other": "BRIDGE 2, EMER 1, AUX CON 2; HULL 1 + F HULL 4 + A HULL 7; "
        "LAB 4, TRAN 5, TRAC 3, PRB 1, SHTL 4; BP 10, probes 5",
        "sensor; scanner; dam-con tracks; excess": "6,6,5,3,1,0; 0,0,1,3,5,9; 4,4,2,2,2,0; 4",
        "class, turn mode, move cost": "KR; B; 1; cloak 20",
    },
    "kzinti-cs": {
        "ship (SSD page)": "Kzinti Strike Cruiser K.H.S. *Starfire* (p.11)",
        "shields #1..#6": "24,22,22,22,22,22",
        "warp": "10+10+10 = 30",
        "imp": "3",
        "APR": "3",
        "batt": "5",
        "weapons (arcs)": "Ph-1 #1 LF+L, #2 RF+R; DISR A LF+L, B RF+R; Ph-3 #3, 4 LS; #5, 6 RS; "
        "#7, 8 360; #9, 10 L+LR; #11, 12 R+RR; DRN 1–4",
        "control / hull / other": "BRIDGE 3, EMER 1, AUX CON 3; F HULL 5, A HULL 12; LAB 6, "
        "TRAN 5, TRAC 2, PRB 1, SHTL 2; BP 16, probes 5",
        "sensor; scanner; dam-con tracks; excess": "6,6,6,4,1,0; 0,1,2,3,5,9; 4,4,2,2,2,0; 6",
        "class, turn mode, move cost": "CS; C; 1",
    },
    "lyran-tiger": {
        "ship (SSD page)": "Lyran Tiger Heavy Cruiser S.M.S. *Prowess* (p.12)",
        "shields #1..#6": "33,22,18,17,18,22",
        "warp": "15+15 = 30",
        "imp": "3",
        "APR": "4",
        "batt": "4",
        "weapons (arcs)": "DISR A–D FA; Ph-1 #1, 2 FA+L; #3, 4 FA+R; Ph-3 #5–7 LS; #8–10 RS; "
        "ESG 1, ESG 2",
        "control / hull / other": "BRIDGE 3, FLAG 1, EMER 1, AUX 3; F HULL 8, A HULL 8; LAB 4, "
        "TRAN 4, TRAC 4, PRB 1, SHTL 2; BP 12, probes 5",
        "sensor; scanner; dam-con tracks; excess": "6,6,5,3,1,0; 0,0,1,3,5,9; 4,4,2,2,2,0; 6",
        "class, turn mode, move cost": "CA; C; 1",
    },
    "hydran-ranger": {
        "ship (SSD page)": "Hydran Ranger Cruiser H.M.S. *Tenacity* (p.13)",
        "shields #1..#6": "33,26,18,15,18,26",
        "warp": "10+10+10 = 30",
        "imp": "4",
        "APR": "3",
        "batt": "4",
        "weapons (arcs)": "Ph-2 #1, 2 FA; #3, 4 FA+L; #5, 6 FA+R; FUS A, B LF+L; C, D RF+R; "
        "Ph-G #7, 8 RA; 9 Stinger-F fighters",
        "control / hull / other": "BRDG 2, EMER 2, AUX 2; C HULL 21; LAB 4, TRAN 2, TRAC 4, "
        "PRB 1, SHTL 3 (+ fighter bays); BP 12, probes 5",
        "sensor; scanner; dam-con tracks; excess": "6,6,5,3,1,0; 0,0,1,3,5,9; 4,4,2,2,0; 5",
        "class, turn mode, move cost": "RN; C; 1",
    },
    "isc-star-cruiser": {
        "ship (SSD page)": "ISC Star Cruiser I.S.C.S. *Lawgiver* (p.14)",
        "shields #1..#6": "30,30,24,24,24,30",
        "warp": "16+16 = 32",
        "imp": "4",
        "APR": "4",
        "batt": "4",
        "weapons (arcs)": "PPD A FA; PL-S B LF+L, C RF+R; Ph-1 #1, 2 FA; #3, 4 FA+L; #5, 6 FA+R; "
        "#7, 8 360",
        "control / hull / other": "BRIDGE 2, EMER 2, AUX 2; F HULL 8, A HULL 8; LAB 4, TRAN 4, "
        "TRAC 4, PRB 1, SHTL 6; BP 14, probes 5",
        "sensor; scanner; dam-con tracks; excess": "6,6,5,3,1,0; 0,0,1,3,5,9; 4,4,2,2,2,0; 6",
        "class, turn mode, move cost": "CA; D; 1",
    },
}

# Every mount, transcribed from the weapons cells above (and §12.1, §9.3): "ID type arcs", arcs
# joined by "+", a trailing "^" = may also fire down the row directly astern (§1.5).
WEAPONS: dict[str, str] = {
    "fed-cadet": "PH1-1 ph-1 FA; PH1-2 ph-1 LS; PH1-3 ph-1 RS; PHOT-A photon FA; PHOT-B photon FA",
    "klingon-cadet": "PH2-1 ph-2 FX; PH2-2 ph-2 FX; PH2-3 ph-2 L+LR; PH2-4 ph-2 R+RR; "
    "DISR-A disruptor FA; DISR-B disruptor FA; DRONE-1 drone-rack 360",
    "romulan-cadet": "PH1-1 ph-1 L+FA; PH1-2 ph-1 FA+R; PL-A plasma-s FA",
    "romulan-kr-cadet": "PH1-1 ph-1 FX; PH1-2 ph-1 FX; PH2-3 ph-2 L+LR; PH2-4 ph-2 R+RR; "
    "PL-A plasma-s FA",
    "gorn-cadet": "PH1-1 ph-1 FA; PH1-2 ph-1 LS; PH1-3 ph-1 RS; PH1-4 ph-1 RA; "
    "PL-A plasma-f L+LF; PL-B plasma-f RF+R",
    "kzinti-cadet": "PH1-1 ph-1 FA; PH3-2 ph-3 LS; PH3-3 ph-3 LS; PH3-4 ph-3 RS; PH3-5 ph-3 RS; "
    "DISR-A disruptor FA; DRONE-1 drone-rack 360; DRONE-2 drone-rack 360",
    "orion-cadet": "PH1-1 ph-1 FA+L; PH1-2 ph-1 FA+R; PH3-3 ph-3 L+LR; PH3-4 ph-3 R+RR; "
    "PHOT-A photon FA; PHOT-B photon FA; DRONE-1 drone-rack 360; DRONE-2 drone-rack 360",
    "hydran-cadet": "PH2-1 ph-2 FA; PH2-2 ph-2 LF+L; PH2-3 ph-2 RF+R; PHG-4 ph-g RA; "
    "FUS-A fusion LF+L; FUS-B fusion RF+R",
    "lyran-cadet": "PH1-1 ph-1 FA+L; PH1-2 ph-1 FA+R; PH3-3 ph-3 LS; PH3-4 ph-3 RS; "
    "DISR-A disruptor FA; DISR-B disruptor FA; ESG-1 esg 360",
    "isc-cadet": "PH1-1 ph-1 FA+L; PH1-2 ph-1 FA+R; PH1-3 ph-1 360; PPD-A ppd FA; "
    "PL-B plasma-f L+LF; PL-C plasma-f RF+R",
    "fed-ca": "PHOT-A photon FA; PHOT-B photon FA; PHOT-C photon FA; PHOT-D photon FA; "
    "PH1-1 ph-1 FA; PH1-2 ph-1 FA; PH1-3 ph-1 LF+L^; PH1-4 ph-1 LF+L^; PH1-5 ph-1 RF+R^; "
    "PH1-6 ph-1 RF+R^; PH1-7 ph-1 RA; PH1-8 ph-1 RA",
    "klingon-d7": "PH2-1 ph-2 FX^; PH2-2 ph-2 FX^; PH2-3 ph-2 FX^; PH2-4 ph-2 LF+L+RR; "
    "PH2-5 ph-2 RF+R+LR; PH2-6 ph-2 L+LR; PH2-7 ph-2 L+LR; PH2-8 ph-2 R+RR; PH2-9 ph-2 R+RR; "
    "DISR-A disruptor FA; DISR-B disruptor FA; DISR-C disruptor FA; DISR-D disruptor FA; "
    "DRONE-1 drone-rack 360; DRONE-2 drone-rack 360",
    "klingon-d6": "PH2-1 ph-2 FX^; PH2-2 ph-2 FX^; PH2-3 ph-2 FX^; PH2-6 ph-2 L+LR; "
    "PH2-7 ph-2 L+LR; PH2-8 ph-2 R+RR; PH2-9 ph-2 R+RR; DISR-A disruptor FA; "
    "DISR-B disruptor FA; DISR-C disruptor FA; DISR-D disruptor FA; DRONE-1 drone-rack 360; "
    "DRONE-2 drone-rack 360",
    "romulan-war-eagle": "PL-A plasma-r FA; PH1-1 ph-1 FA+L; PH1-2 ph-1 FA+L; PH1-3 ph-1 FA+R; "
    "PH1-4 ph-1 FA+R",
    "gorn-ca": "PH1-1 ph-1 FA+L; PH1-2 ph-1 FA+R; PH1-3 ph-1 LS; PH1-4 ph-1 LS; PH1-5 ph-1 RS; "
    "PH1-6 ph-1 RS; PH1-7 ph-1 L+RA; PH1-8 ph-1 R+RA; PL-A plasma-s L+LF; PL-B plasma-s RF+R",
    "orion-raider": "PHOT-A photon FA; PH1-1 ph-1 FA+L; PH1-2 ph-1 FA+L; PH1-3 ph-1 FA+R; "
    "PH1-4 ph-1 FA+R; PH3-5 ph-3 RA; PH3-6 ph-3 RA; DRONE-1 drone-rack 360; "
    "DRONE-2 drone-rack 360",
    "romulan-kr": "PH1-1 ph-1 FX^; PH1-2 ph-1 FX^; PH1-3 ph-1 FX^; PH2-4 ph-2 L+LR; "
    "PH2-5 ph-2 L+LR; PH2-6 ph-2 R+RR; PH2-7 ph-2 R+RR; PL-A plasma-s LF+L; PL-B plasma-s RF+R",
    "kzinti-cs": "PH1-1 ph-1 LF+L; PH1-2 ph-1 RF+R; DISR-A disruptor LF+L; DISR-B disruptor RF+R; "
    "PH3-3 ph-3 LS; PH3-4 ph-3 LS; PH3-5 ph-3 RS; PH3-6 ph-3 RS; PH3-7 ph-3 360; "
    "PH3-8 ph-3 360; PH3-9 ph-3 L+LR; PH3-10 ph-3 L+LR; PH3-11 ph-3 R+RR; PH3-12 ph-3 R+RR; "
    "DRONE-1 drone-rack 360; DRONE-2 drone-rack 360; DRONE-3 drone-rack 360; "
    "DRONE-4 drone-rack 360",
    "lyran-tiger": "DISR-A disruptor FA; DISR-B disruptor FA; DISR-C disruptor FA; "
    "DISR-D disruptor FA; PH1-1 ph-1 FA+L; PH1-2 ph-1 FA+L; PH1-3 ph-1 FA+R; PH1-4 ph-1 FA+R; "
    "PH3-5 ph-3 LS; PH3-6 ph-3 LS; PH3-7 ph-3 LS; PH3-8 ph-3 RS; PH3-9 ph-3 RS; "
    "PH3-10 ph-3 RS; ESG-1 esg 360; ESG-2 esg 360",
    "hydran-ranger": "PH2-1 ph-2 FA; PH2-2 ph-2 FA; PH2-3 ph-2 FA+L; PH2-4 ph-2 FA+L; "
    "PH2-5 ph-2 FA+R; PH2-6 ph-2 FA+R; FUS-A fusion LF+L; FUS-B fusion LF+L; FUS-C fusion RF+R; "
    "FUS-D fusion RF+R; PHG-7 ph-g RA; PHG-8 ph-g RA",
    "isc-star-cruiser": "PPD-A ppd FA; PL-B plasma-s LF+L; PL-C plasma-s RF+R; PH1-1 ph-1 FA; "
    "PH1-2 ph-1 FA; PH1-3 ph-1 FA+L; PH1-4 ph-1 FA+L; PH1-5 ph-1 FA+R; PH1-6 ph-1 FA+R; "
    "PH1-7 ph-1 360; PH1-8 ph-1 360",
    "freighter": "PH2-1 ph-2 360",
    "freighter-large": "PH2-1 ph-2 360",
}

# §3.2 turn-mode class letter, §9.1/§9.2 hull class, §4.2 disruptor range, §5.1 launcher kinds.
PLASMA_LAUNCHERS = {
    "romulan-cadet": {"PL-A": "fixed"},
    "romulan-kr-cadet": {"PL-A": "fixed"},
    "romulan-war-eagle": {"PL-A": "fixed"},
    "romulan-kr": {"PL-A": "swivel-left", "PL-B": "swivel-right"},
    "gorn-cadet": {"PL-A": "arc", "PL-B": "arc"},
    "gorn-ca": {"PL-A": "arc", "PL-B": "arc"},
    "isc-star-cruiser": {"PL-B": "arc", "PL-C": "arc"},
    "isc-cadet": {"PL-B": "arc", "PL-C": "arc"},
}
DISRUPTOR_RANGE = {  # §4.2 "CTH ships" row
    "klingon-cadet": 30,
    "kzinti-cadet": 30,
    "lyran-cadet": 30,
    "klingon-d7": 30,
    "klingon-d6": 22,
    "kzinti-cs": 30,
    "lyran-tiger": 30,
}
CLOAK = {  # §8.2 cost per turn: (cost, optional)
    "romulan-cadet": (6, False),
    "romulan-war-eagle": (6, False),
    "romulan-kr-cadet": (8, False),
    "romulan-kr": (20, False),
    "orion-cadet": (6, True),
    "orion-raider": (12, True),
}
SCENARIO_NAMES = {
    "fed-cadet": ("Constellation",),
    "klingon-cadet": ("Destruction", "War", "Fire", "Death"),
    "romulan-cadet": ("Eagle",),
    "romulan-kr-cadet": ("Kestrel",),
    "fed-ca": ("Constellation",),
    "klingon-d7": ("Destruction",),
    "romulan-war-eagle": ("Eagle",),
    "gorn-ca": ("Reptilicon",),
    "orion-raider": ("Queen of Diamonds",),
    "romulan-kr": ("Kestrel",),
    "kzinti-cs": ("Starfire",),
    "lyran-tiger": ("Prowess",),
    "hydran-ranger": ("Tenacity",),
    "isc-star-cruiser": ("Lawgiver",),
}

# §7.3: Orion Raider warp energy for speeds 1..30.
ORION_MOVEMENT_ROW = (
    "warp   1 2 2 3 4 4 5 6 6  7  8  8  9 10 10 11 12 12 13 14 14 15 16 16 17 18 18 19 20 20"
)

# §12.1 ISC cadet PROPOSAL cells.
ISC_CADET_ROWS = {
    "shields #1..#6": "16, 16, 12, 12, 12, 16",
    "warp / impulse / APR": "L8 R8 = 16 / 2 / 2 → total power 20",
    "batteries": "2",
    "phasers": "Ph-1 #1 FA+L, #2 FA+R, #3 360 → capacitor 3",
    "control / hull": "bridge 1; hull 6 (3 fwd, 3 aft)",
    "other": "TRAN 1, LAB 1, SHTL 2; excess damage 3; damage control 4; move cost 1",
    "turn mode": "1–6 = 1, 7–16 = 2",
}

# §9.3 freighter cells: (cadet value, full-size value).
FREIGHTER_ROWS = {
    "shields": (
        "down after 5 damage points from any direction or mix of directions; afterwards all "
        "damage is internal",
        "down after 10",
    ),
    "weapon": (
        "one phaser-2, 360°, once per turn (¼-turn rule); dead once internal damage ≥ 5",
        "dead at internal ≥ 10",
    ),
    "speed": (
        "4; 3 from the start of the turn after internal ≥ 10; 2 from the turn after internal ≥ 15",
        "8 (scenario 3 variant; scenario 8 sets 2); thresholds 20 and 30",
    ),
    "destroyed": ("internal ≥ 20 (25 points in all)", "internal ≥ 40 (50 in all)"),
}

ALL_KEYS = sorted([*CADET_SHEETS, "isc-cadet", *FULL_SHEETS, "freighter", "freighter-large"])

# --------------------------------------------------------------------------- cell parsers

_SYSTEM_LABELS = {
    "BRIDGE": "bridge",
    "BRDG": "bridge",
    "FLAG": "flag_bridge",
    "EMER": "emergency_bridge",
    "EMER IMP": "emergency_impulse",
    "SCTY": "security",
    "SECURITY": "security",
    "AUX": "auxiliary_control",
    "AUX CON": "auxiliary_control",
    "HULL": "hull",
    "F HULL": "forward_hull",
    "A HULL": "aft_hull",
    "C HULL": "center_hull",
    "R HULL": "rear_hull",
    "ARMOR": "armor",
    "CARGO": "cargo",
    "LAB": "lab",
    "TRAN": "transporter",
    "TRAC": "tractor",
    "PRB": "probe_launcher",
    "SHTL": "shuttle",
    "BP": "boarding_parties",
    "PROBES": "probes",
}


def _ints(cell: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", cell)]


def _boxes(*cells: str) -> dict[str, int]:
    """``"BRIDGE 2, EMER 1; HULL 1 + F HULL 4"`` -> {system: count} (parentheticals dropped)."""
    found: dict[str, int] = {}
    for cell in cells:
        for piece in re.split(r"[;,+]", re.sub(r"\([^)]*\)", "", cell)):
            match = re.fullmatch(r"\s*([A-Za-z][A-Za-z ]*?)\s+(\d+)\s*", piece)
            if match:
                found[_SYSTEM_LABELS[match.group(1).upper()]] = int(match.group(2))
    return found


def _cadet_phasers(cell: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """``"Ph-1 #1, #2 FX; Ph-2 #3 L+LR"`` -> {"PH1-1": ("ph-1", ("FX",)), ...}."""
    mounts: dict[str, tuple[str, tuple[str, ...]]] = {}
    kind = ""
    for segment in cell.split(";"):
        match = re.fullmatch(r"\s*(?:Ph-([123G]) )?((?:#\d+,? )+)(\S+)\s*", segment)
        assert match, segment
        kind = match.group(1) or kind
        for number in _ints(match.group(2)):
            mounts[f"PH{kind}-{number}"] = (f"ph-{kind.lower()}", tuple(match.group(3).split("+")))
    return mounts


def _weapon_spec(spec: str) -> dict[str, tuple[str, tuple[str, ...], bool]]:
    out = {}
    for item in spec.split("; "):
        mount_id, wtype, arcs = item.split()
        out[mount_id] = (wtype, tuple(arcs.rstrip("^").split("+")), arcs.endswith("^"))
    return out


def _d6_pick(cell: str, key: str) -> int:
    """``"4 (D6: 2)"``: the D6 value for the D6, the first value otherwise."""
    d6 = re.search(r"D6: (\d+)", cell)
    return int(d6.group(1)) if key == "klingon-d6" and d6 else _ints(cell)[0]


def _markdown_table(section: str) -> list[list[str]]:
    text = CTH_DATA.read_text(encoding="utf-8")
    start = text.index(section)
    body = text[start : text.index("\n### ", start + 1)]
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in body.splitlines()
        if line.startswith("|") and not line.startswith("|---")
    ]


# --------------------------------------------------------------------------- the reference


def test_literal_rows_appear_in_cth_data() -> None:
    """Every literal cell above is a cell of CTH-DATA's own tables (§9.1, §9.2, §9.3, §12.1)."""
    if not CTH_DATA.exists():
        pytest.skip(f"{CTH_DATA} not available")
    assert "16,12,10,10,10,12" in CADET_SHEETS["fed-cadet"]["shields #1..#6"]

    cadet = _markdown_table("### 9.1")
    columns = cadet[0]
    rows = {row[0]: row for row in cadet[1:]}
    for sheet in CADET_SHEETS.values():
        col = columns.index(sheet["column"])
        for label, cell in sheet.items():
            if label != "column":
                assert rows[label][col] == cell, (sheet["column"], label)

    full = _markdown_table("### 9.2")
    headings = full[0]
    by_ship = {row[0]: dict(zip(headings, row, strict=True)) for row in full[1:]}
    for sheet in FULL_SHEETS.values():
        assert by_ship[sheet["ship (SSD page)"]] == sheet

    freighter = {row[0]: row[1:] for row in _markdown_table("### 9.3")[1:]}
    for label, cells in FREIGHTER_ROWS.items():
        assert tuple(freighter[label]) == cells, label

    isc = {row[0]: row[1] for row in _markdown_table("### 12.1")[1:]}
    for label, cell in ISC_CADET_ROWS.items():
        assert isc[label] == cell, label

    assert ORION_MOVEMENT_ROW in CTH_DATA.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- the sheets


def test_every_sheet_present_and_loads() -> None:
    assert sorted(ship_keys()) == ALL_KEYS
    ships = all_ships()
    assert sorted(ships) == ALL_KEYS
    assert all_ships() is ships  # cached
    for key, ship in ships.items():
        assert isinstance(ship, ShipClass) and ship.key == key
        assert load_ship(key) is ship


@pytest.mark.parametrize("key", sorted(CADET_SHEETS))
def test_b3_cadet_total_power_matches_sheet(key: str) -> None:
    row, ship = CADET_SHEETS[key], load_ship(key)
    warp = {engine: int(n) for engine, n in re.findall(r"([LCR])(\d+)", row["warp"])}
    assert dict(ship.warp) == warp
    assert ship.warp_power == _ints(row["warp"])[-1]
    assert ship.impulse == _ints(row["impulse"])[0]
    assert ship.apr == _ints(row["APR"])[0]
    assert ship.total_power == int(row["total power"])
    assert ship.total_power == ship.warp_power + ship.impulse + ship.apr
    assert ship.batteries == int(row["batteries"])


@pytest.mark.parametrize("key", sorted(CADET_SHEETS))
def test_d3_cadet_sheet_matches_section_9_1(key: str) -> None:
    row, ship = CADET_SHEETS[key], load_ship(key)
    assert (ship.kind, ship.source, ship.confidence) == ("cadet", "book", "high")
    assert ship.ssd_page == int(row["SSD page"])
    assert ship.shields == tuple(_ints(row["shields #1..#6"]))
    assert ship.phaser_capacitor == int(row["phaser capacitor"])
    assert ship.excess_damage == int(row["excess damage"])
    damage_control, move_cost = _ints(row["damage control (printed) / move cost"])
    assert (ship.damage_control, ship.move_cost) == (damage_control, move_cost)
    # Turn-mode charts live in turn_modes.yaml; a cadet sheet names its own (§3.1).
    assert ship.turn_mode == key
    hull = _ints(row["hull"])
    expected = _boxes(row["control"], row["other"])
    if "fwd" in row["hull"]:
        expected.update(forward_hull=hull[1], aft_hull=hull[2])
    else:
        expected["hull"] = hull[0]
    assert dict(ship.systems) == expected
    assert ship.hull_boxes == hull[0]
    assert ship.boarding_parties == 0 and ship.probes == 0
    assert ship.sensor_track == ship.scanner_track == ship.damage_control_track == ()


@pytest.mark.parametrize("key", ALL_KEYS)
def test_c3_turn_mode_names_a_chart_of_turn_modes_yaml(key: str) -> None:
    """The named chart exists; for cadets it reproduces the printed §9.1 turn-mode row."""
    charts_module = pytest.importorskip("sfb_env.data.charts")
    charts = charts_module.load_turn_modes().charts
    ship = load_ship(key)
    if ship.kind == "freighter" and ship.turn_mode not in charts:
        pytest.xfail("turn_modes.yaml has no 'freighter' chart yet (§12.2 proposal: 1)")
    assert ship.turn_mode in charts
    if key in CADET_SHEETS:
        for low, high, mode in re.findall(r"(\d+)–(\d+) = (\d+)", CADET_SHEETS[key]["turn mode"]):
            for speed in range(int(low), int(high) + 1):
                assert charts[ship.turn_mode][speed] == int(mode), speed


@pytest.mark.parametrize("key", sorted(CADET_SHEETS))
def test_e2_cadet_phasers_match_printed_cell(key: str) -> None:
    ship = load_ship(key)
    printed = _cadet_phasers(CADET_SHEETS[key]["phasers"])
    assert {m.id: (m.type, m.arcs) for m in ship.weapons if m.is_phaser} == printed


@pytest.mark.parametrize("key", sorted(FULL_SHEETS))
def test_b3_full_size_sheet_matches_section_9_2(key: str) -> None:
    row, ship = FULL_SHEETS[key], load_ship(key)
    assert ship.kind == "full" and ship.source == "book"
    assert ship.ssd_page == _ints(row["ship (SSD page)"].rsplit("(p.", 1)[1])[0]
    shields = row["shields #1..#6"]
    expected_shields = [int(shields.split()[0])] * 6 if "×6" in shields else _ints(shields)
    assert ship.shields == tuple(expected_shields)
    engines = _ints(row["warp"].split("=")[0])
    assert dict(ship.warp) == dict(
        zip(("L", "C", "R") if len(engines) == 3 else ("L", "R"), engines, strict=True)
    )
    assert ship.warp_power == _ints(row["warp"])[-1]
    assert ship.impulse == _ints(row["imp"])[0]
    assert ship.apr == _d6_pick(row["APR"], key)
    assert ship.batteries == int(row["batt"])
    assert ship.total_power == ship.warp_power + ship.impulse + ship.apr

    sensor, scanner, dc_track, excess = row["sensor; scanner; dam-con tracks; excess"].split(";")
    assert ship.sensor_track == tuple(_ints(sensor))
    assert ship.scanner_track == tuple(_ints(scanner))
    assert ship.damage_control_track == tuple(_ints(dc_track))
    assert ship.excess_damage == int(excess)
    assert ship.damage_control == ship.damage_control_track[0] == 4  # (D9.0) rating

    hull_class, turn_mode, move_cost, *rest = row["class, turn mode, move cost"].split("; ")
    assert ship.hull_class == ("D6" if key == "klingon-d6" else hull_class.split("/")[0])
    assert ship.turn_mode == turn_mode
    assert ship.move_cost == (Fraction(2, 3) if move_cost.startswith("⅔") else int(move_cost))
    if rest:
        assert ship.cloak_cost == _ints(rest[0])[0]

    boxes = _boxes(row["control / hull / other"])
    assert ship.boarding_parties == boxes.pop("boarding_parties")
    probes = boxes.pop("probes", None)
    if probes is not None:
        assert ship.probes == probes
    else:  # War Eagle: launcher printed, probe count not; Orion: "no probe"
        assert ship.probes == 0 or ship.is_proposal("probes")
    assert dict(ship.systems) == boxes


@pytest.mark.parametrize("key", ALL_KEYS)
def test_d2_weapon_counts_types_and_arcs(key: str) -> None:
    ship = load_ship(key)
    expected = _weapon_spec(WEAPONS[key])
    assert Counter(m.type for m in ship.weapons) == Counter(t for t, _, _ in expected.values())
    assert {m.id: (m.type, m.arcs, m.astern_row) for m in ship.weapons} == expected
    for mount in ship.weapons:
        assert set(mount.arcs) <= set(ARC_TOKENS)


@pytest.mark.parametrize("key", ALL_KEYS)
def test_h6_capacitor_is_one_firing_of_every_phaser(key: str) -> None:
    ship = load_ship(key)
    cost = {"ph-1": 1, "ph-2": 1, "ph-3": Fraction(1, 2), "ph-g": 1}
    assert ship.phaser_capacitor == sum(cost.get(m.type, 0) for m in ship.weapons)


def test_d2_arc_masks() -> None:
    bit = {arc: 1 << i for i, arc in enumerate(BASE_ARCS)}
    fed = load_ship("fed-cadet")
    assert fed.weapon("PH1-1").arc_mask == bit["LF"] | bit["RF"]
    assert fed.weapon("PH1-2").arc_mask == bit["LF"] | bit["L"] | bit["LR"]
    assert load_ship("isc-cadet").weapon("PH1-3").arc_mask == 0b111111
    d7 = load_ship("klingon-d7")
    assert d7.weapon("PH2-4").arc_mask == bit["LF"] | bit["L"] | bit["RR"]


@pytest.mark.parametrize(("key", "max_range"), sorted(DISRUPTOR_RANGE.items()))
def test_e3_32_disruptor_max_range(key: str, max_range: int) -> None:
    mounts = load_ship(key).weapons_of("disruptor")
    assert mounts and {m.max_range for m in mounts} == {max_range}


def test_d7_d6_variant() -> None:
    d7, d6 = load_ship("klingon-d7"), load_ship("klingon-d6")
    assert {m.id for m in d7.weapons} - {m.id for m in d6.weapons} == {"PH2-4", "PH2-5"}
    assert (d7.apr, d6.apr, d7.total_power, d6.total_power) == (4, 2, 38, 36)
    assert d7.phaser_capacitor == 9 and d6.phaser_capacitor == 7
    assert d7.drone_launch_limit == d6.drone_launch_limit == 1
    assert d7.systems == d6.systems and d7.shields == d6.shields


def test_fd1_drone_racks_hold_four() -> None:
    for ship in all_ships().values():
        for rack in ship.weapons_of("drone-rack"):
            assert rack.ammo == 4 and rack.arcs == ("360",)
    assert load_ship("orion-raider").drone_launch_limit is None  # one per rack


@pytest.mark.parametrize("key", sorted(PLASMA_LAUNCHERS))
def test_fp3_plasma_launchers(key: str) -> None:
    mounts = load_ship(key).weapons_of("plasma-s", "plasma-r", "plasma-f")
    assert {m.id: m.launcher for m in mounts} == PLASMA_LAUNCHERS[key]


def test_g23_esg_capacity_and_start_charge() -> None:
    (cadet_esg,) = load_ship("lyran-cadet").weapons_of("esg")
    assert (cadet_esg.max_energy, cadet_esg.start_charge) == (2, 2)
    tiger = load_ship("lyran-tiger").weapons_of("esg")
    assert [(m.max_energy, m.start_charge) for m in tiger] == [(5, 5), (5, 5)]


@pytest.mark.parametrize("key", ALL_KEYS)
def test_g13_cloak_costs(key: str) -> None:
    ship = load_ship(key)
    assert (ship.cloak_cost, ship.cloak_optional) == CLOAK.get(key, (None, False))


@pytest.mark.parametrize("key", ALL_KEYS)
def test_scenario_ship_names(key: str) -> None:
    assert load_ship(key).names == SCENARIO_NAMES.get(key, ())


def test_j4_ranger_carries_nine_stingers() -> None:
    ranger = load_ship("hydran-ranger")
    assert ranger.fighters is not None
    assert (ranger.fighters.type, ranger.fighters.count) == ("stinger-f", 9)
    assert all(s.fighters is None for k, s in all_ships().items() if k != "hydran-ranger")


def test_d4_12_war_eagle_armor() -> None:
    assert load_ship("romulan-war-eagle").systems["armor"] == 5


def test_c2_orion_raider_movement_table() -> None:
    raider = load_ship("orion-raider")
    assert raider.move_cost == Fraction(2, 3)
    printed = _ints(ORION_MOVEMENT_ROW)
    assert [raider.warp_for_speed(n) for n in range(1, 31)] == printed
    assert raider.warp_for_speed(31) == 21
    assert load_ship("fed-ca").warp_for_speed(20) == 20


# --------------------------------------------------------------------------- proposals


def test_12_1_isc_cadet_is_a_proposal() -> None:
    ship = load_ship("isc-cadet")
    assert (ship.source, ship.confidence, ship.kind) == ("proposal", "proposal", "cadet")
    assert ship.is_proposal("shields") and ship.is_proposal("weapons")
    assert ship.shields == tuple(_ints(ISC_CADET_ROWS["shields #1..#6"]))
    assert (ship.warp_power, ship.impulse, ship.apr, ship.total_power) == (16, 2, 2, 20)
    assert ship.batteries == 2 and ship.phaser_capacitor == 3
    assert ship.hull_boxes == 6 and ship.systems["forward_hull"] == ship.systems["aft_hull"] == 3
    assert ship.turn_mode == "isc-cadet" and ship.move_cost == 1
    assert (ship.excess_damage, ship.damage_control) == (3, 4)
    book = [s for s in all_ships().values() if s.key != "isc-cadet"]
    assert all(s.source == "book" for s in book)


@pytest.mark.parametrize(
    ("key", "pool", "dead", "destroyed", "speed", "steps", "bp"),
    [
        ("freighter", 5, 5, 20, 4, ((10, 1), (15, 2)), 0),
        ("freighter-large", 10, 10, 40, 8, ((20, 1), (30, 2)), 2),
    ],
)
def test_r1_6_freighter_abstract_rules(
    key: str, pool: int, dead: int, destroyed: int, speed: int, steps: Any, bp: int
) -> None:
    ship = load_ship(key)
    rules = ship.freighter
    assert ship.kind == "freighter" and rules is not None
    assert (rules.shield_pool, rules.phaser_disabled_at, rules.destroyed_at) == (
        pool,
        dead,
        destroyed,
    )
    assert (rules.speed, rules.speed_reductions) == (speed, steps)
    assert ship.shields == (pool,) * 6  # the six-shield variant
    assert ship.boarding_parties == bp and ship.systems == {"control_station": 2}
    assert ship.move_cost is None and ship.total_power == 0
    assert rules.speed_after(steps[0][0] - 1) == speed
    assert rules.speed_after(steps[0][0]) == speed - 1
    assert rules.speed_after(steps[1][0]) == speed - 2


def test_12_2_freighter_proposal_fields_flagged() -> None:
    small, large = load_ship("freighter"), load_ship("freighter-large")
    for ship in (small, large):
        assert ship.source == "book"
        for field in ("turn_mode", "phaser_capacitor", "hull_class"):
            assert ship.is_proposal(field), (ship.key, field)
        assert not ship.is_proposal("shields")
        assert not ship.is_proposal("freighter.destroyed_at")
    assert large.is_proposal("freighter.speed_reductions")
    assert not small.is_proposal("freighter.speed_reductions")


# --------------------------------------------------------------------------- bad input


def _broken_copy(tmp_path: Path, edit: Any, key: str = "fed-cadet") -> Path:
    doc = yaml.safe_load((SHIPS_DIR / f"{key}.yaml").read_text(encoding="utf-8"))
    edit(doc)
    path = tmp_path / f"{key}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def _set(path: str, value: Any) -> Any:
    def edit(doc: Any) -> None:
        *parents, last = path.split(".")
        node = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d.pop("shields"), "shields"),
        (_set("shields", [16, 12, 10, 10, 10]), "shields"),
        (_set("weapons.0.arcs", ["XF"]), "weapons[0].arcs[0]"),
        (_set("weapons.3.type", "phaser-9"), "weapons[3].type"),
        (_set("weapons.1.id", "PH1-1"), "weapons[1].id"),
        (_set("power.impulse", "two"), "power.impulse"),
        (_set("excess_damage", "3"), "excess_damage"),
        (_set("power.total_power", 21), "power.total_power"),
        (_set("phaser_capacitor", 4), "phaser_capacitor"),
        (_set("weapons.0.id", "PHOT-1"), "weapons[0].id"),
        (_set("weapons.3.ammo", 4), "weapons[3].ammo"),
        (_set("shields", [16, 12, 10, 10, 10, -1]), "shields"),
        (_set("kind", "starbase"), "kind"),
        (_set("turn_mode", "D"), "turn_mode"),
        (_set("shield", [1, 2, 3]), "shield"),
        (_set("proposals", {"speed": "no such field"}), "proposals.speed"),
    ],
    ids=[
        "missing-field",
        "five-shields",
        "unknown-arc",
        "unknown-type",
        "duplicate-id",
        "string-for-int",
        "string-excess",
        "total-power",
        "capacitor",
        "id-prefix",
        "ammo-on-photon",
        "negative-shield",
        "unknown-kind",
        "cadet-turn-mode",
        "unknown-key",
        "proposal-path",
    ],
)
def test_bad_sheet_raises_data_file_error(tmp_path: Path, edit: Any, field: str) -> None:
    path = _broken_copy(tmp_path, edit)
    with pytest.raises(DataFileError) as info:
        load_ship("fed-cadet", path=path)
    assert info.value.field == field
    assert "fed-cadet.yaml" in str(info.value) and field in str(info.value)


def test_bad_orion_movement_table(tmp_path: Path) -> None:
    path = _broken_copy(tmp_path, _set("movement_table.2", 3), key="orion-raider")
    with pytest.raises(DataFileError, match=r"movement_table\[2\]"):
        load_ship("orion-raider", path=path)


def test_h6_printed_capacitor_kept_with_a_note(tmp_path: Path) -> None:
    def edit(doc: Any) -> None:
        doc["phaser_capacitor"] = 4
        doc["phaser_capacitor_note"] = "printed value differs"

    ship = load_ship("fed-cadet", path=_broken_copy(tmp_path, edit))
    assert ship.phaser_capacitor == 4


def test_load_from_a_folder(tmp_path: Path) -> None:
    _broken_copy(tmp_path, lambda doc: None)
    assert load_ship("fed-cadet", path=tmp_path) == load_ship("fed-cadet")


def test_unknown_ship_key_names_it() -> None:
    with pytest.raises(UnknownShipError) as info:
        load_ship("borg-cube")
    assert isinstance(info.value, ValueError)
    assert "borg-cube" in str(info.value) and "fed-cadet" in str(info.value)
    assert info.value.key == "borg-cube" and "klingon-d7" in info.value.known
