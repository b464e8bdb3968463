#!/usr/bin/env python3
"""What ci/timing.sh reads from a nextpnr report (--report with
--detailed-timing-report):

    ci/pnr_report.py critical REPORT.json
    ci/pnr_report.py failing REPORT.json PERIOD_NS [GROUPS]

`critical` prints the worst path as result lines: path_from and path_to (the
register or RAM it starts and ends in), path_ns (its latest arrival, setup
included) and path_levels (logic cells on it).

`failing` prints the count of endpoints whose latest arrival exceeds
PERIOD_NS (setup time aside) on the first line, then the worst GROUPS groups
(default 20), one a line: latest arrival in ns, endpoints in the group, cell
and port. nextpnr names only the worst path; this shows how many others need
work."""
import collections
import json
import re
import sys


def register_of(cell):
    """A FF or RAM cell's name without the mapper's suffix: the register or
    memory it holds (a distributed RAM's numbered slices as one)."""
    cell = re.sub(r"(_TRELLIS_FF_Q|_DP16KD|\$DPRAM|_LUT4|\$CCU2).*$", "", cell)
    return re.sub(r"(\.\d+)+$", "", cell)


def critical(report):
    paths = report.get("critical_paths", [])
    if not paths:
        sys.exit("ci/pnr_report.py: the report has no critical path")
    path = paths[0]["path"]
    start = next(step for step in path if step["type"] == "clk-to-q")
    end = path[-1]
    print(f"path_from={register_of(start['from']['cell'])}")
    print(f"path_to={register_of(end['to']['cell'])}")
    print(f"path_ns={sum(step['delay'] for step in path):.2f}")
    print(f"path_levels={sum(step['type'] == 'logic' for step in path)}")


def failing(report, period, shown):
    groups = collections.defaultdict(lambda: [0.0, 0])
    count = 0
    for net in report.get("detailed_net_timings", []):
        for end in net.get("endpoints", []):
            arrival = end["delay"][1]
            if arrival <= period:
                continue
            count += 1
            group = groups[(register_of(end["cell"]), end["port"])]
            group[0] = max(group[0], arrival)
            group[1] += 1
    print(count)
    worst = sorted(groups.items(), key=lambda kv: -kv[1][0])[:shown]
    for (cell, port), (arrival, n) in worst:
        print(f"{arrival:.2f} ns  {n:4d}  {cell}.{port}")


def main():
    args = sys.argv[1:]
    if not (args[:1] == ["critical"] and len(args) == 2 or args[:1] == ["failing"] and len(args) in (3, 4)):
        sys.exit(__doc__)
    try:
        with open(args[1]) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"ci/pnr_report.py: {args[1]}: {e}")
    if args[0] == "critical":
        critical(report)
    else:
        failing(report, float(args[2]), int(args[3]) if len(args) == 4 else 20)


main()
