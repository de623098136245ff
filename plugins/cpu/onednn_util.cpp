#include "onednn_util.hpp"

#include "executor.hpp"
#include "value_table.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace mosaic::cpu_plugin {

namespace {

const char* isa_name(dnnl::cpu_isa isa) {
    switch (isa) {
        case dnnl::cpu_isa::sse41: return "sse41";
        case dnnl::cpu_isa::avx: return "avx";
        case dnnl::cpu_isa::avx2: return "avx2";
        case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
        case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
        case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
        case dnnl::cpu_isa::avx512_core: return "avx512_core";
        case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
        case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
        case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
        default: return "generic";
    }
}

}  // namespace

bool describable(const Shape& shape) {
    return !shape.empty() && shape.size() <= DNNL_MAX_NDIMS &&
           std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d > 0; });
}

dnnl::memory::dims row_major_strides(const dnnl::memory::dims& dims) {
    dnnl::memory::dims strides(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
    return strides;
}

dnnl::memory::dims dims_of(const Shape& shape) { return dnnl::memory::dims(shape.begin(), shape.end()); }

dnnl::memory::desc plain_desc(const Shape& shape, dnnl::memory::data_type type) {
    const dnnl::memory::dims dims = dims_of(shape);
    return dnnl::memory::desc(dims, type, row_major_strides(dims));
}

dnnl::memory::data_type data_type_of(ElementType type) {
    using dt = dnnl::memory::data_type;
    switch (type) {
        case ElementType::f32: return dt::f32;
        case ElementType::bf16: return dt::bf16;
        case ElementType::f16: return dt::f16;
        case ElementType::i32: return dt::s32;
        case ElementType::i8: return dt::s8;
        case ElementType::u8: return dt::u8;
        case ElementType::boolean: return dt::u8;
        default: return dt::undef;
    }
}

dnnl::memory::desc with_type(const dnnl::memory::desc& desc, dnnl::memory::data_type type) {
    dnnl_memory_desc_t d = desc.data;
    d.data_type = dnnl::memory::convert_to_c(type);
    return dnnl::memory::desc(d);
}

dnnl::memory::desc layout_of(const Value& v) {
    if (!v.is_plain()) return v.layout;
    const dnnl::memory::data_type type = data_type_of(v.type);
    return plain_desc(v.shape, type == dnnl::memory::data_type::undef ? dnnl::memory::data_type::f32 : type);
}

dnnl::memory::desc result_request(const Value& src, const Value& result, const dnnl::memory::dims& dims,
                                  dnnl::memory::data_type type) {
    if (!src.is_plain() && result.kind == Value::Kind::intermediate && dims == dims_of(result.shape))
        return dnnl::memory::desc(dims, type, dnnl::memory::format_tag::any);
    return dnnl::memory::desc(dims, type, row_major_strides(dims));
}

bool fast_implementation(const char* impl_info) { return std::string(impl_info).rfind("ref", 0) != 0; }

void keep_layout(const BuildContext& ctx, size_t value, const dnnl::memory::desc& chosen) {
    const Value& v = ctx.values[value];
    if (v.kind == Value::Kind::intermediate && chosen.dims() == dims_of(v.shape) && chosen != layout_of(v))
        ctx.values.set_layout(value, chosen);
}

dnnl::primitive_attr user_scratchpad_attr() {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return attr;
}

std::string onednn_description() {
    const dnnl::version_t* v = dnnl::version();
    return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) +
           ", " + isa_name(dnnl::get_effective_cpu_isa());
}

bool cpu_has_bf16() {
    const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
    return isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
}

size_t ScratchLayout::reserve(size_t bytes) {
    const size_t offset = total_;
    total_ += (bytes + 63) / 64 * 64;
    return offset;
}

Reorder::Reorder(const dnnl::engine& engine, const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
    dnnl::reorder::primitive_desc pd(engine, from, engine, to, user_scratchpad_attr());
    primitive_ = dnnl::reorder(pd);
    scratchpad_ = pd.scratchpad_desc();
    impl_ = pd.impl_info_str();
}

void Reorder::run(dnnl::stream& stream, const dnnl::memory& from, const dnnl::memory& to, void* scratchpad) const {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    if (scratchpad_.get_size()) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(scratchpad_, from.get_engine(), scratchpad);
    primitive_.execute(stream, args);
}

}  // namespace mosaic::cpu_plugin
