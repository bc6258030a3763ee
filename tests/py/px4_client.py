#!/usr/bin/env python3
"""Flies a vehicle through arm, take-off and land with pymavlink, exactly as one would fly PX4
SITL from a companion: listen on udpin:0.0.0.0:14540+N, wait for the autopilot's heartbeat,
send a GCS heartbeat (PX4 only sends STATUSTEXT to ground stations), read home, retry arming
at 1 Hz until accepted, take off with an AMSL param7, wait for the height, land, wait for the
auto-disarm. Prints a JSON summary of what it decoded and what happened.

Usage: px4_client.py --port PORT [--height M] [--timeout S]
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("MAVLINK20", "1")
from pymavlink import mavutil  # noqa: E402

PX4_MAIN = {1: "MANUAL", 2: "ALTCTL", 3: "POSCTL", 4: "AUTO", 6: "OFFBOARD", 7: "STABILIZED"}
PX4_AUTO_SUB = {2: "TAKEOFF", 3: "LOITER", 4: "MISSION", 5: "RTL", 6: "LAND"}


def px4_mode(custom_mode):
    main = (custom_mode >> 16) & 0xFF
    sub = (custom_mode >> 24) & 0xFF
    name = PX4_MAIN.get(main, str(main))
    return f"{name}.{PX4_AUTO_SUB.get(sub, sub)}" if main == 4 else name


class Client:
    def __init__(self, port, deadline):
        self.m = mavutil.mavlink_connection(
            f"udpin:127.0.0.1:{port}", source_system=255, source_component=190, dialect="common"
        )
        self.m.mav.robust_parsing = True
        self.deadline = deadline
        self.out = {
            "heartbeat": None,
            "counts": {},
            "bad_data": 0,
            "statustext": [],
            "acks": [],
            "modes": [],
            "events": [],
            "first_message_s": None,
        }
        self.start = time.time()
        self.next_gcs_hb = 0.0
        self.state = {"armed": False, "relative_alt_m": None, "landed_state": None, "home_alt_m": None}

    def pump(self, seconds):
        """Reads messages for `seconds`, keeping the state and the counts."""
        end = time.time() + seconds
        while time.time() < end:
            if time.time() > self.deadline:
                raise TimeoutError("client deadline passed")
            if time.time() >= self.next_gcs_hb and self.out["heartbeat"] is not None:
                self.m.mav.heartbeat_send(6, 8, 0, 0, 4)  # MAV_TYPE_GCS, MAV_AUTOPILOT_INVALID
                self.next_gcs_hb = time.time() + 1.0
            msg = self.m.recv_match(blocking=True, timeout=0.05)
            if msg is None:
                continue
            kind = msg.get_type()
            if kind == "BAD_DATA":
                self.out["bad_data"] += 1
                continue
            if self.out["first_message_s"] is None:
                self.out["first_message_s"] = round(time.time() - self.start, 3)
            self.out["counts"][kind] = self.out["counts"].get(kind, 0) + 1
            if kind == "HEARTBEAT" and msg.get_srcComponent() == 1:
                armed = bool(msg.base_mode & 128)
                mode = px4_mode(msg.custom_mode)
                if self.out["heartbeat"] is None:
                    self.out["heartbeat"] = {
                        "system": msg.get_srcSystem(),
                        "component": msg.get_srcComponent(),
                        "type": msg.type,
                        "autopilot": msg.autopilot,
                        "custom_mode": msg.custom_mode,
                        "mavlink_version": msg.mavlink_version,
                    }
                if not self.out["modes"] or self.out["modes"][-1] != mode:
                    self.out["modes"].append(mode)
                self.state["armed"] = armed
            elif kind == "GLOBAL_POSITION_INT":
                self.state["relative_alt_m"] = msg.relative_alt / 1000.0
            elif kind == "HOME_POSITION":
                self.state["home_alt_m"] = msg.altitude / 1000.0
            elif kind == "EXTENDED_SYS_STATE":
                self.state["landed_state"] = msg.landed_state
            elif kind == "STATUSTEXT":
                self.out["statustext"].append(msg.text)
            elif kind == "COMMAND_ACK":
                self.out["acks"].append({"command": msg.command, "result": msg.result})

    def wait(self, what, test, timeout):
        end = time.time() + timeout
        while not test():
            if time.time() > end:
                raise TimeoutError(f"waiting for {what}: {self.state}")
            self.pump(0.1)
        self.out["events"].append({"what": what, "t_s": round(time.time() - self.start, 2)})

    def command(self, command, params):
        """COMMAND_LONG to system 1, component 1; the ACK result (or None after 1 s)."""
        self.m.mav.command_long_send(self.target, 1, command, 0, *params)
        end = time.time() + 1.0
        seen = len(self.out["acks"])
        while time.time() < end:
            self.pump(0.05)
            for a in self.out["acks"][seen:]:
                if a["command"] == command:
                    return a["result"]
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--height", type=float, default=5.0)
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()
    c = Client(args.port, time.time() + args.timeout)
    nan = float("nan")
    try:
        c.wait("heartbeat", lambda: c.out["heartbeat"] is not None, 15)
        c.target = c.out["heartbeat"]["system"]
        c.wait("home", lambda: c.state["home_alt_m"] is not None, 15)
        # Arming: denied while the autopilot gets ready; retry at 1 Hz.
        denied = 0
        while True:
            r = c.command(mavutil.mavlink.MAV_CMD_COMPONENT_ARM_DISARM, [1, 0, 0, 0, 0, 0, 0])
            if r == mavutil.mavlink.MAV_RESULT_ACCEPTED:
                break
            denied += 1
            c.pump(1.0)
        c.out["arm_denied"] = denied
        c.wait("armed", lambda: c.state["armed"], 5)
        amsl = c.state["home_alt_m"] + args.height
        r = c.command(mavutil.mavlink.MAV_CMD_NAV_TAKEOFF, [0, 0, 0, nan, nan, nan, amsl])
        c.out["takeoff_result"] = r
        c.wait(
            "height",
            lambda: c.state["relative_alt_m"] is not None
            and abs(c.state["relative_alt_m"] - args.height) < 0.5,
            30,
        )
        c.pump(1.5)
        c.out["hover_relative_alt_m"] = c.state["relative_alt_m"]
        r = c.command(mavutil.mavlink.MAV_CMD_NAV_LAND, [0, 0, 0, nan, nan, nan, nan])
        c.out["land_result"] = r
        c.wait("on ground", lambda: c.state["landed_state"] == 1, 40)
        c.wait("disarmed", lambda: not c.state["armed"], 10)
        c.out["ok"] = True
    except TimeoutError as e:
        c.out["ok"] = False
        c.out["error"] = str(e)
    c.out["seconds"] = round(time.time() - c.start, 2)
    json.dump(c.out, sys.stdout)


if __name__ == "__main__":
    main()
