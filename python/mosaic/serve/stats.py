"""What one replica has run, in the shape of Triton's statistics extension
(GET /v2/models/{name}/stats), so tritonclient's get_inference_statistics reads it.

`batch_stats` is the batch-size histogram: one entry per number of rows an execution ran, which is
how a test sees that concurrent requests were merged. `requests_per_execution` (ours) counts how
many client requests each execution served.
"""
import threading
import time
from collections import defaultdict


class _Duration:
    __slots__ = ("count", "ns")

    def __init__(self):
        self.count = 0
        self.ns = 0

    def add(self, ns: int, count: int = 1):
        self.count += count
        self.ns += ns

    def to_json(self):
        return {"count": self.count, "ns": self.ns}


class ModelStats:
    def __init__(self, model_name: str, replica: str, device: str):
        self.model_name, self.replica, self.device = model_name, replica, device
        self._lock = threading.Lock()  # executions finish on inference threads
        self.inference_count = 0      # rows inferred
        self.execution_count = 0      # inferences run (a merged batch is one)
        self.last_inference_ms = 0
        self.success, self.fail, self.compute = _Duration(), _Duration(), _Duration()
        self.batches = defaultdict(_Duration)      # rows in one execution -> compute time
        self.requests_per_execution = defaultdict(int)

    def executed(self, rows: int, requests: int, compute_ns: int):
        with self._lock:
            self.inference_count += rows
            self.execution_count += 1
            self.last_inference_ms = int(time.time() * 1000)
            self.compute.add(compute_ns, requests)
            self.success.add(compute_ns, requests)
            self.batches[rows].add(compute_ns)
            self.requests_per_execution[requests] += 1

    def failed(self, requests: int, ns: int):
        with self._lock:
            self.fail.add(ns, requests)

    def to_json(self) -> dict:
        with self._lock:
            return {"model_stats": [{
                "name": self.model_name, "version": "1", "last_inference": self.last_inference_ms,
                "inference_count": self.inference_count, "execution_count": self.execution_count,
                "inference_stats": {"success": self.success.to_json(), "fail": self.fail.to_json(),
                                    "compute_infer": self.compute.to_json()},
                "batch_stats": [{"batch_size": rows, "compute_infer": d.to_json()}
                                for rows, d in sorted(self.batches.items())],
                "requests_per_execution": {str(k): v for k, v in sorted(self.requests_per_execution.items())},
                "replica": self.replica, "device": self.device,
            }]}
