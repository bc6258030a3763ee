#!/usr/bin/env python3
"""Writes the small seed corpus of every fuzz target into fuzz/corpus/<target>/.

Seeds come from real inputs, cut down: the project's configs and a generated scenario, two
published α3-Bench episodes trimmed to their first turns, model answers in the shapes the
parser meets (clean, fenced, with prose, cut off, unknown tool), a flight record written by the
closed loop (trimmed), and frames of the recorded PX4 stream (hil/tests/fixtures). Run it
from anywhere; it rewrites the seeds (libFuzzer's own finds live in fuzz/work/, not here).
"""

import json
import os
import struct
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
DATA = os.environ.get("ALPHA3_DATA", os.path.join(ROOT, "..", "shared", "data"))


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(*parts):
    with open(os.path.join(ROOT, *parts), "rb") as f:
        return f.read()


def turn_parser():
    good = {"intent": "climb", "actions": [{"type": "mcp", "name": "set_altitude", "args": {"altitude_m": 60}}]}
    fly = {"intent": "survey", "actions": [
        {"type": "mcp", "name": "read_telemetry", "args": {}},
        {"type": "mcp", "name": "takeoff", "args": {"altitude_m": 30}},
        {"type": "mcp", "name": "set_waypoint", "args": {"waypoint": {"x": 150, "y": 100, "z": 30}}},
        {"type": "mcp", "name": "capture", "args": {"sensor": "rgb", "kind": "image"}},
        {"type": "mcp", "name": "switch_network_slice", "args": {"slice": "URLLC"}},
        {"type": "mcp", "name": "land", "args": {"site": {"x": 0, "y": 0}}}]}
    a2a = {"speaker": "agent", "intent": "handoff", "actions": [{"type": "a2a", "task": "status_update", "to": "uav-2", "payload": {"status": "holding", "pose": None}}]}
    put("turn_parser", "clean", json.dumps(good))
    put("turn_parser", "mission", json.dumps(fly))
    put("turn_parser", "a2a", json.dumps(a2a))
    put("turn_parser", "fenced", "Sure! Here is my answer:\n```json\n" + json.dumps(fly, indent=1) + "\n```\nDone.")
    put("turn_parser", "truncated", json.dumps(fly)[:90])
    put("turn_parser", "unknown_tool", json.dumps({"intent": "x", "actions": [{"type": "mcp", "name": "disable_geofence", "args": {}}]}))
    put("turn_parser", "wrong_args", json.dumps({"intent": "x", "actions": [{"type": "mcp", "name": "takeoff", "args": {"altitude_m": "high"}}]}))
    put("turn_parser", "empty", "")


def config():
    for rel in ["configs/alpha3.toml", "configs/policies/openai-remote.toml",
                "configs/policies/llama-local.toml", "configs/vehicles/quad-x500.toml",
                "configs/slices/6g-default.toml", "configs/bench/short.toml"]:
        put("config", os.path.basename(os.path.dirname(rel)) + "-" + os.path.basename(rel), read(rel))
    put("config", "nan_limit", "[limits]\nmax_altitude_m = nan\n")


def trimmed_episode(path, turns):
    with open(path) as f:
        e = json.load(f)
    e["dialogue"] = e["dialogue"][:turns]
    e.pop("final_state", None)
    return json.dumps(e, separators=(",", ":"))


def episodes():
    runs = os.path.join(DATA, "alphabench", "eval_runs")
    picks = [("openai/gpt-4.1-mini/uav/sc-0015-ep-00.json", 2),
             ("anthropic/claude-haiku-4.5/uav/sc-0000-ep-00.json", 3)]
    out = []
    for rel, turns in picks:
        p = os.path.join(runs, rel)
        if os.path.exists(p):
            out.append((rel.split("/")[1] + "-" + os.path.basename(rel), trimmed_episode(p, turns)))
    for name, text in out:
        put("episode", name, text)
        put("document", name, b"\x05" + text.encode())
    return out


def record():
    # A record written by the closed loop (runtime/tests/adversarial.rs keeps one when
    # ALPHA3_KEEP_RECORD names a path); without one, the record seeds already checked in stay.
    p = os.environ.get("ALPHA3_SEED_RECORD")
    if not p or not os.path.exists(p):
        return
    lines = open(p).read().splitlines()[:24]
    put("record", "closed_loop", "\n".join(lines) + "\n")
    put("record", "torn", "\n".join(lines[:6]) + "\n" + lines[6][:40])
    put("document", "record", b"\x02" + ("\n".join(lines[:10]) + "\n").encode())


