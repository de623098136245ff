"""LLM serving throughput on this machine: the OpenAI endpoint of mosaic.serve with continuous
batching (max_num_seqs rows) against the same model served one request at a time (max_num_seqs 1),
at 1, 4 and 16 concurrent clients. Not a test: figures depend on the machine and its load, which are
printed with them.

    python benchmarks/serve/llm_bench.py --model build/llm_bench_24l/ov [--clients 1,4,16]
        [--prompt-words 24] [--max-tokens 32] [--rows 16] [--report out.json]

Each client sends one completion (greedy, max_tokens new tokens, end-of-sequence ignored by the
length: the text is cut at max_tokens) with the official `openai` client; a run is all clients at
once, after a warm-up request. Figures: generated tokens/s of all clients together, and each
request's latency (mean and max).
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import socket
import time

import openai
import ray
from ray import serve

from mosaic.serve.app import build_app
from mosaic.serve.config import parse_config

APP = "llm-bench"
PROMPT = ("The history of computing is a story of abstraction: from switches to transistors, from machine "
          "code to compilers, from single machines to clusters of nodes. Each layer hides the one below")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(client, model, clients, prompt, max_tokens):
    def one(_):
        start = time.perf_counter()
        answer = client.completions.create(model=model, prompt=prompt, max_tokens=max_tokens, temperature=0)
        return answer.usage.completion_tokens, time.perf_counter() - start

    client.completions.create(model=model, prompt=prompt, max_tokens=4, temperature=0)  # warm-up
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(one, range(clients)))
    wall = time.perf_counter() - start
    tokens = sum(n for n, _ in results)
    latencies = [s for _, s in results]
    return {"clients": clients, "tokens": tokens, "seconds": wall, "tokens_per_s": tokens / wall,
            "latency_mean_s": sum(latencies) / len(latencies), "latency_max_s": max(latencies)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="an LLM folder (optimum-intel IR or optimum ONNX)")
    parser.add_argument("--clients", default="1,4,16")
    parser.add_argument("--prompt-words", type=int, default=24)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--rows", type=int, default=16, help="max_num_seqs of the batched deployment")
    parser.add_argument("--report")
    args = parser.parse_args()
    prompt = " ".join(PROMPT.split()[:args.prompt_words])
    folder = str(pathlib.Path(args.model).resolve())
    config = parse_config({"ray_actor_options": {"num_cpus": 0.5}, "models": [
        {"name": "batched", "task": "llm", "path": folder, "device": "CPU", "max_num_seqs": args.rows,
         "max_ongoing_requests": 64},
        {"name": "one-at-a-time", "task": "llm", "path": folder, "device": "CPU", "max_num_seqs": 1,
         "max_ongoing_requests": 64}]})
    port = free_port()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    try:
        serve.run(build_app(config), name=APP, route_prefix="/")
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0, timeout=600)
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} before the runs")
        print(f"{'model':<14} {'clients':>7} {'tokens':>7} {'s':>7} {'tokens/s':>9} {'mean s':>7} {'max s':>7}")
        rows = []
        for clients in [int(c) for c in args.clients.split(",")]:
            for model in ("one-at-a-time", "batched"):
                r = {"model": model, **run(client, model, clients, prompt, args.max_tokens)}
                rows.append(r)
                print(f"{model:<14} {clients:>7} {r['tokens']:>7} {r['seconds']:>7.2f} {r['tokens_per_s']:>9.2f} "
                      f"{r['latency_mean_s']:>7.2f} {r['latency_max_s']:>7.2f}", flush=True)
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        if args.report:
            pathlib.Path(args.report).write_text(json.dumps({"model": folder, "runs": rows}, indent=2) + "\n")
    finally:
        serve.shutdown()
        ray.shutdown()


if __name__ == "__main__":
    main()
