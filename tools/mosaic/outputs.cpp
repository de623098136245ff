#include "outputs.hpp"

#include "common.hpp"
#include "npy.hpp"

#include <filesystem>
#include <set>

namespace mosaic::cli {

namespace {

Tensor widen_bf16(const Tensor& t) {
    Tensor out(ElementType::f32, t.get_shape());
    const uint16_t* src = t.data<uint16_t>();
    float* dst = out.data<float>();
    for (size_t i = 0; i < t.get_size(); ++i) dst[i] = bf16_to_f32(src[i]);
    return out;
}

}  // namespace

std::string sanitize_file_name(const std::string& name, size_t index) {
    std::string out;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                        c == '-' || c == '_';
        out += ok ? c : '_';
    }
    if (out.find_first_not_of('.') == std::string::npos) out = "output_" + std::to_string(index);
    return out;
}

void write_outputs(const std::string& dir, const CompiledModel& compiled, const InferRequest& request,
                   std::ostream& log) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir)) throw UsageError("cannot create output directory '" + dir + "'" +
                                                 (ec ? ": " + ec.message() : ""));
    std::set<std::string> used;
    const auto& outputs = compiled.outputs();
    for (size_t i = 0; i < outputs.size(); ++i) {
        std::string stem = sanitize_file_name(outputs[i].name, i);
        for (int n = 1; !used.insert(stem).second; ++n) stem = sanitize_file_name(outputs[i].name, i) + "_" + std::to_string(n);
        const std::string path = (fs::path(dir) / (stem + ".npy")).string();
        Tensor t = request.get_tensor(outputs[i].name);
        const bool widened = t.get_element_type() == ElementType::bf16;
        npy::write(path, widened ? widen_bf16(t) : t);
        log << "Wrote output '" << outputs[i].name << "' to " << path << (widened ? " (bf16 widened to f32)" : "")
            << "\n";
    }
}

}  // namespace mosaic::cli
