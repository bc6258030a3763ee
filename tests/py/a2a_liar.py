"""A liar on the swarm network (issue 33): pymavlink joins `alpha3 swarm`'s hub with the swarm's
signing key — a member's companion computer gone wrong, or a stolen key — and, from a time on,
sends signed A2A intents in that member's name (its system id) that its autopilot's broadcast
positions contradict: "holding" at a fixed place far from where the vehicle flies. Its
sequence numbers run ahead of the real runtime's, so its claims are the newest the others hold.

The intent is alpha3's A2A format (`core/src/swarm/intent.rs`), in one TUNNEL frame of payload
type 0xA2A3 with the chunk header (format 1, message id, index, count): written here from the
documented format, not from alpha3's code.

usage: a2a_liar.py HUB_PORT KEY_HEX SYSTEM NAME LAT_E7 LON_E7 ALT_DM FROM_S OUT.json STOP_FILE
(it lies from FROM_S seconds after its start until STOP_FILE exists; OUT.json says how many
intents it sent)
"""
import json
import os
import sys
import time

# MAVLink 2 (TUNNEL is id 385, signing is MAVLink 2 only): set before pymavlink is imported.
os.environ["MAVLINK20"] = "1"
from pymavlink import mavutil  # noqa: E402

A2A = 0xA2A3
# A signing stream of its own (the real runtime signs on link 0 with its own timestamps).
LINK_ID = 9


def main():
    port, key_hex, system, name = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    lat_e7, lon_e7, alt_dm = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
    from_s, out, stop = float(sys.argv[8]), sys.argv[9], sys.argv[10]
    conn = mavutil.mavlink_connection(f"udpout:127.0.0.1:{port}", source_system=system,
                                      source_component=191, dialect="ardupilotmega")
    conn.setup_signing(bytes.fromhex(key_hex), sign_outgoing=True, link_id=LINK_ID)
    start = time.time()
    # Message ids of its own too: the receivers drop a message id they have just completed from
    # that sender as a duplicate, and the real runtime counts from 1.
    sent, seq, message_id, errors = 0, 1_000_000, 0x8000, 0
    while not os.path.exists(stop) and time.time() - start < 900:
        try:
            conn.mav.heartbeat_send(mavutil.mavlink.MAV_TYPE_ONBOARD_CONTROLLER,
                                    mavutil.mavlink.MAV_AUTOPILOT_INVALID, 0, 0, 0)
            if time.time() - start >= from_s:
                seq += 1
                message_id = (message_id + 1) & 0xFFFF
                body = json.dumps({"v": 1, "from": name, "seq": seq, "state": "holding",
                                   "path": [[0, lat_e7, lon_e7, alt_dm]]},
                                  separators=(",", ":")).encode()
                assert len(body) <= 123, len(body)
                chunk = bytes([1, message_id & 0xFF, message_id >> 8, 0, 1]) + body
                payload = list(chunk) + [0] * (128 - len(chunk))
                conn.mav.tunnel_send(0, 0, A2A, len(chunk), payload)
                sent += 1
        except OSError:
            # The hub not up yet: try again on the next beat.
            errors += 1
        time.sleep(0.5)
    with open(out, "w") as f:
        json.dump({"intents_sent": sent, "send_errors": errors}, f)


if __name__ == "__main__":
    main()