def document():
    put("document", "config", b"\x01" + read("configs/alpha3.toml"))
    put("document", "scenario", b"\x00" + read("configs/scenarios/sc-0001.json"))
    put("document", "turn", b"\x00" + json.dumps({"intent": "hold", "actions": [{"type": "mcp", "name": "hold", "args": {}}]}).encode())
    put("document", "schema", b"\x03" + json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["v"], "properties": {"v": {"type": "integer", "minimum": 1}}}).encode())
    tools = json.loads(read("configs/schema/mcp-tools-list.json"))
    tools["tools"] = tools["tools"][:2]
    put("document", "tools_list", b"\x04" + json.dumps(tools).encode())


def frames(stream):
    """Splits a MAVLink stream into frames (v2: 0xFD, v1: 0xFE), without checking CRCs."""
    out, i = [], 0
    while i < len(stream):
        if stream[i] == 0xFD and i + 10 <= len(stream):
            n = 12 + stream[i + 1] + (13 if stream[i + 2] & 1 else 0)
        elif stream[i] == 0xFE and i + 6 <= len(stream):
            n = 8 + stream[i + 1]
        else:
            i += 1
            continue
        out.append(stream[i:i + n])
        i += n
    return out


def mavlink_session():
    stream = read("hil/tests/fixtures/px4_stream.bin")
    fr = frames(stream)
    for setup, name, count in [(0, "px4_auto", 60), (1, "px4", 120), (0x08, "px4_offboard", 60),
                               (0x30, "signing_required", 20)]:
        prog = bytearray([setup]) + struct.pack("<I", 0) + bytes([1])
        for k, f in enumerate(fr[:count]):
            prog += bytes([0, len(f)]) + f
            if k % 10 == 9:
                prog += bytes([4]) + struct.pack("<H", 100)
        # Arm, take off to 20 m, go to (30, 40, 20), land: each followed by a second of time.
        for cmd in [bytes([5, 0]), bytes([5, 2, 1]) + struct.pack("<h", 200),
                    bytes([5, 3, 1]) + struct.pack("<h", 300) + bytes([1]) + struct.pack("<h", 400)
                    + bytes([1]) + struct.pack("<h", 200) + bytes([0]), bytes([5, 9, 0])]:
            prog += cmd + bytes([4]) + struct.pack("<H", 1000)
        prog += bytes([6, 3, 4]) + struct.pack("<H", 2000) + bytes([7]) + struct.pack("<I", 5)
        put("mavlink_session", name, bytes(prog))
    # A framed heartbeat (message 0) from an ArduPilot quad, then telemetry with fuzzed payloads.
    hb = struct.pack("<IBBBBB", 0, 2, 3, 0x81, 4, 3)  # custom_mode, type, autopilot=3 (APM), base, status, version
    prog = bytearray([2]) + struct.pack("<I", 0) + bytes([1])
    prog += bytes([1, 0, len(hb)]) + hb
    prog += bytes([1, 4, 28]) + bytes(28) + bytes([1, 5, 28]) + bytes(28)
    prog += bytes([5, 0, 4]) + struct.pack("<H", 3000)
    put("mavlink_session", "ardupilot_framed", bytes(prog))


def translate():
    put("translate", "takeoff", bytes([2, 1]) + struct.pack("<h", 200) + bytes(40))
    put("translate", "goto", bytes([3, 1]) + struct.pack("<h", 1000) + bytes([1]) + struct.pack("<h", -500)
        + bytes([1]) + struct.pack("<h", 300) + bytes([1, 1]) + struct.pack("<h", 50) + bytes(60))
    put("translate", "land_site", bytes([9, 1, 1]) + struct.pack("<h", 100) + bytes([1]) + struct.pack("<h", 100) + bytes(40))
    put("translate", "nan", bytes([4, 0]) + struct.pack("<d", float("nan")) + bytes(40))


def operator_line():
    put("operator_line", "lines", b"\x3f" + b"hold at the next waypoint\r\n\n  land now  \nno newline")
    put("operator_line", "too_long", b"\x08" + b"short\n" + b"x" * 40 + b"\nafter\n")
    put("operator_line", "invalid_utf8", b"\x20" + b"caf\xc3\xa9 \xff\xfe ok\n\xc3\n")


def scenario_rules():
    put("scenario_rules", "text", b"\x00" + read("configs/scenarios/sc-0001.json"))
    # Edits: (op, pointer index u16, value bytes…) applied to sc-0001.
    put("scenario_rules", "absurd_numbers", b"\x01" + bytes([0, 3, 0, 1, 4, 1, 0, 9, 0, 1, 2]))
    put("scenario_rules", "empty_and_deleted", b"\x01" + bytes([4, 20, 0, 7, 5, 0, 5, 40, 0]))
    put("scenario_rules", "repeated_scaled", b"\x01" + bytes([8, 30, 0, 63, 9, 0, 0, 3]))


def main():
    operator_line()
    scenario_rules()
    turn_parser()
    config()
    episodes()
    record()
    document()
    mavlink_session()
    translate()
    for t in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, t))
        size = sum(os.path.getsize(os.path.join(CORPUS, t, f)) for f in files)
        print(f"{t}: {len(files)} seeds, {size} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
