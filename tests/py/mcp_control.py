"""Several MCP clients (the official Python SDK) sharing one `alpha3 mcp` over streamable HTTP.

Opens `--sessions` sessions at once, each introducing itself as `client-<i>` 1.0, then:

1. every session reads `alpha3://session` to learn its own session id;
2. session 0 takes off (it is the first to act, so it holds control);
3. every other session, concurrently, reads the telemetry, checks the geofence and asks for
   a speed (an acting call: it must be refused, naming session 0);
4. session 0 leaves; session 1 waits until `alpha3://session` says nobody holds control, asks
   for a speed (it now holds control), and session 2's speed is refused naming session 1;
5. session 1 lands at home; everyone leaves.

Prints a JSON summary on stdout.
"""

import argparse
import asyncio
import json

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation


def text_of(result):
    return [c.text for c in result.content if getattr(c, "type", "") == "text"]


async def call(session, name, args):
    r = await session.call_tool(name, args)
    return {"tool": name, "is_error": bool(r.is_error), "text": text_of(r)}


async def resource(session, uri):
    r = await session.read_resource(uri)
    return json.loads(r.contents[0].text)


class Member:
    """One session, open until told to leave."""

    def __init__(self, url, index):
        self.url = url
        self.name = f"client-{index}"
        self.session = None
        self.id = None
        self.ready = asyncio.Event()
        self.leave = asyncio.Event()

    async def run(self):
        async with streamable_http_client(self.url) as (read, write):
            info = Implementation(name=self.name, version="1.0")
            async with ClientSession(read, write, client_info=info) as s:
                await s.initialize()
                self.session = s
                self.id = (await resource(s, "alpha3://session"))["this_session"]
                self.ready.set()
                await self.leave.wait()


async def others_try(member):
    return {
        "name": member.name,
        "read_telemetry": await call(member.session, "read_telemetry", {}),
        "check_geofence": await call(
            member.session, "check_geofence", {"point": {"x": 150.0, "y": 100.0, "z": 30.0}}
        ),
        "set_speed": await call(member.session, "set_speed", {"speed_mps": 6.0}),
    }


async def run(url, n):
    members = [Member(url, i) for i in range(n)]
    tasks = [asyncio.ensure_future(m.run()) for m in members]
    await asyncio.wait_for(asyncio.gather(*(m.ready.wait() for m in members)), 60)
    out = {"members": [{"name": m.name, "session": m.id} for m in members]}
    pilot, second, third = members[0], members[1], members[2]
    mission = await resource(pilot.session, "alpha3://mission")
    out["pilot_takeoff"] = await call(pilot.session, "takeoff", {"altitude_m": 30.0})
    out["others"] = await asyncio.gather(*(others_try(m) for m in members[1:]))
    out["control_while_pilot"] = (await resource(second.session, "alpha3://session"))["control"]

    pilot.leave.set()
    await tasks[0]
    control = "?"
    for _ in range(100):
        control = (await resource(second.session, "alpha3://session"))["control"]
        if control is None:
            break
        await asyncio.sleep(0.1)
    out["control_after_pilot_left"] = control
    out["second_set_speed"] = await call(second.session, "set_speed", {"speed_mps": 7.0})
    out["third_set_speed"] = await call(third.session, "set_speed", {"speed_mps": 8.0})
    home = mission["scenario"]["spawn"]["xyz"]
    out["second_land"] = await call(second.session, "land", {"site": {"x": home[0], "y": home[1]}})

    for m in members[1:]:
        m.leave.set()
    await asyncio.gather(*tasks)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--sessions", type=int, default=5)
    args = p.parse_args()
    print(json.dumps(asyncio.run(run(args.url, args.sessions))))


if __name__ == "__main__":
    main()
