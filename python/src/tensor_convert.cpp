#include "tensor_convert.hpp"
#include "py_text.hpp"

#include <nanobind/stl/string.h>

#include <stdexcept>
#include <vector>

namespace mosaic::python {

namespace {

using nb::dlpack::dtype_code;

struct TypeMapping {
    ElementType type;
    dtype_code code;
    uint8_t bits;
};

// numpy has no bf16, so bf16 is left out: a bf16 tensor has no numpy view.
constexpr TypeMapping kTypes[] = {
    {ElementType::f32, dtype_code::Float, 32},  {ElementType::f16, dtype_code::Float, 16},
    {ElementType::f64, dtype_code::Float, 64},
    {ElementType::i8, dtype_code::Int, 8},      {ElementType::u8, dtype_code::UInt, 8},
    {ElementType::i16, dtype_code::Int, 16},    {ElementType::u16, dtype_code::UInt, 16},
    {ElementType::i32, dtype_code::Int, 32},    {ElementType::u32, dtype_code::UInt, 32},
    {ElementType::i64, dtype_code::Int, 64},    {ElementType::u64, dtype_code::UInt, 64},
    {ElementType::boolean, dtype_code::Bool, 8},
};

[[noreturn]] void unsupported_dtype(nb::handle array, const std::string& what) {
    throw nb::type_error((what + ": numpy dtype " + text_of(array.attr("dtype")) +
                          " has no Mosaic element type")
                             .c_str());
}

ElementType element_type_of(nb::dlpack::dtype dtype, nb::handle array, const std::string& what) {
    for (const auto& m : kTypes)
        if (dtype.code == static_cast<uint8_t>(m.code) && dtype.bits == m.bits && dtype.lanes == 1) return m.type;
    unsupported_dtype(array, what);
}

nb::dlpack::dtype dtype_of(ElementType type) {
    for (const auto& m : kTypes)
        if (m.type == type) return {static_cast<uint8_t>(m.code), m.bits, 1};
    throw nb::type_error((std::string("element type ") + to_string(type) + " has no numpy dtype").c_str());
}

nb::handle numpy_array_type() {
    static nb::object type = nb::module_::import_("numpy").attr("ndarray");
    return type;
}

}  // namespace

PyTensor tensor_from_array(nb::handle array, const std::string& what) {
    if (!nb::isinstance(array, numpy_array_type()))
        throw nb::type_error((what + ": expected a numpy.ndarray or mosaic.Tensor, got " +
                              type_name_of(array))
                                 .c_str());
    nb::object contiguous = nb::borrow(array);
    if (!nb::cast<bool>(array.attr("flags").attr("c_contiguous")))
        contiguous = nb::module_::import_("numpy").attr("ascontiguousarray")(array);
    // No implicit conversion: a dtype that does not match the model is an error, not a silent copy.
    nb::ndarray<nb::ro, nb::device::cpu> view;
    if (!nb::try_cast(contiguous, view, false)) unsupported_dtype(contiguous, what);  // e.g. complex, object
    const ElementType type = element_type_of(view.dtype(), contiguous, what);
    Shape shape(view.ndim());
    for (size_t i = 0; i < view.ndim(); ++i) shape[i] = view.shape(i);
    return {Tensor(type, shape, const_cast<void*>(view.data())), contiguous};
}

PyTensor tensor_from_value(nb::handle value, const std::string& what) {
    if (nb::isinstance<PyTensor>(value)) return nb::cast<PyTensor>(value);
    return tensor_from_array(value, what);
}

nb::object numpy_view(const Tensor& tensor, nb::handle owner) {
    std::vector<size_t> shape(tensor.get_shape().begin(), tensor.get_shape().end());
    nb::ndarray<nb::numpy> view(const_cast<void*>(tensor.data()), shape.size(), shape.data(), owner, nullptr,
                                dtype_of(tensor.get_element_type()));
    return nb::cast(view, nb::rv_policy::reference);
}

nb::object numpy_copy(const Tensor& tensor) {
    if (tensor.is_remote()) {  // an output bound to device memory: its elements come to the host
        Tensor host(tensor.get_element_type(), tensor.get_shape());
        tensor.copy_to(host);
        return numpy_copy(host);
    }
    // The capsule keeps the tensor's buffer alive only for as long as the copy takes.
    nb::capsule owner(new Tensor(tensor), [](void* p) noexcept { delete static_cast<Tensor*>(p); });
    return numpy_view(tensor, owner).attr("copy")();
}

nb::object numpy_dtype(ElementType type) {
    const nb::dlpack::dtype d = dtype_of(type);
    const char kind = d.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Int)    ? 'i'
                      : d.code == static_cast<uint8_t>(nb::dlpack::dtype_code::UInt) ? 'u'
                      : d.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bool) ? 'b'
                                                                                      : 'f';
    return nb::module_::import_("numpy").attr("dtype")(std::string(1, kind) + std::to_string(d.bits / 8));
}

}  // namespace mosaic::python
