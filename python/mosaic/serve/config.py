"""The serving configuration: one YAML or JSON file naming the models and how to serve them.

    http: {host: 127.0.0.1, port: 8000}
    ray: {address: null, num_cpus: 2}      # null: a local Ray instance; "auto": the running cluster
    device: HETERO:GPU,CPU                  # defaults for every model, each may override them
    models:
      - name: cnn
        path: models/mosaic_cnn.xml         # relative to the configuration file
        properties: {DEVICE_PROPERTIES: {CPU: {INFERENCE_NUM_THREADS: 1}}}
        num_replicas: 2                     # or autoscaling: {min_replicas: 1, max_replicas: 4}
        batching: {max_batch_size: 8, batch_wait_timeout_s: 0.005}
      - name: qwen                          # an LLM, served with the OpenAI API under /v1
        task: llm
        path: models/qwen2-ov               # the model folder (LLMPipeline's)
        max_length: 2048                    # optional: at most the model's own (config.json)
        max_num_seqs: 8                     # requests a replica decodes together (continuous batching)
        max_queued_requests: 32             # requests that may wait; past it a request gets 503 at once

Nothing here imports Ray or compiles anything: the file is checked whole when it is read, so a typo
is one error naming the key and the file rather than a replica failing on some node later.
"""
import json
import pathlib
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

# Keys a model entry may hold; the same keys at the top level are defaults for every model.
MODEL_KEYS = {"name", "path", "weights", "device", "properties", "per_replica_gpu", "num_replicas",
              "autoscaling", "batching", "max_ongoing_requests", "max_queued_requests", "parallel_requests",
              "ray_actor_options"}
# An LLM's entry (task: llm) takes these instead of weights, batching and parallel_requests; the
# top-level defaults of those apply to the other models only.
LLM_KEYS = (MODEL_KEYS - {"weights", "batching", "parallel_requests"}) | {"task", "max_length", "max_num_seqs"}
TASKS = ("kserve", "llm")
MODEL_DEFAULT_KEYS = MODEL_KEYS - {"name", "path", "weights"}
TOP_KEYS = {"http", "ray", "ingress", "app_name", "models"} | MODEL_DEFAULT_KEYS
BATCHING_KEYS = {"max_batch_size", "batch_wait_timeout_s"}
AUTOSCALING_KEYS = {"min_replicas", "max_replicas", "initial_replicas", "target_ongoing_requests",
                    "upscale_delay_s", "downscale_delay_s"}


class ConfigError(ValueError):
    """The configuration file is wrong; the message names the file, the key and what to write."""


@dataclass
class Batching:
    max_batch_size: int
    batch_wait_timeout_s: float


@dataclass
class ModelConfig:
    name: str
    path: str
    # "kserve": a model file served with the KServe v2 protocol; "llm": a model folder served by
    # mosaic.genai.LLMPipeline with the OpenAI API.
    task: str = "kserve"
    weights: Optional[str] = None
    # task llm: the longest sequence (prompt and completion), at most the model's own.
    max_length: Optional[int] = None
    # task llm: the requests a replica decodes together (its continuous batch's rows).
    max_num_seqs: int = 8
    # None: chosen on the replica, where the devices are (default_device()).
    device: Optional[str] = None
    properties: Dict[str, Any] = field(default_factory=dict)
    # Replica N of a deployment on GPU.N when the replica's machine has several GPUs.
    per_replica_gpu: bool = True
    num_replicas: int = 1
    autoscaling: Optional[Dict[str, Any]] = None
    batching: Optional[Batching] = None
    max_ongoing_requests: int = 16
    # Requests that may wait for a replica, and for an LLM also inside one for a batch row, before the
    # next is refused with 503 (backpressure.py); -1: no bound, Ray Serve's convention.
    max_queued_requests: int = -1
    # Inferences a replica runs at once (each on its own thread and infer request).
    parallel_requests: int = 1
    ray_actor_options: Dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """What travels to the replicas: plain data, so any Ray node can rebuild it."""
        out = dict(self.__dict__)
        out["batching"] = None if self.batching is None else dict(self.batching.__dict__)
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "ModelConfig":
        data = dict(data)
        if data.get("batching") is not None:
            data["batching"] = Batching(**data["batching"])
        return cls(**data)


@dataclass
class ServeConfig:
    models: List[ModelConfig]
    host: str = "127.0.0.1"
    port: int = 8000
    ray_address: Optional[str] = None
    ray_num_cpus: Optional[float] = None
    app_name: str = "mosaic"
    ingress_num_replicas: int = 1
    ingress_ray_actor_options: Dict[str, Any] = field(default_factory=lambda: {"num_cpus": 0})
    source: str = "<dict>"

    @property
    def kserve_models(self) -> List[ModelConfig]:
        return [m for m in self.models if m.task == "kserve"]

    @property
    def llms(self) -> List[ModelConfig]:
        return [m for m in self.models if m.task == "llm"]

    def model(self, name: str) -> ModelConfig:
        for m in self.models:
            if m.name == name:
                return m
        raise KeyError(f"no model '{name}' in {self.source}; models: {[m.name for m in self.models]}")


