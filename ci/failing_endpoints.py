#!/usr/bin/env python3
"""Endpoints that miss the clock in a nextpnr report (--report with
--detailed-timing-report), grouped by the register or RAM they end in.

    ci/failing_endpoints.py REPORT.json PERIOD_NS [GROUPS]

Prints the count of endpoints whose latest arrival exceeds PERIOD_NS (setup
time aside) on the first line, then the worst GROUPS groups (default 20),
one a line: latest arrival in ns, endpoints in the group, cell and port.
nextpnr names only the worst path; this shows how many others need work."""
import collections
import json
import re
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    path, period = sys.argv[1], float(sys.argv[2])
    shown = int(sys.argv[3]) if len(sys.argv) == 4 else 20
    try:
        with open(path) as f:
            nets = json.load(f).get("detailed_net_timings", [])
    except (OSError, ValueError) as e:
        sys.exit(f"ci/failing_endpoints.py: {path}: {e}")
    groups = collections.defaultdict(lambda: [0.0, 0])
    failing = 0
    for net in nets:
        for end in net.get("endpoints", []):
            arrival = end["delay"][1]
            if arrival <= period:
                continue
            failing += 1
            # A FF or RAM cell's name without the mapper's suffix: the register
            # it holds (a distributed RAM's numbered slices as one).
            cell = re.sub(r"(_TRELLIS_FF_Q|_DP16KD|\$DPRAM|_LUT4|\$CCU2).*$", "", end["cell"])
            cell = re.sub(r"(\.\d+)+$", "", cell)
            group = groups[(cell, end["port"])]
            group[0] = max(group[0], arrival)
            group[1] += 1
    print(failing)
    worst = sorted(groups.items(), key=lambda kv: -kv[1][0])[:shown]
    for (cell, port), (arrival, count) in worst:
        print(f"{arrival:.2f} ns  {count:4d}  {cell}.{port}")


main()
