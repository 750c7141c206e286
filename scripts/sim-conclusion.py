#!/usr/bin/env python3
"""sim-conclusion.py JSON: what to conclude from a ppf-sim --sweep, in words.

make sim-demo ends with it.  For each model the row that covers most opens
(ties: the more precise), then three sentences: how much each covers, which
predicts earliest (lead: how far ahead of the open its first prediction
came, the time a prefetch has to finish), and what that costs in precision
and memory.  Every figure comes from the JSON, nothing is fixed here.
"""
from __future__ import annotations

import json
import sys
import textwrap
from typing import Any, Dict, List

NAMES = {"last_successor": "last successor", "pcm": "PCM", "epcm": "EPCM"}


def shape(r: Dict[str, Any]) -> str:
    if r["model"] == "last_successor":
        return ""
    return " (partition %d, order %d)" % (r["partition_size"], r["model_order"])


def conclusion(results: List[Dict[str, Any]]) -> List[str]:
    best: Dict[str, Dict[str, Any]] = {}
    for r in results:
        m = r["model"]
        if m not in NAMES:
            continue
        key = (r["coverage"], r["precision"])
        if m not in best or key > (best[m]["coverage"], best[m]["precision"]):
            best[m] = r
    if not best:
        return ["No model rows to conclude from."]
    models = [m for m in NAMES if m in best]
    oracle = [r for r in results if r["model"] == "oracle"]
    cover = ", ".join("%s %.1f %%%s" % (NAMES[m], 100 * best[m]["coverage"], shape(best[m]))
                      for m in models)
    lines = ["Conclusion: the best shape of each model predicts this share of the opens "
             "before they happen: %s%s." % (cover, ", the oracle %.1f %%" % (
                 100 * oracle[0]["coverage"]) if oracle else "")]
    early = max(models, key=lambda m: best[m]["lead_events_mean"])
    others = [m for m in models if m != early]
    lines.append("%s predicts earliest: %.1f events (%.1f ms) ahead of the open, against %s; "
                 "the earlier the prediction, the more of the read a prefetch can finish "
                 "before the program asks." % (
                     NAMES[early], best[early]["lead_events_mean"], best[early]["lead_ms_mean"],
                     " and ".join("%.1f (%.1f ms) for %s" % (
                         best[m]["lead_events_mean"], best[m]["lead_ms_mean"], NAMES[m])
                         for m in others) or "no other model"))
    precise = max(models, key=lambda m: best[m]["precision"])
    if precise != early:
        lines.append("It pays in precision and memory: %.1f %% of its predictions used and "
                     "%d nodes, against %.1f %% and %d for %s." % (
                         100 * best[early]["precision"], best[early]["nodes"],
                         100 * best[precise]["precision"], best[precise]["nodes"],
                         NAMES[precise]))
    else:
        lines.append("It is also the most precise: %.1f %% of its predictions used, "
                     "with %d nodes." % (100 * best[early]["precision"], best[early]["nodes"]))
    return lines


def main(argv: List[str]) -> int:
    if len(argv) != 1:
        print("usage: sim-conclusion.py JSON (ppf-sim --json's output)", file=sys.stderr)
        return 2
    try:
        with open(argv[0]) as f:
            results = json.load(f)["results"]
    except (OSError, ValueError, KeyError) as e:
        print("sim-conclusion: %s: %s" % (argv[0], e), file=sys.stderr)
        return 1
    print("\n".join(textwrap.fill(line, 78) for line in conclusion(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