def default_device(available_devices) -> str:
    """HETERO:GPU,CPU where a GPU device exists (the GPU runs what it can, the CPU the rest), else CPU."""
    return "HETERO:GPU,CPU" if "GPU" in available_devices else "CPU"


def replica_device(device: str, rank: int, gpu_ids: List[str]) -> str:
    """The device string for replica `rank`: with several GPUs, a bare GPU becomes GPU.<id> for the
    rank's GPU (round robin), so replicas spread over the GPUs instead of all sharing GPU.0."""
    if len(gpu_ids) < 2:
        return device
    gpu = f"GPU.{gpu_ids[rank % len(gpu_ids)]}"
    prefix, sep, rest = device.partition(":")
    if sep and prefix in ("HETERO", "MULTI", "AUTO"):
        parts = [gpu if p.strip() == "GPU" else p for p in rest.split(",")]
        return f"{prefix}:{','.join(parts)}"
    return gpu if device == "GPU" else device


def load_config(path) -> ServeConfig:
    """Reads a .yaml/.yml or .json configuration file; relative model paths are relative to it."""
    path = pathlib.Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ConfigError(f"cannot read the serving configuration '{path}': {e.strerror}") from None
    if path.suffix in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise ConfigError(f"'{path}' is YAML but PyYAML is not installed: pip install pyyaml "
                              "(or install mosaic[serve]), or write the configuration as JSON") from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise ConfigError(f"'{path}' is not valid YAML: {e}") from None
    elif path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ConfigError(f"'{path}' is not valid JSON: {e}") from None
    else:
        raise ConfigError(f"'{path}': the serving configuration is a .yaml, .yml or .json file")
    return parse_config(data, base_dir=path.resolve().parent, source=str(path))


def parse_config(data: Any, base_dir=".", source: str = "<dict>") -> ServeConfig:
    base_dir = pathlib.Path(base_dir)
    where = source
    _mapping(data, where)
    _known_keys(data, TOP_KEYS, where)
    models = data.get("models")
    if not isinstance(models, list) or not models:
        raise ConfigError(f"{where}: 'models' must be a non-empty list of {{name, path}} entries")
    defaults = {k: data[k] for k in MODEL_DEFAULT_KEYS if k in data}
    parsed = [_model(entry, defaults, base_dir, f"{where}: models[{i}]") for i, entry in enumerate(models)]
    names = [m.name for m in parsed]
    if len(set(names)) != len(names):
        raise ConfigError(f"{where}: model names must be unique; got {names}")

    config = ServeConfig(models=parsed, source=source)
    http = data.get("http", {})
    _mapping(http, f"{where}: http")
    _known_keys(http, {"host", "port"}, f"{where}: http")
    config.host = str(http.get("host", config.host))
    config.port = _integer(http.get("port", config.port), f"{where}: http.port", 0, 65535)
    ray = data.get("ray", {})
    _mapping(ray, f"{where}: ray")
    _known_keys(ray, {"address", "num_cpus"}, f"{where}: ray")
    config.ray_address = ray.get("address")
    if ray.get("num_cpus") is not None:
        config.ray_num_cpus = _number(ray["num_cpus"], f"{where}: ray.num_cpus")
    ingress = data.get("ingress", {})
    _mapping(ingress, f"{where}: ingress")
    _known_keys(ingress, {"num_replicas", "ray_actor_options"}, f"{where}: ingress")
    config.ingress_num_replicas = _integer(ingress.get("num_replicas", 1), f"{where}: ingress.num_replicas", 1)
    config.ingress_ray_actor_options = dict(ingress.get("ray_actor_options", config.ingress_ray_actor_options))
    config.app_name = str(data.get("app_name", config.app_name))
    return config


