"""mosaic.Tensor and numpy share memory both ways."""
import numpy as np
import pytest

import mosaic as ov


def address(array):
    return array.__array_interface__["data"][0]


def test_tensor_wraps_a_contiguous_array_in_place():
    array = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    tensor = ov.Tensor(array)
    assert address(tensor.data) == address(array)
    array[1, 2, 3] = -5.0
    assert tensor.data[1, 2, 3] == -5.0
    assert tensor.shape == [2, 3, 4] and tensor.element_type == ov.Type.f32
    assert tensor.size == 24 and tensor.byte_size == 96


def test_data_is_a_view_of_the_tensor_memory():
    tensor = ov.Tensor(ov.Type.i32, [2, 2])
    assert not tensor.data.any()
    tensor.data[0, 1] = 7
    assert tensor.data[0, 1] == 7 and address(tensor.data) == address(tensor.data)


def test_tensor_keeps_the_wrapped_array_alive():
    tensor = ov.Tensor(np.full((4,), 3, dtype=np.int64))
    assert tensor.data.tolist() == [3, 3, 3, 3]


def test_a_non_contiguous_array_is_copied_with_its_values():
    array = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    tensor = ov.Tensor(array)
    np.testing.assert_array_equal(tensor.data, array)


@pytest.mark.parametrize("dtype,type_", [(np.float16, ov.Type.f16), (np.uint8, ov.Type.u8), (np.bool_, ov.Type.boolean),
                                         (np.int64, ov.Type.i64), (np.float64, ov.Type.f64)])
def test_dtypes_map_to_element_types(dtype, type_):
    assert ov.Tensor(np.zeros(3, dtype=dtype)).element_type == type_


def test_unsupported_dtype_is_a_type_error():
    with pytest.raises(TypeError, match="complex64"):
        ov.Tensor(np.zeros(3, dtype=np.complex64))


def test_non_array_is_a_type_error():
    with pytest.raises(TypeError, match="numpy.ndarray"):
        ov.Tensor([1.0, 2.0])


def test_bf16_has_no_numpy_view():
    with pytest.raises(TypeError, match="bf16"):
        ov.Tensor(ov.Type.bf16, [2]).data
