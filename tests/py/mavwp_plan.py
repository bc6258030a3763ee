"""A ground station as ArduPilot users script one: pymavlink's mavwp loads `QGC WPL 110` files — a
mission (MAVWPLoader), a fence (MissionItemProtocol_Fence) and rally points
(MissionItemProtocol_Rally) — and uploads each to the autopilot over the mission protocol, as
MAVProxy's wp/fence/rally modules do.

Usage: mavwp_plan.py CONNECTION (KIND FILE)...   KIND: mission | fence | rally
Prints one JSON line: the items uploaded per kind.
"""

import json
import sys
import time

from pymavlink import mavutil, mavwp

LOADERS = {
    "mission": mavwp.MAVWPLoader,
    "fence": mavwp.MissionItemProtocol_Fence,
    "rally": mavwp.MissionItemProtocol_Rally,
}
TYPES = {"mission": 0, "fence": 1, "rally": 2}


class Refused(Exception):
    """The autopilot answered the upload with a MISSION_ACK other than ACCEPTED."""


def upload_with_retries(master, kind, path):
    """ArduCopter answers NO_SPACE (4) for a few seconds after boot, before its storage is up:
    try again then, as a person at a ground station would."""
    for _ in range(30):
        try:
            return upload(master, kind, path)
        except Refused as e:
            if e.args[0] != 4:
                raise SystemExit("%s upload refused: MISSION_ACK %d" % (kind, e.args[0]))
            time.sleep(1)
    raise SystemExit("%s upload refused: MISSION_ACK 4 (no space) for 30 s" % kind)


def upload(master, kind, path):
    loader = LOADERS[kind](master.target_system, master.target_component)
    loader.load(path)
    mission_type = TYPES[kind]
    count = loader.count()
    master.mav.mission_count_send(
        master.target_system, master.target_component, count, mission_type
    )
    deadline = time.time() + 30
    while time.time() < deadline:
        m = master.recv_match(
            type=["MISSION_REQUEST", "MISSION_REQUEST_INT", "MISSION_ACK"],
            blocking=True,
            timeout=2,
        )
        if m is None or getattr(m, "mission_type", 0) != mission_type:
            continue
        if m.get_type() == "MISSION_ACK":
            if m.type != 0:
                raise Refused(m.type)
            return count
        w = loader.wp(m.seq)
        master.mav.mission_item_int_send(
            master.target_system,
            master.target_component,
            m.seq,
            w.frame,
            w.command,
            1 if m.seq == 0 else 0,
            w.autocontinue,
            w.param1,
            w.param2,
            w.param3,
            w.param4,
            int(round(w.x * 1e7)) if w.frame != 2 else int(w.x),
            int(round(w.y * 1e7)) if w.frame != 2 else int(w.y),
            w.z,
            mission_type,
        )
    raise SystemExit("%s upload timed out" % kind)


def main():
    master = mavutil.mavlink_connection(sys.argv[1], source_system=250)
    if master.wait_heartbeat(timeout=60) is None:
        raise SystemExit("no heartbeat on " + sys.argv[1])
    out = {}
    args = sys.argv[2:]
    for kind, path in zip(args[0::2], args[1::2]):
        out[kind] = upload_with_retries(master, kind, path)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
