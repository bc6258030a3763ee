"""Round-trip latency of a gated `tools/call` through `alpha3 mcp`, over stdio and streamable
HTTP, measured at the client (the official Python MCP SDK, tests/py/mcp_client.py).

Each timed call is `set_speed` in the air: schema check, slice policy, gate, the vehicle, and
the turn's play-out in the built-in world (world time is simulated, so the figure is the
server's and the SDK's own cost). Each turn is a decision period (5 s) of world time, so a
session hovers ~12 minutes in 150 calls, within the battery; the samples of `--sessions`
sessions are pooled. Prints one JSON line per transport and exits non-zero on any error.

    .venv/bin/python scripts/mcp_latency.py [--sessions 4] [--calls 150] [--bin target/release/alpha3]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIENT = os.path.join(ROOT, "tests", "py", "mcp_client.py")


def server_args(out_dir, calls):
    return [
        "mcp",
        "--config", os.path.join(ROOT, "configs", "alpha3.toml"),
        "--scenario", os.path.join(out_dir, "ground.json"),
        "--out", out_dir,
        "--episode-id", "latency",
        "--deadline-ms", "20000",
        "--max-turns", str(2 * calls + 20),
        "--max-tool-actions", str(calls + 10),
    ]


def ground_scenario(out_dir):
    with open(os.path.join(ROOT, "configs", "scenarios", "sc-0001.json")) as f:
        s = json.load(f)
    s["spawn"]["xyz"][2] = 0.0
    s["faults"] = []
    s["traffic"] = []
    with open(os.path.join(out_dir, "ground.json"), "w") as f:
        json.dump(s, f)


def run_client(args):
    out = subprocess.run(args, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"client failed:\n{out.stdout}\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def stdio(binary, calls):
    with tempfile.TemporaryDirectory() as d:
        ground_scenario(d)
        return run_client(
            [sys.executable, CLIENT, "latency", "--calls", str(calls), "--", binary]
            + server_args(d, calls)
        )


def http(binary, calls):
    with tempfile.TemporaryDirectory() as d:
        ground_scenario(d)
        server = subprocess.Popen(
            [binary] + server_args(d, calls) + ["--transport", "http", "--listen", "127.0.0.1:0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        url = None
        for line in server.stderr:
            m = re.match(r"alpha3 mcp: listening on (\S+)", line)
            if m:
                url = m.group(1)
                break
        if url is None:
            server.kill()
            sys.exit("alpha3 mcp printed no address")
        try:
            return run_client([sys.executable, CLIENT, "latency", "--calls", str(calls), "--url", url])
        finally:
            server.wait(timeout=60)


def percentile(sorted_samples, p):
    i = int(round(p / 100.0 * (len(sorted_samples) - 1)))
    return sorted_samples[min(len(sorted_samples) - 1, i)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sessions", type=int, default=4)
    p.add_argument("--calls", type=int, default=150, help="timed calls per session")
    p.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "alpha3"))
    a = p.parse_args()
    for name, fn in (("stdio", stdio), ("http", http)):
        samples = []
        for _ in range(a.sessions):
            r = fn(a.bin, a.calls)
            if r.get("errors"):
                sys.exit(f"{name}: {r['errors']} calls came back as errors: {r.get('first_error')}")
            samples.extend(r["samples_ms"])
        samples.sort()
        print(json.dumps({
            "transport": name,
            "n": len(samples),
            "p50_ms": round(percentile(samples, 50), 2),
            "p99_ms": round(percentile(samples, 99), 2),
            "max_ms": round(samples[-1], 2),
        }))


if __name__ == "__main__":
    main()
