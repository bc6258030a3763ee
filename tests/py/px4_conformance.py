#!/usr/bin/env python3
"""PX4 conformance: flies a PX4-like vehicle through what a companion computer does with it and
prints a JSON transcript of what the vehicle answered, so that a real PX4 SITL and
`alpha3 sim-vehicle` can be compared (runtime/tests/px4_conformance.rs, docs/PX4-CONFORMANCE.md).

Four flights from one boot, every wait on the vehicle's own clock (time_boot_ms), so the
transcript does not depend on PX4_SIM_SPEED_FACTOR:
  1. arm (retried while refused at boot), take-off (NAV_TAKEOFF, param7 AMSL), reposition
     (DO_REPOSITION as COMMAND_INT, frame GLOBAL, param2 = 1), hold (DO_SET_MODE Hold), a mode
     it cannot enter (DO_SET_MODE Offboard without setpoints), return (NAV_RETURN_TO_LAUNCH)
     until landed and disarmed;
  2. arm, take-off, land (NAV_LAND) until disarmed;
  3. geofence: GF_MAX_HOR_DIST and GF_ACTION (INT32, bit-packed in the float) set by
     PARAM_SET; arm, take-off, a reposition outside the fence, one inside it, then the fence
     shrunk under the vehicle (it is now outside: a breach) until it has landed and disarmed;
  4. battery: arm, take-off, MAV_CMD_INJECT_FAILURE (battery, off) until landed and disarmed.

Per step: the COMMAND_ACK results, the flight modes (HEARTBEAT custom_mode, main.sub), the armed
and landed states seen, the STATUSTEXTs with their severities (a GCS-type HEARTBEAT goes out
first: PX4 sends STATUSTEXT only to ground stations), and what the step measured (`*_m`: metres
the comparison checks; other keys are inputs or timings, for people).

The script starts listening before the vehicle exists and says so on stderr ("listening on
..."): start the vehicle after that line, or the refusals at boot are missed.

Usage: px4_conformance.py --port PORT [--timeout S] [--label NAME]
       (CONF_DEBUG=1 prints every STATUSTEXT on stderr as it comes)
"""
import argparse
import json
import math
import os
import struct
import sys
import time

os.environ.setdefault("MAVLINK20", "1")
from pymavlink import mavutil  # noqa: E402

MAV = mavutil.mavlink
PX4_MAIN = {
    1: "MANUAL", 2: "ALTCTL", 3: "POSCTL", 4: "AUTO", 5: "ACRO", 6: "OFFBOARD", 7: "STABILIZED",
}
PX4_AUTO_SUB = {1: "READY", 2: "TAKEOFF", 3: "LOITER", 4: "MISSION", 5: "RTL", 6: "LAND"}
LANDED = {0: "UNDEFINED", 1: "ON_GROUND", 2: "IN_AIR", 3: "TAKEOFF", 4: "LANDING"}
COMMANDS = {
    MAV.MAV_CMD_COMPONENT_ARM_DISARM: "ARM_DISARM",
    MAV.MAV_CMD_NAV_TAKEOFF: "NAV_TAKEOFF",
    MAV.MAV_CMD_DO_REPOSITION: "DO_REPOSITION",
    MAV.MAV_CMD_DO_SET_MODE: "DO_SET_MODE",
    MAV.MAV_CMD_NAV_RETURN_TO_LAUNCH: "NAV_RETURN_TO_LAUNCH",
    MAV.MAV_CMD_NAV_LAND: "NAV_LAND",
    MAV.MAV_CMD_INJECT_FAILURE: "INJECT_FAILURE",
    MAV.MAV_CMD_SET_MESSAGE_INTERVAL: "SET_MESSAGE_INTERVAL",
}
NAN = float("nan")
CUSTOM_MODE = MAV.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED
# Metres per degree of latitude on PX4's 6,371 km sphere.
M_PER_DEG = 6_371_000.0 * math.pi / 180.0
TAKEOFF_M = 10.0
RTL_RETURN_ALT_M = 15.0
FENCE_M = 50.0
SHRUNK_FENCE_M = 20.0
# (message id, interval µs; -1 stops it): ATTITUDE, HIGHRES_IMU, LOCAL_POSITION_NED, ODOMETRY
# off; GLOBAL_POSITION_INT at 10 Hz.
STREAMS = [(30, -1), (105, -1), (32, -1), (331, -1), (33, 100_000)]


