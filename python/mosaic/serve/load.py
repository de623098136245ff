"""A bounded asyncio load generator for a KServe v2 server on this machine.

    python -m mosaic.serve.load --url http://127.0.0.1:8000 --model cnn --concurrency 8 \
        --requests 2000 --duration 30

Each of `concurrency` workers sends one inference at a time (random inputs of the model's shape,
binary tensor encoding unless --json) until `requests` have been sent or `duration` seconds have
passed, whichever comes first. Every request is accounted for: answered (200), failed-retryable
(503: the replica was lost; after --retries retries), failed-other (any other status) or lost (no
HTTP answer at all: the connection dropped or timed out). It only sends to loopback addresses.
"""
import argparse
import asyncio
import ipaddress
import json
import socket
import sys
import time
from dataclasses import dataclass, field
from typing import List, Optional
from urllib.parse import urlparse

import numpy as np

from mosaic.serve.protocol import DATATYPES, HEADER_LENGTH


@dataclass
class LoadReport:
    concurrency: int
    sent: int = 0
    answered: int = 0
    failed_retryable: int = 0
    failed_other: int = 0
    lost: int = 0
    retries: int = 0
    wall_s: float = 0.0
    latencies_s: List[float] = field(default_factory=list)
    errors: dict = field(default_factory=dict)  # first message of each kind of failure -> count

    def percentile_ms(self, q: float) -> float:
        return float(np.percentile(self.latencies_s, q) * 1000) if self.latencies_s else float("nan")

    @property
    def throughput(self) -> float:
        return self.answered / self.wall_s if self.wall_s else 0.0

    def summary(self) -> dict:
        return {"concurrency": self.concurrency, "sent": self.sent, "answered": self.answered,
                "failed_retryable": self.failed_retryable, "failed_other": self.failed_other, "lost": self.lost,
                "retries": self.retries, "wall_s": round(self.wall_s, 3), "throughput_per_s": round(self.throughput, 1),
                "p50_ms": round(self.percentile_ms(50), 3), "p90_ms": round(self.percentile_ms(90), 3),
                "p99_ms": round(self.percentile_ms(99), 3), "errors": self.errors}

    def text(self) -> str:
        s = self.summary()
        return (f"requests: sent {s['sent']}, answered {s['answered']}, failed-retryable (503) "
                f"{s['failed_retryable']}, failed-other {s['failed_other']}, lost {s['lost']} "
                f"(retries {s['retries']})\n"
                f"throughput: {s['throughput_per_s']} answered/s over {s['wall_s']} s, concurrency {s['concurrency']}\n"
                f"latency of answered requests: p50 {s['p50_ms']} ms, p90 {s['p90_ms']} ms, p99 {s['p99_ms']} ms")


def check_loopback(url: str) -> None:
    """Refuses any target that is not this machine: the tool is for local measurements only."""
    host = urlparse(url).hostname
    if not host:
        raise ValueError(f"'{url}' has no host; use http://127.0.0.1:PORT")
    addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    remote = sorted(a for a in addresses if not ipaddress.ip_address(a.split("%")[0]).is_loopback)
    if remote:
        raise ValueError(f"'{host}' resolves to {remote}, not a loopback address: the load tool only "
                         "sends to this machine (127.0.0.1, ::1, localhost)")


def encode_request(metadata: dict, rows: int, binary: bool, seed: int = 0):
    """A request body with random inputs of the model's shape (-1 dimensions of `rows`), and its headers."""
    rng = np.random.default_rng(seed)
    tensors, blobs = [], []
    for spec in metadata["inputs"]:
        shape = [rows if d == -1 else d for d in spec["shape"]]
        dtype = DATATYPES[spec["datatype"]]
        array = (rng.random(shape) * 255).astype(dtype)
        entry = {"name": spec["name"], "shape": shape, "datatype": spec["datatype"]}
        if binary:
            entry["parameters"] = {"binary_data_size": array.nbytes}
            blobs.append(array.tobytes())
        else:
            entry["data"] = array.reshape(-1).tolist()
        tensors.append(entry)
    header = json.dumps({"inputs": tensors, "parameters": {"binary_data_output": binary}}).encode()
    if not binary:
        return header, {"Content-Type": "application/json"}
    return header + b"".join(blobs), {"Content-Type": "application/octet-stream", HEADER_LENGTH: str(len(header))}


