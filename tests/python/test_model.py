"""mosaic.Model, its nodes, their live runtime info, and the model's ports."""
import pytest

import mosaic as ov


def test_ops_parameters_and_results(model):
    ops = model.get_ops()
    names = [op.get_friendly_name() for op in ops]
    assert "conv1" in names and "top5" in names
    assert {op.get_type_name() for op in ops} >= {"Parameter", "Convolution", "TopK", "Result"}
    assert [p.get_friendly_name() for p in model.get_parameters()] == ["data"]
    assert all(r.get_type_name() == "Result" for r in model.get_results()) and len(model.get_results()) == 3


def test_ordered_ops_put_producers_first(model):
    order = [op.get_friendly_name() for op in model.get_ordered_ops()]
    assert sorted(order) == sorted(op.get_friendly_name() for op in model.get_ops())
    assert order.index("data") < order.index("conv1") < order.index("pool1") < order.index("top5")


def test_rt_info_is_live(model):
    conv = next(op for op in model.get_ops() if op.get_friendly_name() == "conv1")
    conv.get_rt_info()["affinity"] = "CPU"
    again = next(op for op in model.get_ops() if op.get_friendly_name() == "conv1")
    assert again.get_rt_info()["affinity"] == "CPU"
    assert "affinity" in again.get_rt_info() and dict(again.get_rt_info().items())["affinity"] == "CPU"
    del again.get_rt_info()["affinity"]
    assert "affinity" not in conv.get_rt_info()
    with pytest.raises(KeyError):
        conv.get_rt_info()["affinity"]
    conv.get_rt_info()["priority"] = 3  # values are any JSON value, as ov::Any holds any value
    assert conv.get_rt_info()["priority"] == 3
    with pytest.raises(TypeError, match="priority"):
        conv.get_rt_info()["priority"] = object()


def test_affinities_set_in_python_reach_hetero(core, model):
    for op in model.get_ops():
        op.get_rt_info()["affinity"] = "CPU"
    compiled = core.compile_model(model, "HETERO:GPU,CPU")
    assert compiled.get_property("EXECUTION_DEVICES") == ["CPU"]


def test_ports(model):
    data = model.input()
    assert data == model.input(0) == model.input("data") == model.inputs[0]
    assert data.get_any_name() == "data" and "data" in data.get_names()
    assert data.get_element_type() == ov.Type.f32
    assert data.get_shape() == [1, 3, 32, 32] and data.get_partial_shape().is_static
    assert [o.get_any_name() for o in model.outputs] == ["prob", "top5_probabilities", "top5_classes"]
    assert model.output("top5_classes").get_element_type() == ov.Type.i32
    with pytest.raises(KeyError, match="nope"):
        model.input("nope")
    with pytest.raises(IndexError):
        model.output(3)


def test_reshape(core, model, image):
    model.reshape({"data": [2, 3, 32, 32]})
    assert model.input().get_shape() == [2, 3, 32, 32]
    assert model.output("prob").get_shape() == [2, 10]
    with pytest.raises(TypeError, match="list of ints"):
        model.reshape("1,3,32,32")
    model.reshape([3, 3, 32, 32])
    results = core.compile_model(model, "CPU")([image.repeat(3, axis=0)])
    assert results["prob"].shape == (3, 10)
