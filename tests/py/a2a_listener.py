"""A fourth party on the swarm network (issue 33): pymavlink joins `alpha3 swarm`'s hub as a
listener, with MAVLink 2 signing set up with the swarm's key, and reads for a while.

It counts what pymavlink itself verified: TUNNEL frames of alpha3's A2A payload type (0xA2A3)
that arrived signed and passed pymavlink's signature check (a frame signed with another key is
dropped by pymavlink before it is returned), joins their chunks (format, message id, index,
count, data) and decodes the intents; it also counts autopilot positions by system id.

usage: a2a_listener.py HUB_PORT KEY_HEX SECONDS OUT.json [STOP_FILE]
(it stops at SECONDS or as soon as STOP_FILE exists)
"""
import json
import os
import sys
import time

# MAVLink 2 (TUNNEL is id 385, signing is MAVLink 2 only): set before pymavlink is imported.
os.environ["MAVLINK20"] = "1"
from pymavlink import mavutil  # noqa: E402

A2A = 0xA2A3


def main():
    port, key_hex, seconds, out = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4]
    stop = sys.argv[5] if len(sys.argv) > 5 else None
    conn = mavutil.mavlink_connection(f"udpout:127.0.0.1:{port}", source_system=254,
                                      source_component=190, dialect="ardupilotmega")
    # Verify incoming signatures with the swarm's key; accept unsigned frames (autopilot
    # positions) so they can be counted, and tell them apart by `_signed`.
    conn.setup_signing(bytes.fromhex(key_hex), sign_outgoing=False,
                       allow_unsigned_callback=lambda mav, msgid: True)
    summary = {"tunnel_signed": 0, "tunnel_unsigned": 0, "chunks": 0, "intents": {},
               "intent_examples": [], "positions": {}, "bad_chunks": 0}
    partial = {}
    end = time.time() + seconds
    next_beat = 0.0
    while time.time() < end and not (stop and os.path.exists(stop)):
        if time.time() >= next_beat:
            conn.mav.heartbeat_send(mavutil.mavlink.MAV_TYPE_GCS,
                                    mavutil.mavlink.MAV_AUTOPILOT_INVALID, 0, 0, 0)
            next_beat = time.time() + 1.0
        msg = conn.recv_match(blocking=True, timeout=0.5)
        if msg is None:
            continue
        kind = msg.get_type()
        if kind == "GLOBAL_POSITION_INT":
            key = str(msg.get_srcSystem())
            summary["positions"][key] = summary["positions"].get(key, 0) + 1
            continue
        if kind != "TUNNEL" or msg.payload_type != A2A:
            continue
        if not getattr(msg, "_signed", False):
            summary["tunnel_unsigned"] += 1
            continue
        summary["tunnel_signed"] += 1
        data = bytes(msg.payload[: msg.payload_length])
        if len(data) < 6 or data[0] != 1 or data[4] == 0 or data[3] >= data[4]:
            summary["bad_chunks"] += 1
            continue
        summary["chunks"] += 1
        sender = msg.get_srcSystem()
        mid = data[1] | (data[2] << 8)
        parts = partial.setdefault((sender, mid), {})
        parts[data[3]] = data[5:]
        if len(parts) == data[4]:
            body = b"".join(parts[i] for i in range(data[4]))
            del partial[(sender, mid)]
            intent = json.loads(body)
            name = intent["from"]
            summary["intents"][name] = summary["intents"].get(name, 0) + 1
            if len(summary["intent_examples"]) < 3:
                summary["intent_examples"].append(intent)
    with open(out, "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
