"""The serving configuration file: defaults, per-model overrides, paths, and one clear error per
mistake. No Ray needed."""
import json

import pytest

from mosaic.serve.config import ConfigError, default_device, load_config, parse_config, replica_device


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_yaml_defaults_apply_to_every_model_and_models_override_them(tmp_path):
    config = load_config(write(tmp_path, "s.yaml", """
http: {port: 9000}
device: HETERO:GPU,CPU
num_replicas: 2
batching: {max_batch_size: 4, batch_wait_timeout_s: 0.002}
models:
  - {name: a, path: models/a.xml}
  - {name: b, path: /abs/b.xml, device: CPU, num_replicas: 1, batching: null,
     properties: {DEVICE_PROPERTIES: {CPU: {INFERENCE_NUM_THREADS: 1}}},
     autoscaling: {min_replicas: 1, max_replicas: 3}}
"""))
    a, b = config.models
    assert (config.host, config.port) == ("127.0.0.1", 9000)
    assert a.path == str(tmp_path / "models" / "a.xml")  # relative to the file, not the working directory
    assert (a.device, a.num_replicas, a.batching.max_batch_size, a.batching.batch_wait_timeout_s) == \
        ("HETERO:GPU,CPU", 2, 4, 0.002)
    assert (b.path, b.device, b.num_replicas, b.batching) == ("/abs/b.xml", "CPU", 1, None)
    assert b.properties == {"DEVICE_PROPERTIES": {"CPU": {"INFERENCE_NUM_THREADS": 1}}}
    assert b.autoscaling == {"min_replicas": 1, "max_replicas": 3}


def test_json_file_and_the_round_trip_to_replicas(tmp_path):
    config = load_config(write(tmp_path, "s.json", json.dumps(
        {"models": [{"name": "m", "path": "m.xml", "batching": {"max_batch_size": 2}}]})))
    m = config.models[0]
    assert m.device is None  # chosen on the replica, where the devices are
    assert type(m).from_dict(m.to_dict()) == m


@pytest.mark.parametrize("text, message", [
    ("models: []", "'models' must be a non-empty list"),
    ("modles: [{name: a, path: a.xml}]", "unknown key(s) ['modles']"),
    ("models: [{name: a}]", "'path' is required"),
    ("models: [{name: a/b, path: a.xml}]", "may hold only letters"),
    ("models: [{name: a, path: a.xml}, {name: a, path: b.xml}]", "must be unique"),
    ("models: [{name: a, path: a.xml, batching: {max_batch: 4}}]", "unknown key(s) ['max_batch']"),
    ("models: [{name: a, path: a.xml, batching: {max_batch_size: 0}}]", "batching.max_batch_size: expected an integer >= 1"),
    ("models: [{name: a, path: a.xml, num_replicas: two}]", "num_replicas: expected an integer"),
    ("models: [{name: a, path: a.xml, autoscaling: {min_replicas: 3, max_replicas: 2}}]", "below min_replicas"),
    ("models: [{name: a, path: a.xml, properties: {DEVICE_PROPERTIES: {CPU: 1}}}]",
     "DEVICE_PROPERTIES.CPU: expected a mapping"),
    ("http: {port: 70000}\nmodels: [{name: a, path: a.xml}]", "http.port: expected an integer in [0, 65535]"),
    ("models: [{name: a, path: a.xml", "is not valid YAML"),
    ("models: [{name: a, path: a.xml, max_queued_requests: 0}]",
     "models[0]: max_queued_requests: expected an integer >= 1 (the requests that may wait), or -1 for no bound, got 0"),
    ("models: [{name: a, path: a.xml, max_queued_requests: '8'}]", "models[0]: max_queued_requests: expected an "
     "integer >= 1 (the requests that may wait), or -1 for no bound, got '8'"),
    ("max_queued_requests: -5\nmodels: [{name: a, path: a.xml}]",  # a default is checked in each model
     "models[0]: max_queued_requests: expected an integer >= 1 (the requests that may wait), or -1 for no bound, got -5"),
    ("models: [{name: a, path: a.xml}, {name: q, task: llm, path: q, max_queued_requests: 2.5}]",
     "models[1]: max_queued_requests: expected an integer >= 1"),
])
def test_each_mistake_is_one_error_naming_the_key(tmp_path, text, message):
    with pytest.raises(ConfigError) as e:
        load_config(write(tmp_path, "s.yaml", text))
    assert message in str(e.value)
    assert "s.yaml" in str(e.value)


def test_max_queued_requests_is_unbounded_unless_given():
    config = parse_config({"max_queued_requests": 8, "models": [
        {"name": "a", "path": "a.xml"}, {"name": "b", "path": "b.xml", "max_queued_requests": -1},
        {"name": "c", "path": "c.xml", "max_queued_requests": None}, {"name": "q", "task": "llm", "path": "q"}]})
    assert [m.max_queued_requests for m in config.models] == [8, -1, -1, 8]  # null undoes the default
    assert parse_config({"models": [{"name": "a", "path": "a.xml"}]}).models[0].max_queued_requests == -1
    assert type(config.models[0]).from_dict(config.models[0].to_dict()) == config.models[0]


def test_unreadable_and_unknown_kinds_of_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read the serving configuration"):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="is a .yaml, .yml or .json file"):
        load_config(write(tmp_path, "s.toml", "x = 1"))


def test_default_device_is_hetero_gpu_cpu_where_a_gpu_exists():
    assert default_device(["CPU", "GPU", "HETERO"]) == "HETERO:GPU,CPU"
    assert default_device(["REFERENCE", "CPU", "HETERO"]) == "CPU"


@pytest.mark.parametrize("device, rank, gpus, expected", [
    ("HETERO:GPU,CPU", 0, ["0", "1"], "HETERO:GPU.0,CPU"),
    ("HETERO:GPU,CPU", 1, ["0", "1"], "HETERO:GPU.1,CPU"),
    ("HETERO:GPU,CPU", 2, ["0", "1"], "HETERO:GPU.0,CPU"),   # round robin past the last GPU
    ("GPU", 1, ["0", "1", "2"], "GPU.1"),
    ("HETERO:GPU.1,CPU", 0, ["0", "1"], "HETERO:GPU.1,CPU"),  # an explicit GPU is kept
    ("CPU", 1, ["0", "1"], "CPU"),
    ("HETERO:GPU,CPU", 3, ["0"], "HETERO:GPU,CPU"),          # one GPU: every replica shares it
])
def test_replica_n_runs_on_gpu_n_where_several_exist(device, rank, gpus, expected):
    assert replica_device(device, rank, gpus) == expected


def test_parse_config_of_a_mapping():
    config = parse_config({"models": [{"name": "m", "path": "m.xml"}], "ray": {"address": "auto"}}, base_dir="/srv")
    assert (config.models[0].path, config.ray_address) == ("/srv/m.xml", "auto")
    with pytest.raises(KeyError, match="no model 'x'"):
        config.model("x")


def test_the_sample_configuration_names_the_bundled_model():
    from conftest import REPO

    config = load_config(REPO / "samples" / "python" / "kserve_client" / "serving.yaml")
    assert config.models[0].path == str(REPO / "build" / "models" / "mosaic_cnn.xml")
    assert (config.port, config.models[0].batching.max_batch_size) == (8000, 8)
