#!/usr/bin/env python3
"""What alpha3 relies on in ArduCopter 4.7, checked on the wire with pymavlink. Run against the real
ArduCopter SITL (built from the ArduPilot SITL source bundle in the shared folder) and against
`alpha3 sim-vehicle --autopilot ardupilot`: both must pass the same checks. Start it right after the
vehicle was started: it checks the slow boot too.

Checks, in order (each one a key of "checks" in the JSON summary on stdout):
  boot           HEARTBEAT autopilot 3 (ARDUPILOTMEGA), type 2, system 1, component 1,
                 STABILIZE (0), disarmed
  quiet          nothing but HEARTBEAT/STATUSTEXT/PARAM_VALUE/TIMESYNC before anything is asked
  params         4.7 names: MAV_SYSID 1, RTL_ALT 1500 (cm), FS_GCS_ENABLE 0, FENCE_ENABLE 0,
                 as numbers (C cast); the pre-4.7 name SYSID_THISMAV does not answer
  streams        SET_MESSAGE_INTERVAL ACCEPTED and the messages arrive (SYS_STATUS,
                 GLOBAL_POSITION_INT, EXTENDED_SYS_STATE, GPS_RAW_INT, BATTERY_STATUS,
                 EKF_STATUS_REPORT); REQUEST_DATA_STREAM EXTRA1 brings ATTITUDE
  reposition_long  DO_REPOSITION as COMMAND_LONG is UNSUPPORTED (3)
  guided_early   GUIDED (4) accepted while disarmed, before a position estimate
  arm_early      ARM before the autopilot is ready: FAILED (4), with an "Arm:"/"PreArm:" text
  takeoff_disarmed  NAV_TAKEOFF while disarmed: FAILED (4)
  ready          the pre-arm bit of SYS_STATUS turns healthy and EKF_STATUS_REPORT shows an
                 absolute horizontal position (seconds after start reported)
  arm            ARM ACCEPTED (0), armed in the heartbeat
  takeoff_frame  NAV_TAKEOFF as COMMAND_INT in frame GLOBAL (0): DENIED (2)
  takeoff        NAV_TAKEOFF (COMMAND_LONG) param7 = metres above home: ACCEPTED, climbs to it
                 (relative altitude, not AMSL)
  reposition     DO_REPOSITION COMMAND_INT frame GLOBAL_RELATIVE_ALT (3): ACCEPTED, flies there
  brake          DO_SET_MODE BRAKE (17): ACCEPTED, heartbeat shows 17
  speed_outside_guided  DO_CHANGE_SPEED in BRAKE: FAILED (4)
  reposition_no_flag    DO_REPOSITION outside GUIDED without the change-mode flag: DENIED (2)
  reposition_flag       ... with it: ACCEPTED, mode GUIDED (4)
  speed_guided   DO_CHANGE_SPEED in GUIDED: ACCEPTED
  position_target  SET_POSITION_TARGET_GLOBAL_INT (position only, relative alt) in GUIDED is
                 flown to
  land           DO_SET_MODE LAND (9): ACCEPTED, lands, disarms by itself
  prearm_probe   RUN_PREARM_CHECKS while disarmed: ACCEPTED

Usage: ardupilot_conformance.py --port PORT [--timeout S] [--height M]
Exit 0 when every check passed; the summary says which failed and why.
"""
import argparse
import json
import math
import os
import sys
import time

os.environ.setdefault("MAVLINK20", "1")
from pymavlink import mavutil  # noqa: E402

m2 = mavutil.mavlink
ACCEPTED, DENIED, UNSUPPORTED, FAILED = 0, 2, 3, 4
GUIDED, LOITER, LAND, BRAKE = 4, 5, 9, 17
PREARM_BIT = 1 << 28
EKF_NEEDED = 1 | 2 | 16 | 32  # attitude, horizontal velocity, abs horizontal and vertical position
UNASKED = {"HEARTBEAT", "STATUSTEXT", "PARAM_VALUE", "TIMESYNC", "COMMAND_ACK",
           "GPS_GLOBAL_ORIGIN"}
STREAMS = {
    "SYS_STATUS": 1,
    "GPS_RAW_INT": 24,
    "GLOBAL_POSITION_INT": 33,
    "BATTERY_STATUS": 147,
    "EKF_STATUS_REPORT": 193,
    "HOME_POSITION": 242,
    "EXTENDED_SYS_STATE": 245,
}


