"""One served model: a Ray Serve deployment whose replicas each compile the model with mosaic.Core
and run inferences on arrays (the protocol is the ingress's business, ingress.py).

With batching, concurrent calls wait up to batch_wait_timeout_s in serve.batch's queue and are
merged along dim 0 into one inference of up to max_batch_size rows; the model is compiled once for
each number of rows it meets (Mosaic compiles static shapes only), and each execution's row count
goes into the replica's statistics (stats.py).
"""
import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List

import numpy as np
from ray import serve

import mosaic
from mosaic.serve.config import ModelConfig, default_device, replica_device
from mosaic.serve.protocol import TensorSpec, datatype_of
from mosaic.serve.stats import ModelStats


def _rows(items: List[Dict[str, np.ndarray]]) -> int:
    """serve.batch's batch size: rows, not calls, so a merged batch never exceeds max_batch_size rows."""
    return sum(next(iter(item.values())).shape[0] for item in items)


class MosaicModel:
    def __init__(self, config: dict):
        self.config = ModelConfig.from_dict(config)
        context = serve.get_replica_context()
        rank = getattr(context.rank, "rank", context.rank)  # ReplicaRank since Ray 2.5x, an int before
        self.core = mosaic.Core()
        devices = self.core.available_devices
        device = self.config.device or default_device(devices)
        gpu_ids = []
        if self.config.per_replica_gpu and "GPU" in devices:
            gpu_ids = [str(i) for i in self.core.get_property("GPU", "AVAILABLE_DEVICES")]
        self.device = replica_device(device, rank, gpu_ids)
        try:
            self.model = self.core.read_model(self.config.path, self.config.weights) if self.config.weights \
                else self.core.read_model(self.config.path)
        except Exception as e:
            raise RuntimeError(f"model '{self.config.name}': cannot read '{self.config.path}': {e}") from None
        self.batching = self.config.batching
        self._shapes = {p.get_any_name(): list(p.get_shape()) for p in self.model.inputs}
        self._compiled, self._compile_lock = {}, threading.Lock()
        self._local = threading.local()
        # Compile now, at the model's own batch: a wrong device or property fails the replica's start
        # with the device's message instead of the first request.
        base_rows = next(iter(self._shapes.values()))[0]
        compiled = self._compiled_for(base_rows if self.batching is None else 1)
        self.inputs = [self._spec(p) for p in compiled.inputs]
        self.outputs = [self._spec(p) for p in compiled.outputs]
        self._stats = ModelStats(self.config.name, context.replica_id.unique_id, self.device)
        self._executor = ThreadPoolExecutor(self.config.parallel_requests, thread_name_prefix="mosaic-infer")
        if self.batching is not None:
            self._batched.set_max_batch_size(self.batching.max_batch_size)
            self._batched.set_batch_wait_timeout_s(self.batching.batch_wait_timeout_s)

    def _spec(self, port) -> TensorSpec:
        shape = list(port.get_shape())
        if self.batching is not None:
            shape[0] = -1
        return TensorSpec(port.get_any_name(), datatype_of(port.get_element_type()), shape)

    def _compiled_for(self, rows: int):
        """The model compiled for `rows` rows in dim 0 (batching), or at its own shape."""
        with self._compile_lock:
            if rows not in self._compiled:
                model = self.model.clone()
                if self.batching is not None:
                    model.reshape({name: [rows] + shape[1:] for name, shape in self._shapes.items()})
                compiled = self.core.compile_model(model, self.device, self.config.properties)
                if self.batching is not None:
                    bad = [p.get_any_name() for p in compiled.outputs if p.get_shape()[0] != rows]
                    if bad:
                        raise RuntimeError(f"model '{self.config.name}' cannot be batched: with {rows} rows in "
                                           f"dim 0 of its inputs, output(s) {bad} do not have {rows} rows; "
                                           "remove 'batching' for this model")
                self._compiled[rows] = compiled
            return self._compiled[rows]

    def _run(self, inputs: Dict[str, np.ndarray], rows: int, requests: int) -> Dict[str, np.ndarray]:
        """One inference on this thread's own request for that row count (requests are not shared
        between threads)."""
        cache = self._local.__dict__.setdefault("requests", {})
        if rows not in cache:
            cache[rows] = self._compiled_for(rows).create_infer_request()
        start = time.perf_counter_ns()
        try:
            results = cache[rows].infer(inputs)
        except Exception:
            self._stats.failed(requests, time.perf_counter_ns() - start)
            raise
        self._stats.executed(rows, requests, time.perf_counter_ns() - start)
        return {spec.name: results[spec.name] for spec in self.outputs}

    async def infer(self, inputs: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        if self.batching is None:
            rows = next(iter(inputs.values())).shape[0]
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, self._run, inputs, rows, 1)
        return await self._batched(inputs)

    @serve.batch(batch_size_fn=_rows)
    async def _batched(self, items: List[Dict[str, np.ndarray]]) -> List[Dict[str, np.ndarray]]:
        counts = [next(iter(item.values())).shape[0] for item in items]
        merged = {name: np.concatenate([item[name] for item in items]) if len(items) > 1 else items[0][name]
                  for name in items[0]}
        loop = asyncio.get_running_loop()
        outputs = await loop.run_in_executor(self._executor, self._run, merged, sum(counts), len(items))
        splits = np.cumsum(counts)[:-1]
        per_item = {name: np.split(array, splits) for name, array in outputs.items()}
        return [{name: parts[i] for name, parts in per_item.items()} for i in range(len(items))]

    def metadata(self) -> dict:
        return {"name": self.config.name, "versions": ["1"], "platform": "mosaic", "device": self.device,
                "max_batch_size": self.batching.max_batch_size if self.batching else 0,
                "inputs": [s.to_json() for s in self.inputs], "outputs": [s.to_json() for s in self.outputs]}

    def ready(self) -> bool:
        return True

    def stats(self) -> dict:
        return self._stats.to_json()


def model_deployment(config: ModelConfig):
    """The Ray Serve deployment for one model, with its replicas, autoscaling and resources."""
    max_ongoing = config.max_ongoing_requests
    if config.batching is not None:
        # serve.batch can only merge requests the replica has accepted.
        max_ongoing = max(max_ongoing, 2 * config.batching.max_batch_size)
    return serve.deployment(MosaicModel).options(**deployment_options(config, f"model-{config.name}", max_ongoing))


def deployment_options(config: ModelConfig, name: str, max_ongoing: int) -> dict:
    """Ray Serve's options for a model's deployment: its name, replicas or autoscaling, resources, and
    the bound on requests waiting for a replica (past it the ingress's handle raises
    BackPressureError at once, backpressure.py)."""
    options = dict(name=name, max_ongoing_requests=max_ongoing, max_queued_requests=config.max_queued_requests,
                   ray_actor_options=config.ray_actor_options or {"num_cpus": 1})
    if config.autoscaling is not None:
        options["autoscaling_config"] = config.autoscaling
    else:
        options["num_replicas"] = config.num_replicas
    return options

