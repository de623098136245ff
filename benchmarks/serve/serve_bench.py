"""Serving overhead and fault behaviour on this machine: the same model called in-process, then served
(KServe v2 over loopback HTTP, binary tensors) with 1 and 2 replicas under the same load, then a
replica killed under load. Not a test: figures depend on the machine and its load, which are printed
with them.

    python benchmarks/serve/serve_bench.py [--model build/models/mosaic_cnn.xml] [--device CPU]
        [--concurrency 8] [--requests 3000] [--duration 20] [--kill-duration 20] [--report out.json]

The in-process figure runs `concurrency` threads, each with its own infer request, as many requests
as the served runs; served/in-process is the overhead ratio. The kill run sends load for
--kill-duration seconds to 2 replicas and kills one (ray.kill: no clean-up, as a crash) a third of
the way through, once with no client retries and once with 3, and counts sent / answered /
failed-retryable (503) / lost.
"""
import argparse
import asyncio
import json
import os
import pathlib
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import ray
from ray import serve

import mosaic as ov
from mosaic.serve.app import build_app
from mosaic.serve.config import parse_config
from mosaic.serve.load import run_load

REPO = pathlib.Path(__file__).resolve().parents[2]
APP = "bench"
# One inference thread per replica and in-process: the figure is the serving path's cost, not
# oneDNN's thread pool fighting the replicas for 2 cores.
PROPERTIES = {"INFERENCE_NUM_THREADS": 1}


def cpu_name():
    out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("Model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def in_process(args):
    """`concurrency` threads calling the compiled model, each with its own request, for as many requests."""
    compiled = ov.Core().compile_model(args.model, args.device, PROPERTIES)
    x = np.random.default_rng(0).random(list(compiled.input(0).get_shape())).astype(np.float32)
    latencies, lock = [], threading.Lock()
    remaining = [args.requests]
    deadline = time.perf_counter() + args.duration

    def worker():
        request = compiled.create_infer_request()
        while time.perf_counter() < deadline:
            with lock:
                if remaining[0] == 0:
                    return
                remaining[0] -= 1
            start = time.perf_counter()
            request.infer({0: x})
            elapsed = time.perf_counter() - start
            with lock:
                latencies.append(elapsed)

    start = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(args.concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return {"answered": len(latencies), "wall_s": round(wall, 3), "throughput_per_s": round(len(latencies) / wall, 1),
            "p50_ms": round(float(np.percentile(latencies, 50)) * 1000, 3),
            "p90_ms": round(float(np.percentile(latencies, 90)) * 1000, 3),
            "p99_ms": round(float(np.percentile(latencies, 99)) * 1000, 3)}


def deploy(args, replicas):
    config = parse_config({"models": [{"name": "cnn", "path": str(args.model), "device": args.device,
                                       "properties": PROPERTIES, "num_replicas": replicas,
                                       "ray_actor_options": {"num_cpus": 0.5}}]})
    serve.run(build_app(config), name=APP, route_prefix="/")
    wait_for_replicas(replicas, timeout_s=120)


def replica_names():
    return sorted(a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
                  if a["namespace"] == "serve" and f"{APP}#model-cnn#" in a["name"])


def wait_for_replicas(n, timeout_s):
    """Seconds until `n` replicas of the model are running (serve.status), or raises."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout_s:
        status = serve.status().applications[APP].deployments["model-cnn"]
        if status.status == "HEALTHY" and status.replica_states.get("RUNNING", 0) == n:
            return time.perf_counter() - start
        time.sleep(0.2)
    raise RuntimeError(f"the model did not get back to {n} running replicas in {timeout_s} s")


def served_load(args, url):
    return asyncio.run(run_load(url, "cnn", args.concurrency, args.requests, args.duration, timeout_s=60)).summary()


def kill_run(args, url, retries):
    """Load on 2 replicas, one killed a third of the way through; counts, and how long until a new
    replica runs in its place."""
    result = {}
    runner = threading.Thread(target=lambda: result.update(load=asyncio.run(run_load(
        url, "cnn", args.concurrency, 10**9, args.kill_duration, retries=retries, timeout_s=60)).summary()))
    runner.start()
    time.sleep(args.kill_duration / 3)
    victim = replica_names()[0]
    ray.kill(ray.get_actor(victim, namespace="serve"), no_restart=True)
    killed_at = time.perf_counter()
    # The killed replica's name goes at once; serve.status may still count it as running until the
    # controller notices, so wait for two names other than the victim's, then for both to run.
    deadline = killed_at + 120
    while time.perf_counter() < deadline and len(set(replica_names()) - {victim}) < 2:
        time.sleep(0.1)
    wait_for_replicas(2, timeout_s=120)
    result["replaced_after_s"] = round(time.perf_counter() - killed_at, 1)
    runner.join()
    result.update(killed=victim, replicas_after=replica_names(), retries=retries)
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=pathlib.Path, default=REPO / "build" / "models" / "mosaic_cnn.xml")
    p.add_argument("--device", default="CPU")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--requests", type=int, default=3000)
    p.add_argument("--duration", type=float, default=20.0, help="at most this long for each load run (s)")
    p.add_argument("--kill-duration", type=float, default=20.0)
    p.add_argument("--report", type=pathlib.Path)
    args = p.parse_args()
    if not args.model.is_file():
        sys.exit(f"{args.model} is missing: build the bundled model (scripts/build.sh) or pass --model")

    report = {"cpu": cpu_name(), "cores": os.cpu_count(), "load_average_before": os.getloadavg()[0],
              "model": str(args.model), "device": args.device, "properties": PROPERTIES,
              "concurrency": args.concurrency, "command": " ".join([sys.executable] + sys.argv)}
    report["in_process"] = in_process(args)
    print("in-process:", json.dumps(report["in_process"]), flush=True)

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        for replicas in (1, 2):
            deploy(args, replicas)
            asyncio.run(run_load(url, "cnn", 2, 50, 30))  # warm-up: connections, first inferences
            served = served_load(args, url)
            served["throughput_ratio"] = round(served["throughput_per_s"] / report["in_process"]["throughput_per_s"], 3)
            served["p50_ratio"] = round(served["p50_ms"] / report["in_process"]["p50_ms"], 1)
            report[f"served_{replicas}_replicas"] = served
            print(f"served, {replicas} replica(s):", json.dumps(served), flush=True)
        for retries in (0, 3):
            run = kill_run(args, url, retries)
            report[f"kill_retries_{retries}"] = run
            print(f"replica killed under load, client retries {retries}:", json.dumps(run), flush=True)
    finally:
        serve.shutdown()
        ray.shutdown()
    report["load_average_after"] = os.getloadavg()[0]
    if args.report:
        args.report.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
