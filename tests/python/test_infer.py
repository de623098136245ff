"""CompiledModel and InferRequest: inputs in every form, results by every key, async, callbacks,
profiling, and clear errors for bad input."""
import datetime
import sys
import threading

import numpy as np
import pytest

import mosaic as ov
from mosaic import properties


def test_call_with_a_dict_a_list_or_an_array(compiled, reference, image):
    expected = reference({"data": image})["prob"]
    for inputs in ({"data": image}, {0: image}, {compiled.input(): image}, [image], (image,), image,
                   {"data": ov.Tensor(image)}):
        np.testing.assert_allclose(compiled(inputs)["prob"], expected, rtol=1e-4, atol=1e-6)


def test_results_by_index_name_and_port(compiled, image):
    results = compiled({"data": image})
    assert len(results) == 3
    probabilities = results["prob"]
    assert probabilities is results[0] and probabilities is results[compiled.output("prob")]
    assert results["top5_classes"].dtype == np.int32
    np.testing.assert_array_equal(results["top5_classes"][0], np.argsort(-probabilities[0])[:5])
    assert [p.get_any_name() for p in results] == ["prob", "top5_probabilities", "top5_classes"]
    assert list(results.to_dict().values())[0] is probabilities


def test_results_are_copies(compiled, image):
    first = compiled([image])["prob"].copy()
    kept = compiled([image])["prob"]
    compiled([np.zeros_like(image)])
    np.testing.assert_array_equal(kept, first)


def test_input_array_is_used_in_place(compiled, reference, image):
    request = compiled.create_infer_request()
    request.set_tensor("data", ov.Tensor(image))
    assert request.get_tensor("data").data.__array_interface__["data"][0] == image.__array_interface__["data"][0]
    request.infer()
    image *= 0.5  # the request reads the changed array: no copy was taken
    after = request.infer()["prob"]
    np.testing.assert_allclose(after, reference([image])["prob"], rtol=1e-4, atol=1e-6)


def test_infer_request_tensors(compiled, image):
    request = compiled.create_infer_request()
    results = request.infer({"data": image})
    np.testing.assert_array_equal(request.get_output_tensor(0).data, results["prob"])
    np.testing.assert_array_equal(request.get_tensor("prob").data, results["prob"])
    np.testing.assert_array_equal(request.get_input_tensor().data, image)
    np.testing.assert_array_equal(request.results["top5_classes"], results["top5_classes"])
    out = ov.Tensor(ov.Type.f32, [1, 10])
    request.set_tensor("prob", out)
    request.infer()
    np.testing.assert_array_equal(out.data, results["prob"])
    array = np.empty((1, 10), dtype=np.float32)
    request.set_tensor(compiled.output("prob"), array)  # an array, used in place as well
    request.infer()
    np.testing.assert_array_equal(array, results["prob"])


def test_start_async_wait_and_callback(compiled, image):
    request = compiled.create_infer_request()
    seen = []
    request.set_callback(lambda userdata: seen.append((userdata, threading.current_thread().name)), "first")
    request.start_async({"data": image})
    request.wait()
    request.start_async({"data": image}, userdata="second")
    assert request.wait_for(10_000)
    assert [s[0] for s in seen] == ["first", "second"]
    assert request.userdata == "second"


def test_a_raising_callback_is_reported_and_does_not_stop_the_process(compiled, image, monkeypatch):
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: reported.append(u.exc_value))
    request = compiled.create_infer_request()

    def callback(_):
        raise RuntimeError("raised in a callback")

    request.set_callback(callback)
    request.start_async([image])
    request.wait()
    assert [str(e) for e in reported] == ["raised in a callback"]
    assert request.infer([image])["prob"].shape == (1, 10)


def test_profiling_info(core, model_path, image):
    compiled = core.compile_model(model_path, "HETERO:GPU,CPU", {properties.enable_profiling: True})
    request = compiled.create_infer_request()
    request.infer([image])
    info = request.get_profiling_info()
    assert info and all(isinstance(p.real_time, datetime.timedelta) for p in info)
    assert any("conv1" in p.node_name and p.node_type == "Convolution" for p in info)
    assert {p.status for p in info} <= set(ov.ProfilingInfo.Status.__members__.values())
    assert all(isinstance(p.cpu_time, datetime.timedelta) and isinstance(p.exec_type, str) for p in info)


def test_wrong_dtype_is_a_value_error(compiled, image):
    with pytest.raises(ValueError, match="expects f32"):
        compiled({"data": image.astype(np.float64)})


def test_wrong_shape_is_a_value_error(compiled):
    with pytest.raises(ValueError, match=r"\[1,3,32,32\]"):
        compiled({"data": np.zeros((1, 3, 16, 16), dtype=np.float32)})


def test_unknown_input_name_is_a_key_error(compiled, image):
    with pytest.raises(KeyError, match="'nope'.*'data'"):
        compiled({"nope": image})


def test_non_array_input_is_a_type_error(compiled):
    with pytest.raises(TypeError, match="numpy.ndarray"):
        compiled({"data": "not an array"})
    with pytest.raises(TypeError, match="numpy.ndarray"):
        compiled([[0.0] * 10])


def test_too_many_inputs_is_a_value_error(compiled, image):
    with pytest.raises(ValueError, match="2 inputs given"):
        compiled([image, image])


def test_input_index_out_of_range_is_an_index_error(compiled, image):
    with pytest.raises(IndexError):
        compiled({1: image})


def test_compiled_model_ports_and_properties(compiled):
    assert compiled.input().get_any_name() == "data"
    assert compiled.output(2).get_any_name() == "top5_classes"
    assert compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS") >= 1
    assert compiled.get_property(properties.model_name) == "mosaic_cnn"