async def run_load(url: str, model: str, concurrency: int = 8, max_requests: int = 1000, duration_s: float = 30.0,
                   binary: bool = True, retries: int = 0, timeout_s: float = 30.0, rows: int = 1,
                   metadata: Optional[dict] = None) -> LoadReport:
    import aiohttp  # the serving extra's; only the load tool needs it

    check_loopback(url)
    base = url.rstrip("/")
    report = LoadReport(concurrency=concurrency)
    timeout = aiohttp.ClientTimeout(total=timeout_s)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency), timeout=timeout) as session:
        if metadata is None:
            async with session.get(f"{base}/v2/models/{model}") as r:
                if r.status != 200:
                    raise RuntimeError(f"GET {base}/v2/models/{model}: {r.status} {await r.text()}")
                metadata = await r.json(content_type=None)
        body, headers = encode_request(metadata, rows, binary)
        infer_url = f"{base}/v2/models/{model}/infer"
        start = time.perf_counter()
        deadline = start + duration_s

        def note(kind: str, message: str):
            key = f"{kind}: {message[:160]}"
            report.errors[key] = report.errors.get(key, 0) + 1

        async def one_request():
            sent_at = time.perf_counter()
            for attempt in range(retries + 1):
                try:
                    async with session.post(infer_url, data=body, headers=headers) as r:
                        await r.read()
                        if r.status == 200:
                            report.answered += 1
                            report.latencies_s.append(time.perf_counter() - sent_at)
                            return
                        if r.status == 503 and attempt < retries:
                            report.retries += 1
                            await asyncio.sleep(0.05 * (attempt + 1))
                            continue
                        if r.status == 503:
                            report.failed_retryable += 1
                        else:
                            report.failed_other += 1
                        note(str(r.status), (await r.text())[:160])
                        return
                except (aiohttp.ClientError, asyncio.TimeoutError) as e:
                    report.lost += 1
                    note("lost", f"{type(e).__name__}: {e}")
                    return

        async def worker():
            while report.sent < max_requests and time.perf_counter() < deadline:
                report.sent += 1
                await one_request()

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        report.wall_s = time.perf_counter() - start
    accounted = report.answered + report.failed_retryable + report.failed_other + report.lost
    assert accounted == report.sent, f"{report.sent} sent but {accounted} accounted for"
    return report


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m mosaic.serve.load", description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8000", help="the server, on this machine")
    p.add_argument("--model", required=True, help="model name (GET /v2/models/NAME)")
    p.add_argument("--concurrency", type=int, default=8, help="requests in flight at once")
    p.add_argument("--requests", type=int, default=1000, help="at most this many requests")
    p.add_argument("--duration", type=float, default=30.0, help="at most this many seconds")
    p.add_argument("--rows", type=int, default=1, help="rows per request where dim 0 is a batch (-1)")
    p.add_argument("--json", action="store_true", help="JSON tensor data instead of the binary extension")
    p.add_argument("--retries", type=int, default=0, help="retries of a request answered 503")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds before a request counts as lost")
    p.add_argument("--report", help="also write the figures to this JSON file")
    a = p.parse_args(argv)
    if a.concurrency < 1 or a.requests < 1 or a.duration <= 0:
        p.error("--concurrency and --requests must be >= 1 and --duration > 0")
    try:
        report = asyncio.run(run_load(a.url, a.model, a.concurrency, a.requests, a.duration, not a.json,
                                      a.retries, a.timeout, a.rows))
    except (ValueError, RuntimeError, OSError) as e:
        print(f"load: {e}", file=sys.stderr)
        return 2
    print(report.text())
    for message, count in report.errors.items():
        print(f"  {count} x {message}")
    if a.report:
        with open(a.report, "w") as f:
            json.dump(report.summary(), f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