class Vehicle:
    def __init__(self, port, deadline):
        self.m = mavutil.mavlink_connection(
            f"udpin:127.0.0.1:{port}", source_system=245, source_component=191,
            dialect="ardupilotmega")
        self.m.mav.robust_parsing = True
        self.deadline = deadline
        self.start = time.time()
        self.next_hb = 0.0
        self.heartbeat = None
        self.armed = False
        self.mode = None
        self.rel_alt = None
        self.pos = None  # (lat, lon) degrees
        self.home = None  # (lat, lon, alt m)
        self.sys_status = None
        self.ekf_flags = None
        self.landed_state = None
        self.counts = {}
        self.texts = []
        self.acks = []

    def elapsed(self):
        return round(time.time() - self.start, 1)

    def tick(self):
        if time.time() >= self.next_hb and self.heartbeat is not None:
            self.m.mav.heartbeat_send(m2.MAV_TYPE_ONBOARD_CONTROLLER, m2.MAV_AUTOPILOT_INVALID,
                                      0, 0, 0)
            self.next_hb = time.time() + 1.0

    def pump(self, seconds, until=None):
        """Reads for up to `seconds` (returns early once `until()` holds); True if it held."""
        end = time.time() + seconds
        while time.time() < end:
            if time.time() > self.deadline:
                raise TimeoutError("deadline passed")
            self.tick()
            if until is not None and until():
                return True
            msg = self.m.recv_match(blocking=True, timeout=0.05)
            if msg is None:
                continue
            self.fold(msg)
        return until is not None and until()

    def fold(self, msg):
        kind = msg.get_type()
        if kind == "BAD_DATA":
            return
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if kind == "HEARTBEAT" and msg.get_srcComponent() == 1 and msg.autopilot != 8:
            if self.heartbeat is None:
                self.heartbeat = {
                    "system": msg.get_srcSystem(),
                    "component": msg.get_srcComponent(),
                    "type": msg.type,
                    "autopilot": msg.autopilot,
                    "custom_mode": msg.custom_mode,
                    "armed": bool(msg.base_mode & 128),
                    "at_s": self.elapsed(),
                }
            self.armed = bool(msg.base_mode & 128)
            self.mode = msg.custom_mode
        elif kind == "GLOBAL_POSITION_INT":
            self.rel_alt = msg.relative_alt / 1000.0
            self.pos = (msg.lat / 1e7, msg.lon / 1e7)
        elif kind == "HOME_POSITION":
            self.home = (msg.latitude / 1e7, msg.longitude / 1e7, msg.altitude / 1000.0)
        elif kind == "SYS_STATUS":
            self.sys_status = msg
        elif kind == "EKF_STATUS_REPORT":
            self.ekf_flags = msg.flags
        elif kind == "EXTENDED_SYS_STATE":
            self.landed_state = msg.landed_state
        elif kind == "STATUSTEXT":
            self.texts.append({"at_s": self.elapsed(), "text": msg.text})
        elif kind == "COMMAND_ACK":
            self.acks.append((msg.command, msg.result))

    def command(self, cmd, *params, timeout=3.0):
        p = list(params) + [0.0] * (7 - len(params))
        self.acks.clear()
        self.m.mav.command_long_send(1, 1, cmd, 0, *p)
        return self.wait_ack(cmd, timeout)

    def command_int(self, cmd, frame, p1=0.0, p2=0.0, p3=0.0, p4=0.0, x=0, y=0, z=0.0,
                    timeout=3.0):
        self.acks.clear()
        self.m.mav.command_int_send(1, 1, frame, cmd, 0, 0, p1, p2, p3, p4, x, y, z)
        return self.wait_ack(cmd, timeout)

    def wait_ack(self, cmd, timeout):
        found = []

        def acked():
            found.extend(r for c, r in self.acks if c == cmd)
            self.acks.clear()
            return bool(found)

        self.pump(timeout, acked)
        return found[0] if found else None

    def param(self, name, timeout=1.5):
        for _ in range(2):
            self.m.mav.param_request_read_send(1, 1, name.encode(), -1)
            end = time.time() + timeout
            while time.time() < end:
                self.tick()
                msg = self.m.recv_match(blocking=True, timeout=0.05)
                if msg is None:
                    continue
                self.fold(msg)
                if msg.get_type() == "PARAM_VALUE" and msg.param_id == name:
                    return {"value": msg.param_value, "type": msg.param_type}
        return None

    def ready(self):
        s = self.sys_status
        prearm = s is not None and bool(s.onboard_control_sensors_health & PREARM_BIT)
        ekf = self.ekf_flags is not None and self.ekf_flags & EKF_NEEDED == EKF_NEEDED
        return prearm and ekf and self.home is not None

    def offset(self, north_m, east_m):
        lat, lon = self.pos
        dlat = north_m / 6371000.0
        dlon = east_m / (6371000.0 * math.cos(math.radians(lat)))
        return lat + math.degrees(dlat), lon + math.degrees(dlon)

    def distance_m(self, lat, lon):
        if self.pos is None:
            return float("inf")
        dn = math.radians(self.pos[0] - lat) * 6371000.0
        de = math.radians(self.pos[1] - lon) * 6371000.0 * math.cos(math.radians(lat))
        return math.hypot(dn, de)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--height", type=float, default=6.0)
    args = ap.parse_args()
    v = Vehicle(args.port, time.time() + args.timeout)
    checks = {}

    def check(name, ok, **detail):
        checks[name] = {"ok": bool(ok), **detail}

    summary = {"checks": checks}
    try:
        run(v, args, check)
    except Exception as e:  # noqa: BLE001 - the summary must say what broke
        summary["error"] = f"{type(e).__name__}: {e}"
    summary["heartbeat"] = v.heartbeat
    summary["counts"] = v.counts
    summary["statustext"] = v.texts[-40:]
    summary["elapsed_s"] = v.elapsed()
    summary["ok"] = "error" not in summary and all(c["ok"] for c in checks.values())
    print(json.dumps(summary, indent=1, sort_keys=True))
    sys.exit(0 if summary["ok"] else 1)