def _model(entry, defaults, base_dir, where) -> ModelConfig:
    _mapping(entry, where)
    task = entry.get("task", "kserve")
    if task not in TASKS:
        raise ConfigError(f"{where}: task {task!r} is not one of {list(TASKS)} (kserve: a model file over the "
                          "KServe v2 API; llm: a model folder over the OpenAI API)")
    if task == "llm":
        _known_keys(entry, LLM_KEYS, where + " (task: llm)")
        defaults = {k: v for k, v in defaults.items() if k in LLM_KEYS}
    else:
        _known_keys(entry, MODEL_KEYS | {"task"}, where)
    merged = {**defaults, **entry}
    for key in ("name", "path"):
        if not isinstance(merged.get(key), str) or not merged[key]:
            raise ConfigError(f"{where}: '{key}' is required (a string)")
    name = merged["name"]
    # The name is a URL path segment (/v2/models/{name}) and part of a Ray deployment name.
    if not all(c.isalnum() or c in "_-." for c in name):
        raise ConfigError(f"{where}: model name '{name}' may hold only letters, digits, '_', '-' and '.'")
    m = ModelConfig(name=name, path=str((base_dir / merged["path"]).resolve()), task=task)
    if entry.get("max_length") is not None:
        m.max_length = _integer(entry["max_length"], f"{where}: max_length", 2)
    if entry.get("max_num_seqs") is not None:
        m.max_num_seqs = _integer(entry["max_num_seqs"], f"{where}: max_num_seqs", 1, 1024)
    if merged.get("weights"):
        m.weights = str((base_dir / merged["weights"]).resolve())
    if merged.get("device") is not None:
        if not isinstance(merged["device"], str) or not merged["device"]:
            raise ConfigError(f"{where}: 'device' is a device string such as CPU or HETERO:GPU,CPU")
        m.device = merged["device"]
    props = merged.get("properties", {})
    _mapping(props, f"{where}: properties")
    if "DEVICE_PROPERTIES" in props:
        _mapping(props["DEVICE_PROPERTIES"], f"{where}: properties.DEVICE_PROPERTIES")
        for dev, dev_props in props["DEVICE_PROPERTIES"].items():
            _mapping(dev_props, f"{where}: properties.DEVICE_PROPERTIES.{dev}")
    m.properties = dict(props)
    m.per_replica_gpu = bool(merged.get("per_replica_gpu", True))
    m.num_replicas = _integer(merged.get("num_replicas", 1), f"{where}: num_replicas", 1)
    if merged.get("autoscaling") is not None:
        auto = merged["autoscaling"]
        _mapping(auto, f"{where}: autoscaling")
        _known_keys(auto, AUTOSCALING_KEYS, f"{where}: autoscaling")
        low = _integer(auto.get("min_replicas", 1), f"{where}: autoscaling.min_replicas", 0)
        high = _integer(auto.get("max_replicas", max(low, 1)), f"{where}: autoscaling.max_replicas", 1)
        if high < low:
            raise ConfigError(f"{where}: autoscaling.max_replicas ({high}) is below min_replicas ({low})")
        m.autoscaling = {**auto, "min_replicas": low, "max_replicas": high}
    if merged.get("batching") is not None:
        b = merged["batching"]
        _mapping(b, f"{where}: batching")
        _known_keys(b, BATCHING_KEYS, f"{where}: batching")
        m.batching = Batching(
            max_batch_size=_integer(b.get("max_batch_size", 8), f"{where}: batching.max_batch_size", 1),
            batch_wait_timeout_s=_number(b.get("batch_wait_timeout_s", 0.01), f"{where}: batching.batch_wait_timeout_s"))
    m.max_ongoing_requests = _integer(merged.get("max_ongoing_requests", 16), f"{where}: max_ongoing_requests", 1)
    if merged.get("max_queued_requests") is not None:  # null, as left out: no bound (a default undone)
        m.max_queued_requests = _queue_bound(merged["max_queued_requests"], f"{where}: max_queued_requests")
    m.parallel_requests = _integer(merged.get("parallel_requests", 1), f"{where}: parallel_requests", 1)
    opts = merged.get("ray_actor_options", {})
    _mapping(opts, f"{where}: ray_actor_options")
    m.ray_actor_options = dict(opts)
    return m


def _mapping(value, where):
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a mapping, got {type(value).__name__} {value!r}")


def _known_keys(value: dict, known, where):
    unknown = sorted(set(value) - set(known))
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {unknown}; known keys: {sorted(known)}")


def _integer(value, where, low=None, high=None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or (low is not None and value < low) \
            or (high is not None and value > high):
        bounds = f" >= {low}" if high is None else f" in [{low}, {high}]"
        raise ConfigError(f"{where}: expected an integer{bounds if low is not None else ''}, got {value!r}")
    return value


def _queue_bound(value, where) -> int:
    """Ray Serve's convention for max_queued_requests: -1 is no bound, and Ray refuses 0 and other
    negatives; refused here, the error names the file and the model instead of a failed deploy."""
    if isinstance(value, bool) or not isinstance(value, int) or (value < 1 and value != -1):
        raise ConfigError(f"{where}: expected an integer >= 1 (the requests that may wait), or -1 for no bound, "
                          f"got {value!r}")
    return value


def _number(value, where) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ConfigError(f"{where}: expected a non-negative number, got {value!r}")
    return float(value)
