"""A ground station as a drone engineer's scripts are: MAVSDK-Python (MAVSDK itself inside the
wheel) imports a QGroundControl .plan with mission_raw.import_qgroundcontrol_mission and uploads
its mission, fence and rally points to the autopilot, then downloads them back.

Usage: mavsdk_plan.py CONNECTION_URL, then on stdin `upload PLAN [--fence-only]` lines.
Each upload prints one JSON line: each imported item (so a test can compare MAVSDK's reading of
the file with ours) and the counts read back from the autopilot.
"""

import asyncio
import json
import sys

from mavsdk.asyncio import Configuration, Mavsdk
from mavsdk.component_type import ComponentType
from mavsdk.asyncio.plugins.mission_raw import MissionRawAsync


def number(v):
    """JSON has no NaN: an unset parameter is null, as a .plan writes it."""
    return None if v != v else v


def item(i):
    return {
        "seq": i.seq,
        "frame": i.frame,
        "command": i.command,
        "current": i.current,
        "autocontinue": i.autocontinue,
        "param1": number(i.param1),
        "param2": number(i.param2),
        "param3": number(i.param3),
        "param4": number(i.param4),
        "x": i.x,
        "y": i.y,
        "z": number(i.z),
        "mission_type": i.mission_type,
    }


async def upload(raw, plan, fence_only):
    data = await raw.import_qgroundcontrol_mission(plan)
    out = {
        "plan": plan,
        "imported": {
            "mission": [item(i) for i in data.mission_items],
            "fence": [item(i) for i in data.geofence_items],
            "rally": [item(i) for i in data.rally_items],
        },
    }
    await raw.upload_geofence(data.geofence_items)
    if not fence_only:
        await raw.upload_rally_points(data.rally_items)
        await raw.upload_mission(data.mission_items)
    out["fence_on_autopilot"] = len(await raw.download_geofence())
    if not fence_only:
        out["mission_on_autopilot"] = len(await raw.download_mission())
    return out


async def main(url):
    """One ground-station session per autopilot start (PX4's GCS link keeps the first partner
    it hears): each stdin line `upload PLAN [--fence-only]` is answered with one JSON line; `quit` or the end of stdin ends it."""
    config = Configuration.create_with_component_type(ComponentType.GROUND_STATION)
    async with Mavsdk(config) as mavsdk:
        await mavsdk.add_any_connection(url)
        system = await mavsdk.first_autopilot(timeout_s=60.0)
        if system is None:
            raise SystemExit("no autopilot within 60 s on " + url)
        raw = MissionRawAsync(system)
        print(json.dumps({"connected": url}), flush=True)
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            words = line.split()
            if not words or words[0] == "quit":
                return
            if words[0] == "upload":
                out = await upload(raw, words[1], "--fence-only" in words[2:])
                print(json.dumps(out), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
