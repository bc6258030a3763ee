"""A ground station flies an uploaded mission on `alpha3 sim-vehicle`, as it would on a SITL.

Usage:
  mission_flight.py px4 URL        MAVSDK-Python: upload take-off, 2 waypoints, land; arm;
                                   start; pause on the way to the second waypoint; start again;
                                   wait for the landing and the disarm.
  mission_flight.py ardupilot URL  pymavlink: upload home + the same 4 items; arm in GUIDED;
                                   AUTO; MISSION_START; wait for the landing and the disarm.

Prints one JSON line: what the ground station saw (progress or items reached, texts, armed).
"""

import asyncio
import json
import math
import sys
import time

M_PER_DEG = 111_195.0


def offset(lat, lon, north_m, east_m):
    return (
        lat + north_m / M_PER_DEG,
        lon + east_m / (M_PER_DEG * math.cos(math.radians(lat))),
    )


def plan(lat, lon):
    """(command, north m, east m, m above home) of the 4 items."""
    return [
        (22, 0.0, 0.0, 10.0),
        (16, 30.0, 0.0, 10.0),
        (16, 30.0, 30.0, 12.0),
        (21, 30.0, 30.0, 0.0),
    ]


async def px4(url):
    from mavsdk.asyncio import Configuration, Mavsdk
    from mavsdk.component_type import ComponentType
    from mavsdk.asyncio.plugins.action import ActionAsync
    from mavsdk.asyncio.plugins.mission_raw import MissionRawAsync, MissionItem
    from mavsdk.asyncio.plugins.telemetry import TelemetryAsync

    out = {"progress": []}
    config = Configuration.create_with_component_type(ComponentType.GROUND_STATION)
    async with Mavsdk(config) as mavsdk:
        await mavsdk.add_any_connection(url)
        system = await mavsdk.first_autopilot(timeout_s=60.0)
        if system is None:
            raise SystemExit("no autopilot within 60 s on " + url)
        raw, action, telemetry = MissionRawAsync(system), ActionAsync(system), TelemetryAsync(system)
        async for health in telemetry.subscribe_health():
            if health.is_global_position_ok and health.is_home_position_ok:
                break
        home = await anext(telemetry.subscribe_home())
        items = []
        for seq, (cmd, n, e, alt) in enumerate(plan(home.latitude_deg, home.longitude_deg)):
            lat, lon = offset(home.latitude_deg, home.longitude_deg, n, e)
            items.append(
                MissionItem(seq, 3, cmd, 1 if seq == 0 else 0, 1, 0.0, 0.0, 0.0, float("nan"),
                            int(round(lat * 1e7)), int(round(lon * 1e7)), alt, 0)
            )
        await raw.upload_mission(items)
        deadline = time.monotonic() + 30
        while True:
            try:
                await action.arm()
                break
            except Exception as e:  # arming is refused until the autopilot is ready
                if time.monotonic() > deadline:
                    raise SystemExit(f"never armed: {e}")
                await asyncio.sleep(0.5)
        await raw.start_mission()
        paused = False
        deadline = time.monotonic() + 120
        async for p in raw.subscribe_mission_progress():
            out["progress"].append([p.current, p.total])
            if not paused and p.current == 2:
                await asyncio.sleep(1.0)
                await raw.pause_mission()
                out["paused_at"] = p.current
                await asyncio.sleep(2.0)
                out["paused_current"] = (await raw.mission_progress()).current
                await raw.start_mission()
                paused = True
            if p.total > 0 and p.current >= p.total:
                break
            if time.monotonic() > deadline:
                break
        out["finished"] = await raw.is_mission_finished()
        deadline = time.monotonic() + 60
        async for armed in telemetry.subscribe_armed():
            if not armed or time.monotonic() > deadline:
                out["armed_at_end"] = armed
                break
        out["in_air_at_end"] = await anext(telemetry.subscribe_in_air())
    print(json.dumps(out), flush=True)


def ardupilot(url):
    from pymavlink import mavutil

    m = mavutil.mavlink_connection(url, source_system=255, source_component=190)
    m.wait_heartbeat(timeout=60)
    mav = m.mav
    out = {"reached": [], "texts": [], "acks": {}}

    def command(cmd, *p):
        p = list(p) + [0.0] * (7 - len(p))
        mav.command_long_send(m.target_system, m.target_component, cmd, 0, *p)
        end = time.monotonic() + 5
        while time.monotonic() < end:
            msg = m.recv_match(type=["COMMAND_ACK", "STATUSTEXT", "MISSION_ITEM_REACHED"], blocking=True, timeout=1)
            if msg is None:
                continue
            note(msg)
            if msg.get_type() == "COMMAND_ACK" and msg.command == cmd:
                return msg.result
        return None

    def note(msg):
        if msg.get_type() == "STATUSTEXT":
            out["texts"].append(msg.text)
        elif msg.get_type() == "MISSION_ITEM_REACHED":
            if not out["reached"] or out["reached"][-1] != msg.seq:
                out["reached"].append(msg.seq)

    # Home, once the autopilot has one (ArduCopter streams nothing until asked).
    home = None
    end = time.monotonic() + 60
    while home is None and time.monotonic() < end:
        command(512, 242)  # REQUEST_MESSAGE HOME_POSITION
        home = m.recv_match(type="HOME_POSITION", blocking=True, timeout=1)
    if home is None:
        raise SystemExit("no home")
    lat0, lon0 = home.latitude * 1e-7, home.longitude * 1e-7
    items = [(16, 0.0, 0.0, 0.0)] + plan(lat0, lon0)  # seq 0: home, ignored
    mav.mission_count_send(m.target_system, m.target_component, len(items), 0)
    end = time.monotonic() + 30
    while time.monotonic() < end:
        msg = m.recv_match(type=["MISSION_REQUEST", "MISSION_REQUEST_INT", "MISSION_ACK"], blocking=True, timeout=1)
        if msg is None:
            continue
        if msg.get_type() == "MISSION_ACK":
            out["upload"] = msg.type
            break
        cmd, n, e, alt = items[msg.seq]
        lat, lon = offset(lat0, lon0, n, e)
        mav.mission_item_int_send(m.target_system, m.target_component, msg.seq, 3, cmd, 0, 1,
                                  0, 0, 0, 0, int(round(lat * 1e7)), int(round(lon * 1e7)), alt, 0)
    out["acks"]["guided"] = command(176, 1, 4)
    end = time.monotonic() + 60
    while (r := command(400, 1)) != 0 and time.monotonic() < end:
        time.sleep(0.5)
    out["acks"]["arm"] = r
    out["acks"]["auto"] = command(176, 1, 3)
    out["acks"]["mission_start"] = command(300, 0, 0)
    end = time.monotonic() + 120
    armed = True
    while time.monotonic() < end:
        msg = m.recv_match(blocking=True, timeout=1)
        if msg is None:
            continue
        note(msg)
        if msg.get_type() == "HEARTBEAT" and msg.get_srcComponent() == 1:
            armed = bool(msg.base_mode & mavutil.mavlink.MAV_MODE_FLAG_SAFETY_ARMED)
            out["custom_mode"] = msg.custom_mode
            if len(out["reached"]) >= 4 and not armed:
                break
    out["armed_at_end"] = armed
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "px4":
        asyncio.run(px4(sys.argv[2]))
    else:
        ardupilot(sys.argv[2])
