#!/usr/bin/env python3
"""Reads a .tlog with pymavlink's own log reader (mavutil.mavlink_connection) and prints JSON:
{"counts": {message name: count}, "first_us": ..., "last_us": ..., "monotonic": bool,
 "bad": number of BAD_DATA}. Usage: read_tlog.py FILE"""
import json
import os
import sys
from collections import Counter

os.environ.setdefault("MAVLINK20", "1")
os.environ.setdefault("MAVLINK_DIALECT", "ardupilotmega")
from pymavlink import mavutil  # noqa: E402


def main():
    log = mavutil.mavlink_connection(sys.argv[1], dialect="ardupilotmega")
    counts = Counter()
    bad = 0
    stamps = []
    while True:
        msg = log.recv_match(blocking=False)
        if msg is None:
            break
        kind = msg.get_type()
        if kind == "BAD_DATA":
            bad += 1
            continue
        counts[kind] += 1
        stamps.append(int(round(msg._timestamp * 1e6)))
    json.dump(
        {
            "counts": dict(sorted(counts.items())),
            "first_us": stamps[0] if stamps else None,
            "last_us": stamps[-1] if stamps else None,
            "monotonic": all(a <= b for a, b in zip(stamps, stamps[1:])),
            "bad": bad,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