def px4_mode(custom_mode):
    main = (custom_mode >> 16) & 0xFF
    sub = (custom_mode >> 24) & 0xFF
    name = PX4_MAIN.get(main, str(main))
    return f"{name}.{PX4_AUTO_SUB.get(sub, sub)}" if main == 4 else name


def int32_as_float(v):
    """PX4's INT32 parameters travel byte-wise: the integer's bits in the float field."""
    return struct.unpack("<f", struct.pack("<i", v))[0]


def float_as_int32(f):
    return struct.unpack("<i", struct.pack("<f", f))[0]


def append_new(seq, value):
    if not seq or seq[-1] != value:
        seq.append(value)


class Vehicle:
    def __init__(self, port, deadline):
        self.m = mavutil.mavlink_connection(
            f"udpin:127.0.0.1:{port}", source_system=255, source_component=190, dialect="common"
        )
        self.m.mav.robust_parsing = True
        self.deadline = deadline
        self.target = None
        self.next_gcs_hb = 0.0
        self.vt_ms = None  # the vehicle's clock (time_boot_ms)
        self.s = {"mode": None, "armed": None, "landed": None, "pos": None, "rel_alt": None,
                  "speed": None, "home": None, "battery_pct": None}
        self.steps = []
        self.step = None
        self.params = {}
        self.acks = []

    # --- reading ------------------------------------------------------------------------------
    def pump(self, wall_s):
        end = time.time() + wall_s
        while True:
            now = time.time()
            if now > self.deadline:
                raise TimeoutError("the script's wall-clock deadline passed")
            if self.target is not None and now >= self.next_gcs_hb:
                self.m.mav.heartbeat_send(MAV.MAV_TYPE_GCS, MAV.MAV_AUTOPILOT_INVALID, 0, 0, 4)
                self.next_gcs_hb = now + 0.2
            msg = self.m.recv_match(blocking=True, timeout=0.02)
            if msg is not None:
                self.take(msg)
            if time.time() >= end:
                return

    def take(self, msg):
        kind = msg.get_type()
        if kind == "BAD_DATA":
            return
        if self.target is not None and msg.get_srcSystem() != self.target:
            return
        t = getattr(msg, "time_boot_ms", None)
        if t is not None:
            self.vt_ms = max(self.vt_ms or 0, t)
        st = self.step
        autopilot = kind == "HEARTBEAT" and msg.autopilot != MAV.MAV_AUTOPILOT_INVALID
        if autopilot and msg.get_srcComponent() == 1:
            if self.target is None:
                self.target = msg.get_srcSystem()
            self.s["mode"] = px4_mode(msg.custom_mode)
            self.s["armed"] = bool(msg.base_mode & MAV.MAV_MODE_FLAG_SAFETY_ARMED)
            if st:
                if st["modes"][-1:] != [self.s["mode"]]:
                    st["modes"].append(self.s["mode"])
                    st["modes_t_s"].append(round(self.vt(), 1))
                append_new(st["armed"], self.s["armed"])
        elif kind == "EXTENDED_SYS_STATE":
            self.s["landed"] = LANDED.get(msg.landed_state, str(msg.landed_state))
            if st:
                append_new(st["landed"], self.s["landed"])
        elif kind == "GLOBAL_POSITION_INT":
            self.s["pos"] = (msg.lat * 1e-7, msg.lon * 1e-7, msg.alt / 1000.0)
            self.s["rel_alt"] = msg.relative_alt / 1000.0
            self.s["speed"] = math.hypot(msg.vx, msg.vy) / 100.0
        elif kind == "SYS_STATUS":
            self.s["battery_pct"] = msg.battery_remaining
        elif kind == "HOME_POSITION":
            self.s["home"] = (msg.latitude * 1e-7, msg.longitude * 1e-7, msg.altitude / 1000.0)
        elif kind == "STATUSTEXT":
            text_id, seq = getattr(msg, "id", 0), getattr(msg, "chunk_seq", 0)
            if os.environ.get("CONF_DEBUG"):
                print("TEXT", self.vt(), msg.severity, repr(msg.text), text_id, seq,
                      file=sys.stderr)
            if st is not None and msg.get_srcComponent() == 1:
                # Chunks of one long text (same id, chunk_seq > 0) are joined.
                texts = st["statustext"]
                if text_id and seq and texts and texts[-1].get("_id") == text_id:
                    texts[-1]["text"] += msg.text
                else:
                    entry = {"severity": msg.severity, "text": msg.text, "t_s": round(self.vt(), 1)}
                    if text_id:
                        entry["_id"] = text_id
                    texts.append(entry)
        elif kind == "COMMAND_ACK":
            self.acks.append(msg)
            if msg.command == MAV.MAV_CMD_SET_MESSAGE_INTERVAL and self.steps:
                # Late or not, the stream changes belong to the boot (a sped-up PX4 answers
                # them only after the burst of its default streams).
                st = self.steps[0]
            if st is not None:
                name = COMMANDS.get(msg.command, str(msg.command))
                st["acks"].append({"command": name, "result": msg.result})
        elif kind == "PARAM_VALUE":
            name = msg.param_id
            value = msg.param_value
            if msg.param_type == MAV.MAV_PARAM_TYPE_INT32:
                value = float_as_int32(value)
            self.params[name] = value

    def vt(self):
        return (self.vt_ms or 0) / 1000.0

    def wait(self, what, test, vehicle_s):
        """Waits until `test()` for at most `vehicle_s` seconds of the vehicle's time."""
        t0 = self.vt()
        while not test():
            if self.vt() - t0 > vehicle_s:
                raise TimeoutError(f"{what}: not within {vehicle_s} s of vehicle time; {self.s}")
            self.pump(0.02)

    def wait_wall(self, what, test, wall_s):
        """Waits until `test()` for at most `wall_s` seconds of wall time (before the vehicle
        has a clock)."""
        end = time.time() + wall_s
        while not test():
            if time.time() > end:
                raise TimeoutError(f"{what}: not within {wall_s} s")
            self.pump(0.02)

    def pass_time(self, vehicle_s):
        t0 = self.vt()
        while self.vt() - t0 < vehicle_s:
            self.pump(0.02)

    # --- steps --------------------------------------------------------------------------------
    def begin(self, name):
        self.end()
        t = round(self.vt(), 1)
        self.step = {"step": name, "acks": [], "modes": [], "modes_t_s": [], "armed": [],
                     "landed": [], "statustext": [], "measured": {}, "t_s": t}
        for key, field in (("mode", "modes"), ("armed", "armed"), ("landed", "landed")):
            if self.s[key] is not None:
                self.step[field].append(self.s[key])
        if self.step["modes"]:
            self.step["modes_t_s"].append(t)
        return self.step

    def end(self):
        if self.step is not None:
            for t in self.step["statustext"]:
                t.pop("_id", None)
            self.step["t_end_s"] = round(self.vt(), 1)
            self.steps.append(self.step)
        self.step = None

    # --- sending ------------------------------------------------------------------------------
    def ack_for(self, command, since, vehicle_s=3.0):
        t0 = self.vt()
        while self.vt() - t0 < vehicle_s:
            for a in self.acks[since:]:
                if a.command == command:
                    return a.result
            self.pump(0.02)
        return None

    def command_long(self, command, params):
        """COMMAND_LONG, sent again (confirmation + 1) while no ACK comes; the ACK's result."""
        for confirmation in range(3):
            since = len(self.acks)
            self.m.mav.command_long_send(self.target, 1, command, confirmation, *params)
            r = self.ack_for(command, since)
            if r is not None:
                return r
        return None

    def command_int(self, command, frame, params, x, y, z):
        for _ in range(3):
            since = len(self.acks)
            self.m.mav.command_int_send(self.target, 1, frame, command, 0, 0, *params, x, y, z)
            r = self.ack_for(command, since)
            if r is not None:
                return r
        return None

    def set_param(self, name, value, int32=False):
        """PARAM_SET, then the PARAM_VALUE PX4 echoes (the value as the vehicle stores it)."""
        wire = int32_as_float(value) if int32 else float(value)
        kind = MAV.MAV_PARAM_TYPE_INT32 if int32 else MAV.MAV_PARAM_TYPE_REAL32
        for _ in range(3):
            self.params.pop(name, None)
            self.m.mav.param_set_send(self.target, 1, name.encode(), wire, kind)
            try:
                self.wait(f"PARAM_VALUE {name}", lambda: name in self.params, 3.0)
                return self.params[name]
            except TimeoutError:
                pass
        return None

    def streams_acked(self):
        acked = [a for a in self.acks if a.command == MAV.MAV_CMD_SET_MESSAGE_INTERVAL]
        return len(acked) >= len(STREAMS)

    def slow_streams(self, wait_s):
        """SET_MESSAGE_INTERVAL for STREAMS, all at once; waits up to `wait_s` for the ACKs
        (their results go to the boot step whenever they come)."""
        for message_id, interval_us in STREAMS:
            self.m.mav.command_long_send(self.target, 1, MAV.MAV_CMD_SET_MESSAGE_INTERVAL, 0,
                                         message_id, interval_us, 0, 0, 0, 0, 0)
        try:
            self.wait("stream changes acknowledged", self.streams_acked, wait_s)
        except TimeoutError:
            pass

    # --- flight pieces ------------------------------------------------------------------------
    def home_amsl(self):
        return self.s["home"][2]

    def north_of_home(self, metres):
        lat, lon, _ = self.s["home"]
        return lat + metres / M_PER_DEG, lon

    def distance_from_home(self):
        lat, lon, _ = self.s["pos"]
        hlat, hlon, _ = self.s["home"]
        north = (lat - hlat) * M_PER_DEG
        east = (lon - hlon) * M_PER_DEG * math.cos(math.radians(hlat))
        return math.hypot(north, east)

    def arm(self, name, retry_for_s):
        st = self.begin(name)
        tries = 0
        t0 = self.vt()
        while True:
            tries += 1
            r = self.command_long(MAV.MAV_CMD_COMPONENT_ARM_DISARM, [1, 0, 0, 0, 0, 0, 0])
            if r == MAV.MAV_RESULT_ACCEPTED:
                break
            if self.vt() - t0 > retry_for_s:
                raise TimeoutError(f"{name}: arming still refused ({r}) after {retry_for_s} s")
            self.pass_time(1.0)
        self.wait("armed", lambda: self.s["armed"], 3.0)
        st["measured"]["tries"] = tries

    def take_off(self, name):
        st = self.begin(name)
        amsl = self.home_amsl() + TAKEOFF_M
        st["measured"]["param7_amsl"] = round(amsl, 1)
        self.command_long(MAV.MAV_CMD_NAV_TAKEOFF, [0, 0, 0, NAN, NAN, NAN, amsl])
        self.wait("take-off height", lambda: self.s["rel_alt"] > TAKEOFF_M - 0.7, 40.0)
        self.wait("hold after take-off", lambda: self.s["mode"] == "AUTO.LOITER", 10.0)
        self.pass_time(2.0)
        st["measured"]["height_m"] = round(self.s["rel_alt"])

    def reposition(self, name, north_m, expect_move):
        st = self.begin(name)
        lat, lon = self.north_of_home(north_m)
        st["measured"]["target_north"] = north_m
        self.command_int(
            MAV.MAV_CMD_DO_REPOSITION, MAV.MAV_FRAME_GLOBAL,
            [-1, MAV.MAV_DO_REPOSITION_FLAGS_CHANGE_MODE, 0, NAN],
            int(round(lat * 1e7)), int(round(lon * 1e7)), self.home_amsl() + TAKEOFF_M,
        )
        if expect_move:
            self.wait("arrival", lambda: abs(self.distance_from_home() - north_m) < 1.5
                      and self.s["speed"] < 0.3, 60.0)
            self.pass_time(1.0)
        else:
            self.pass_time(6.0)
        st["measured"]["from_home_m"] = round(self.distance_from_home())
        st["measured"]["height_m"] = round(self.s["rel_alt"])

    def until_disarmed(self, what, vehicle_s):
        self.wait(f"{what}: on the ground", lambda: self.s["landed"] == "ON_GROUND", vehicle_s)
        landed_at = self.distance_from_home()
        self.wait(f"{what}: disarmed", lambda: not self.s["armed"], 15.0)
        self.pass_time(1.0)
        return round(landed_at)