def run(v, args, check):
    if not v.pump(60, lambda: v.heartbeat is not None):
        raise TimeoutError("no heartbeat")
    hb = v.heartbeat
    check("boot", hb["autopilot"] == 3 and hb["type"] == 2 and hb["system"] == 1
          and hb["component"] == 1 and hb["custom_mode"] == 0 and not hb["armed"], **hb)

    # Listen only (our heartbeat goes out, nothing is asked).
    before = dict(v.counts)
    v.pump(3.0)
    unasked = {k: n - before.get(k, 0) for k, n in v.counts.items() if n > before.get(k, 0)}
    check("quiet", set(unasked) <= UNASKED, seen=unasked)

    params = {n: v.param(n) for n in ["MAV_SYSID", "RTL_ALT", "FS_GCS_ENABLE", "FENCE_ENABLE"]}
    old = v.param("SYSID_THISMAV", timeout=1.0)
    values = {n: (p or {}).get("value") for n, p in params.items()}
    check("params", values == {"MAV_SYSID": 1.0, "RTL_ALT": 1500.0, "FS_GCS_ENABLE": 0.0,
                               "FENCE_ENABLE": 0.0} and old is None,
          values=values, types={n: (p or {}).get("type") for n, p in params.items()},
          SYSID_THISMAV=old)

    results = {}
    for name, msg_id in STREAMS.items():
        interval = 500_000 if name != "HOME_POSITION" else 1_000_000
        results[name] = v.command(m2.MAV_CMD_SET_MESSAGE_INTERVAL, msg_id, interval)
    v.m.mav.request_data_stream_send(1, 1, m2.MAV_DATA_STREAM_EXTRA1, 4, 1)
    arrived = lambda: all(v.counts.get(n, 0) > 0 for n in STREAMS if n != "HOME_POSITION") \
        and v.counts.get("ATTITUDE", 0) > 0  # noqa: E731
    got = v.pump(10.0, arrived)
    check("streams", got and all(r == ACCEPTED for r in results.values()), acks=results,
          counts={n: v.counts.get(n, 0) for n in list(STREAMS) + ["ATTITUDE"]})

    here = v.pos or (0.0, 0.0)
    r = v.command(m2.MAV_CMD_DO_REPOSITION, -1, 1, 0, float("nan"), here[0], here[1], 10.0)
    check("reposition_long", r == UNSUPPORTED, result=r)

    r = v.command(m2.MAV_CMD_DO_SET_MODE, 1, GUIDED)
    v.pump(3.0, lambda: v.mode == GUIDED)
    check("guided_early", r == ACCEPTED and v.mode == GUIDED, result=r, mode=v.mode,
          at_s=v.elapsed())

    if v.ready():
        check("arm_early", False, why="ready before the first arming try", at_s=v.elapsed())
    else:
        n_texts = len(v.texts)
        r = v.command(m2.MAV_CMD_COMPONENT_ARM_DISARM, 1)
        v.pump(1.0)
        said = [t["text"] for t in v.texts[n_texts:]
                if t["text"].startswith(("Arm:", "PreArm:"))]
        check("arm_early", r == FAILED and not v.armed and said, result=r, texts=said,
              at_s=v.elapsed())

    r = v.command(m2.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 0, 0, 0, args.height)
    check("takeoff_disarmed", r == FAILED, result=r)

    got = v.pump(150.0, v.ready)
    s = v.sys_status
    check("ready", got, at_s=v.elapsed(), ekf_flags=v.ekf_flags,
          prearm_healthy=bool(s and s.onboard_control_sensors_health & PREARM_BIT),
          home=v.home)
    if not got:
        return
    v.m.mav.request_data_stream_send(1, 1, m2.MAV_DATA_STREAM_EXTRA1, 4, 1)

    r = None
    for _ in range(10):
        r = v.command(m2.MAV_CMD_COMPONENT_ARM_DISARM, 1)
        if r == ACCEPTED:
            break
        v.pump(1.0)
    v.pump(2.0, lambda: v.armed)
    check("arm", r == ACCEPTED and v.armed, result=r, at_s=v.elapsed())
    if not v.armed:
        return

    r = v.command_int(m2.MAV_CMD_NAV_TAKEOFF, m2.MAV_FRAME_GLOBAL, z=args.height)
    check("takeoff_frame", r == DENIED, result=r)

    r = v.command(m2.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 0, 0, 0, args.height)
    climbed = v.pump(40.0, lambda: v.rel_alt is not None and v.rel_alt > args.height - 0.7)
    v.pump(3.0)
    check("takeoff", r == ACCEPTED and climbed and abs(v.rel_alt - args.height) < 1.0,
          result=r, relative_alt_m=v.rel_alt, height_m=args.height)
    if not climbed:
        return

    lat, lon = v.offset(25.0, 0.0)
    r = v.command_int(m2.MAV_CMD_DO_REPOSITION, m2.MAV_FRAME_GLOBAL_RELATIVE_ALT, -1, 1, 0,
                      float("nan"), int(lat * 1e7), int(lon * 1e7), args.height)
    there = v.pump(40.0, lambda: v.distance_m(lat, lon) < 2.0)
    check("reposition", r == ACCEPTED and there and v.mode == GUIDED, result=r,
          off_m=round(v.distance_m(lat, lon), 1), relative_alt_m=v.rel_alt)

    r = v.command(m2.MAV_CMD_DO_SET_MODE, 1, BRAKE)
    v.pump(3.0, lambda: v.mode == BRAKE)
    check("brake", r == ACCEPTED and v.mode == BRAKE, result=r, mode=v.mode)

    r = v.command(m2.MAV_CMD_DO_CHANGE_SPEED, 1, 3.0, -1)
    check("speed_outside_guided", r == FAILED, result=r)

    lat2, lon2 = v.offset(0.0, 20.0)
    r = v.command_int(m2.MAV_CMD_DO_REPOSITION, m2.MAV_FRAME_GLOBAL_RELATIVE_ALT, -1, 0, 0,
                      float("nan"), int(lat2 * 1e7), int(lon2 * 1e7), args.height)
    check("reposition_no_flag", r == DENIED and v.mode == BRAKE, result=r, mode=v.mode)
    r = v.command_int(m2.MAV_CMD_DO_REPOSITION, m2.MAV_FRAME_GLOBAL_RELATIVE_ALT, -1, 1, 0,
                      float("nan"), int(lat2 * 1e7), int(lon2 * 1e7), args.height)
    v.pump(3.0, lambda: v.mode == GUIDED)
    check("reposition_flag", r == ACCEPTED and v.mode == GUIDED, result=r, mode=v.mode)

    r = v.command(m2.MAV_CMD_DO_CHANGE_SPEED, 1, 4.0, -1)
    check("speed_guided", r == ACCEPTED, result=r)
    there = v.pump(40.0, lambda: v.distance_m(lat2, lon2) < 2.0)

    lat3, lon3 = v.offset(-15.0, 0.0)
    mask = 0x0DF8  # position only
    end = time.time() + 40.0
    while time.time() < end and v.distance_m(lat3, lon3) >= 2.0:
        v.m.mav.set_position_target_global_int_send(
            0, 1, 1, m2.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, mask, int(lat3 * 1e7),
            int(lon3 * 1e7), args.height, 0, 0, 0, 0, 0, 0, 0, 0)
        v.pump(1.0, lambda: v.distance_m(lat3, lon3) < 2.0)
    check("position_target", there and v.distance_m(lat3, lon3) < 2.0,
          off_m=round(v.distance_m(lat3, lon3), 1))

    r = v.command(m2.MAV_CMD_DO_SET_MODE, 1, LAND)
    landed = v.pump(60.0, lambda: not v.armed)
    check("land", r == ACCEPTED and landed and v.mode == LAND, result=r, armed=v.armed,
          relative_alt_m=v.rel_alt, at_s=v.elapsed())

    r = v.command(m2.MAV_CMD_RUN_PREARM_CHECKS)
    check("prearm_probe", r == ACCEPTED, result=r)


if __name__ == "__main__":
    main()
