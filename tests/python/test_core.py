"""mosaic.Core: devices, properties, reading and compiling."""
import pathlib

import pytest

import mosaic as ov
from mosaic import properties


def test_read_model_takes_a_str_or_a_path(core, model_path):
    assert core.read_model(str(model_path)).get_friendly_name() == "mosaic_cnn"
    assert core.read_model(pathlib.Path(model_path)).get_friendly_name() == "mosaic_cnn"


def test_read_model_of_a_missing_file_names_it(core, tmp_path):
    missing = tmp_path / "absent.xml"
    with pytest.raises(RuntimeError, match="absent.xml"):
        core.read_model(missing)


def test_compile_model_from_a_path_or_a_model(core, model, model_path):
    for source in (model, model_path, str(model_path)):
        compiled = core.compile_model(source, "REFERENCE")
        assert compiled.device == "REFERENCE"
        assert [p.get_any_name() for p in compiled.inputs] == ["data"]


def test_compile_on_an_unknown_device_names_it(core, model):
    with pytest.raises(RuntimeError, match="NO_SUCH_DEVICE"):
        core.compile_model(model, "NO_SUCH_DEVICE")


def test_set_property_then_get_property(core):
    core.set_property("REFERENCE", {properties.enable_profiling: True})
    assert core.get_property("REFERENCE", "PERF_COUNT") is True
    core.set_property("REFERENCE", {"PERF_COUNT": "NO"})
    assert core.get_property("REFERENCE", properties.enable_profiling) is False


def test_yes_switches_on_profiling(core):
    core.set_property("REFERENCE", {"PERF_COUNT": "YES"})
    try:
        assert core.get_property("REFERENCE", "PERF_COUNT") is True
    finally:
        core.set_property("REFERENCE", {"PERF_COUNT": False})


def test_unknown_property_is_an_error_naming_it(core, model):
    with pytest.raises(RuntimeError, match="NO_SUCH_KEY"):
        core.set_property("CPU", {"NO_SUCH_KEY": 1})
    with pytest.raises(RuntimeError, match="NO_SUCH_KEY"):
        core.compile_model(model, "CPU", {"NO_SUCH_KEY": 1})


def test_property_value_without_a_json_form_is_a_type_error(core):
    with pytest.raises(TypeError, match="PERF_COUNT"):
        core.set_property("CPU", {"PERF_COUNT": object()})


def test_config_must_be_a_dict(core, model):
    with pytest.raises(TypeError, match="dict"):
        core.compile_model(model, "CPU", [("PERF_COUNT", True)])


def test_query_model_maps_every_op_to_a_device(core, model):
    supported = core.query_model(model, "HETERO:GPU,CPU")
    assert set(supported) == {op.get_friendly_name() for op in model.get_ops()}
    assert supported["conv1"] == "GPU" and supported["top5"] == "CPU"  # the GPU device has no TopK