def fly(v):
    v.begin("boot")
    v.wait_wall("heartbeat", lambda: v.target is not None and v.vt_ms is not None, 60.0)
    # Fewer, slower streams: the script reads every message in Python, and a sped-up vehicle
    # sends them faster than real time. SET_MESSAGE_INTERVAL's ACKs are part of the transcript.
    # Sent together, not one after the other: arming must still be refused when it is tried.
    v.slow_streams(1.0)

    # Flight 1: arm (at once: refused while the vehicle gets ready), take-off, reposition,
    # hold, return.
    v.arm("arm", 30.0)
    st = v.begin("setup")
    v.wait("home", lambda: v.s["home"] is not None and v.s["pos"] is not None, 5.0)
    v.wait("landed state", lambda: v.s["landed"] is not None, 5.0)
    # Again if the ACKs were lost in the burst of a sped-up PX4's default streams.
    for _ in range(3):
        if v.streams_acked():
            break
        v.slow_streams(2.0)
    # A shorter return than PX4's 60 m default, the same on both vehicles.
    st["measured"]["RTL_RETURN_ALT"] = v.set_param("RTL_RETURN_ALT", RTL_RETURN_ALT_M)
    v.take_off("takeoff")
    v.reposition("reposition", 30.0, expect_move=True)
    st = v.begin("hold")
    v.command_long(MAV.MAV_CMD_DO_SET_MODE, [CUSTOM_MODE, 4, 3, 0, 0, 0, 0])  # AUTO.LOITER
    v.pass_time(3.0)
    st["measured"]["from_home_m"] = round(v.distance_from_home())
    # A mode the vehicle cannot enter: OFFBOARD without a setpoint stream.
    v.begin("offboard_refused")
    v.command_long(MAV.MAV_CMD_DO_SET_MODE, [CUSTOM_MODE, 6, 0, 0, 0, 0, 0])  # OFFBOARD
    v.pass_time(2.0)
    st = v.begin("rtl")
    v.command_long(MAV.MAV_CMD_NAV_RETURN_TO_LAUNCH, [0] * 7)
    v.wait("return climb", lambda: v.s["rel_alt"] > RTL_RETURN_ALT_M - 1.0, 30.0)
    st["measured"]["climbed_to_m"] = round(v.s["rel_alt"])
    st["measured"]["landed_from_home_m"] = v.until_disarmed("return", 120.0)

    # Flight 2: arm, take-off, land.
    v.arm("arm_2", 5.0)
    v.take_off("takeoff_2")
    st = v.begin("land")
    v.command_long(MAV.MAV_CMD_NAV_LAND, [0, 0, 0, NAN, NAN, NAN, NAN])
    st["measured"]["landed_from_home_m"] = v.until_disarmed("land", 60.0)

    # Flight 3: a geofence, a reposition outside it, a breach.
    st = v.begin("geofence_params")
    st["measured"]["GF_MAX_HOR_DIST"] = v.set_param("GF_MAX_HOR_DIST", FENCE_M)
    st["measured"]["GF_ACTION"] = v.set_param("GF_ACTION", 3, int32=True)  # 3: Return
    v.arm("arm_3", 5.0)
    v.take_off("takeoff_3")
    v.reposition("reposition_outside_fence", FENCE_M + 30.0, expect_move=False)
    v.reposition("reposition_inside_fence", FENCE_M - 10.0, expect_move=True)
    st = v.begin("geofence_breach")
    # The fence shrinks under the vehicle: it is outside now, as if it had flown out.
    st["measured"]["GF_MAX_HOR_DIST"] = v.set_param("GF_MAX_HOR_DIST", SHRUNK_FENCE_M)
    st["measured"]["from_home_m"] = round(v.distance_from_home())
    v.wait("the fence's action", lambda: v.s["mode"] != "AUTO.LOITER", 10.0)
    st["measured"]["landed_from_home_m"] = v.until_disarmed("geofence return", 120.0)
    st = v.begin("geofence_off")
    st["measured"]["GF_MAX_HOR_DIST"] = v.set_param("GF_MAX_HOR_DIST", 0.0)

    # Flight 4: the battery fails in the air.
    v.arm("arm_4", 5.0)
    v.take_off("takeoff_4")
    st = v.begin("battery_failsafe")
    st["measured"]["battery_pct_before"] = v.s["battery_pct"]
    v.command_long(MAV.MAV_CMD_INJECT_FAILURE, [100, 1, 0, 0, 0, 0, 0])  # battery, off
    t0 = v.vt()
    landing = lambda: v.s["mode"] == "AUTO.LAND" or v.s["landed"] == "ON_GROUND"  # noqa: E731
    v.wait("the failsafe's land", landing, 30.0)
    st["measured"]["land_after_s"] = round(v.vt() - t0)
    st["measured"]["landed_from_home_m"] = v.until_disarmed("battery failsafe", 60.0)
    st["measured"]["battery_pct_after"] = v.s["battery_pct"]
    v.end()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--timeout", type=float, default=600.0, help="wall-clock seconds in all")
    ap.add_argument("--label", default="vehicle")
    args = ap.parse_args()
    v = Vehicle(args.port, time.time() + args.timeout)
    # Whoever starts the vehicle waits for this line, so the refusals at boot are seen.
    print(f"listening on udpin:127.0.0.1:{args.port}", file=sys.stderr, flush=True)
    out = {"label": args.label, "ok": False}
    try:
        fly(v)
        out["ok"] = True
    except TimeoutError as e:
        v.end()
        out["error"] = str(e)
    out["system"] = v.target
    out["vehicle_s"] = round(v.vt(), 1)
    out["steps"] = v.steps
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
