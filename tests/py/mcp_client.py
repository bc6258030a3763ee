"""An outside MCP client (the official Python SDK) flying `alpha3 mcp`.

Connects over stdio (spawning the server command given after `--`) or streamable HTTP
(`--url`), then runs one mode and prints a JSON summary on stdout:

- `fly`: list tools and resources, read the mission, take off, fly the first two mission
  waypoints, ask for a waypoint inside the first no-fly zone (the gate must deny it), land at
  home, read the session resource, leave.
- `disconnect`: take off, send a waypoint and exit the process at once without waiting for the
  answer: the server must be left to its watchdog.
- `silent`: take off, fly a waypoint, then make no call for `--silence-s` seconds (the
  watchdog must hold, then return and land the vehicle), read the telemetry and leave.
- `mission`: hand the plan over to the autopilot: upload the mission, start it (the call
  returns when it is done or the gate paused it), read its status, leave.
- `latency`: take off, then time `--calls` gated `set_speed` calls (round trip at the client).
"""

import argparse
import asyncio
import json
import os
import sys
import time

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def text_of(result):
    return [c.text for c in result.content if getattr(c, "type", "") == "text"]


def call_summary(name, args, result, seconds):
    return {
        "tool": name,
        "args": args,
        "is_error": bool(result.is_error),
        "structured": result.structured_content,
        "text": text_of(result),
        "latency_ms": seconds * 1000.0,
    }


async def call(session, name, args, log):
    t0 = time.perf_counter()
    result = await session.call_tool(name, args)
    summary = call_summary(name, args, result, time.perf_counter() - t0)
    log.append(summary)
    return summary


async def resource(session, uri):
    r = await session.read_resource(uri)
    return json.loads(r.contents[0].text)


def inside_first_zone(mission):
    zones = mission["scenario"]["airspace"]["no_fly_zones"]
    z = zones[0]
    if "center" in z:
        x, y = z["center"]
    else:
        pts = z["points"]
        x = sum(p[0] for p in pts) / len(pts)
        y = sum(p[1] for p in pts) / len(pts)
    return {"x": x, "y": y, "z": 40.0}


async def fly(session, out):
    tools = await session.list_tools()
    out["tools"] = [t.name for t in tools.tools]
    out["schemas"] = {t.name: t.input_schema for t in tools.tools}
    res = await session.list_resources()
    out["resources"] = [str(r.uri) for r in res.resources]
    mission = await resource(session, "alpha3://mission")
    out["briefing"] = mission["briefing"]
    log = out["calls"]
    await call(session, "read_telemetry", {}, log)
    await call(session, "takeoff", {"altitude_m": 30.0}, log)
    for w in mission["scenario"]["mission"]["waypoints"][:2]:
        z = min(max(w[2], 30.0), 60.0)
        await call(session, "set_waypoint", {"waypoint": {"x": w[0], "y": w[1], "z": z}}, log)
    # A schema failure is answered at once and not flown.
    await call(session, "set_waypoint", {"waypoint": {"x": "far"}}, log)
    await call(session, "set_waypoint", {"waypoint": inside_first_zone(mission)}, log)
    home = mission["scenario"]["spawn"]["xyz"]
    await call(session, "land", {"site": {"x": home[0], "y": home[1]}}, log)
    out["telemetry"] = await resource(session, "alpha3://telemetry")
    out["operator"] = await resource(session, "alpha3://operator")
    out["session"] = await resource(session, "alpha3://session")


async def mission(session, out, watch_s):
    tools = await session.list_tools()
    out["tools"] = [t.name for t in tools.tools]
    log = out["calls"]
    await call(session, "mission_status", {}, log)
    await call(session, "upload_mission", {}, log)
    await call(session, "start_mission", {}, log)
    # A long mission outlasts one call's turn: watch it until it is done, paused or over.
    until = asyncio.get_running_loop().time() + watch_s
    while asyncio.get_running_loop().time() < until:
        s = await call(session, "mission_status", {}, log)
        st = s["structured"] or {}
        if s["is_error"] or not st.get("flying") or st.get("paused_for"):
            break
        await asyncio.sleep(0.5)
    out["telemetry"] = await resource(session, "alpha3://telemetry")


async def disconnect(session, out):
    mission = await resource(session, "alpha3://mission")
    await call(session, "takeoff", {"altitude_m": 30.0}, out["calls"])
    w = mission["scenario"]["mission"]["waypoints"][0]
    # Send the move and leave while it is being flown.
    task = asyncio.ensure_future(
        session.call_tool("set_waypoint", {"waypoint": {"x": w[0], "y": w[1], "z": 40.0}})
    )
    await asyncio.sleep(0.3)
    print(json.dumps(out), flush=True)
    task.cancel()
    os._exit(0)


async def silent(session, out, seconds):
    mission = await resource(session, "alpha3://mission")
    await call(session, "takeoff", {"altitude_m": 30.0}, out["calls"])
    w = mission["scenario"]["mission"]["waypoints"][1]
    await call(session, "set_waypoint", {"waypoint": {"x": w[0], "y": w[1], "z": 35.0}}, out["calls"])
    await asyncio.sleep(seconds)
    out["telemetry_after"] = await resource(session, "alpha3://telemetry")
    out["session"] = await resource(session, "alpha3://session")


async def latency(session, out, calls):
    await call(session, "takeoff", {"altitude_m": 30.0}, out["calls"])
    samples = []
    for i in range(calls):
        s = await call(session, "set_speed", {"speed_mps": 6.0 + (i % 3)}, [])
        if s["is_error"]:
            out["errors"] = out.get("errors", 0) + 1
            out.setdefault("first_error", s["text"])
        samples.append(s["latency_ms"])
    out["samples_ms"] = list(samples)
    samples.sort()

    def pct(p):
        return samples[min(len(samples) - 1, int(round(p / 100.0 * (len(samples) - 1))))]

    out["latency_ms"] = {"n": len(samples), "p50": pct(50), "p99": pct(99), "max": samples[-1]}


async def run(args, server_cmd):
    out = {"calls": [], "operator_updates": 0}

    async def on_message(message):
        root = getattr(message, "root", message)
        if getattr(root, "method", "") == "notifications/resources/updated":
            out["operator_updates"] += 1

    async def body(read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            out["protocol"] = init.protocol_version
            out["server"] = init.server_info.name
            await session.subscribe_resource("alpha3://operator")
            if args.mode == "fly":
                await fly(session, out)
            elif args.mode == "mission":
                await mission(session, out, args.watch_s)
            elif args.mode == "disconnect":
                await disconnect(session, out)
            elif args.mode == "silent":
                await silent(session, out, args.silence_s)
            else:
                await latency(session, out, args.calls)

    if args.url:
        async with streamable_http_client(args.url) as streams:
            await body(streams[0], streams[1])
    else:
        params = StdioServerParameters(command=server_cmd[0], args=server_cmd[1:])
        async with stdio_client(params) as streams:
            await body(streams[0], streams[1])
    return out


def main():
    argv = sys.argv[1:]
    server_cmd = []
    if "--" in argv:
        i = argv.index("--")
        argv, server_cmd = argv[:i], argv[i + 1 :]
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["fly", "mission", "disconnect", "silent", "latency"])
    p.add_argument("--silence-s", type=float, default=8.0)
    p.add_argument("--watch-s", type=float, default=300.0)
    p.add_argument("--url")
    p.add_argument("--calls", type=int, default=200)
    args = p.parse_args(argv)
    if not args.url and not server_cmd:
        p.error("give --url or the server command after --")
    out = asyncio.run(run(args, server_cmd))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
