#!/usr/bin/env python3
"""A PX4-like MAVLink peer written with pymavlink: the outside view of alpha3-hil.

It plays system 1 component 1 (HEARTBEAT autopilot=12 PX4, type=2 quadrotor), sends home, a
position and a landed state so the companion can connect, ACKs every COMMAND_LONG, answers
TIMESYNC, and records what the companion sent. After --seconds it prints a JSON summary on
stdout. With --key (64 hex digits) it signs everything it sends and verifies what it gets;
frames that fail verification are counted, not decoded.

Usage: peer.py --port PORT [--seconds S] [--key HEX]
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("MAVLINK20", "1")
from pymavlink import mavutil  # noqa: E402

HOME = (473977420, 85455940, 488000)  # lat, lon ×1e7, alt mm AMSL


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True, help="the companion's udpin port")
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--key", default=None)
    args = ap.parse_args()

    m = mavutil.mavlink_connection(
        f"udpout:127.0.0.1:{args.port}", source_system=1, source_component=1, dialect="ardupilotmega"
    )
    m.mav.robust_parsing = True
    if args.key:
        m.setup_signing(bytes.fromhex(args.key), sign_outgoing=True, allow_unsigned_callback=None)
    mav = m.mav
    out = {"heartbeats": [], "commands": [], "timesync_requests": 0, "bad_data": 0}
    start = time.time()
    next_hb = next_pos = 0.0
    while time.time() - start < args.seconds:
        now = time.time()
        if now >= next_hb:
            mav.heartbeat_send(2, 12, 1, (4 << 16) | (3 << 24), 3)
            next_hb = now + 1.0
        if now >= next_pos:
            ms = int((now - start) * 1000)
            mav.home_position_send(HOME[0], HOME[1], HOME[2], 0, 0, 0, [1, 0, 0, 0], 0, 0, 0)
            mav.global_position_int_send(ms, HOME[0], HOME[1], HOME[2], 0, 0, 0, 0, 0)
            mav.extended_sys_state_send(0, 1)
            next_pos = now + 0.1
        msg = m.recv_match(blocking=True, timeout=0.02)
        if msg is None:
            continue
        kind = msg.get_type()
        if kind == "BAD_DATA":
            out["bad_data"] += 1
            continue
        src = {"system": msg.get_srcSystem(), "component": msg.get_srcComponent()}
        if kind == "HEARTBEAT":
            out["heartbeats"].append(
                dict(src, type=msg.type, autopilot=msg.autopilot, base_mode=msg.base_mode,
                     system_status=msg.system_status)
            )
        elif kind == "COMMAND_LONG":
            out["commands"].append(
                dict(src, command=msg.command, param1=msg.param1, param2=msg.param2,
                     target_system=msg.target_system, target_component=msg.target_component)
            )
            mav.command_ack_send(msg.command, 0, 0, 0, msg.get_srcSystem(), msg.get_srcComponent())
        elif kind == "TIMESYNC" and msg.tc1 == 0:
            out["timesync_requests"] += 1
            mav.timesync_send(int(time.time() * 1e9), msg.ts1)
    s = mav.signing
    out["signing"] = {"good": s.goodsig_count, "bad": s.badsig_count, "unsigned": s.unsigned_count}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
