#!/usr/bin/env python3
"""Decodes a raw MAVLink byte stream with pymavlink and prints {message name: count} as JSON,
for parity with alpha3-hil's decoder. Usage: count_frames.py FILE"""
import json
import os
import sys
from collections import Counter

os.environ.setdefault("MAVLINK20", "1")
from pymavlink.dialects.v20 import ardupilotmega as mavlink  # noqa: E402


def main():
    data = open(sys.argv[1], "rb").read()
    mav = mavlink.MAVLink(None)
    mav.robust_parsing = True
    counts = Counter()
    for msg in mav.parse_buffer(data) or []:
        counts[msg.get_type()] += 1
    json.dump(dict(sorted(counts.items())), sys.stdout)


if __name__ == "__main__":
    main()
