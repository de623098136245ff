#include "conformance.hpp"
#include "summary.hpp"

#include <mosaic/onnx.hpp>
#include <mosaic/serialize.hpp>

#include <algorithm>
#include <cstring>
#include <set>
#include <cmath>
#include <filesystem>
#include <map>
#include <unistd.h>
#include <sstream>

namespace mosaic::cli {

namespace fs = std::filesystem;

namespace {

struct DataSet {
    std::vector<std::pair<std::string, Tensor>> inputs;  // (name, value), in file order
    std::vector<Tensor> outputs;
};

std::vector<std::string> numbered_files(const fs::path& dir, const std::string& prefix) {
    std::vector<std::string> files;
    for (int i = 0;; ++i) {
        fs::path p = dir / (prefix + std::to_string(i) + ".pb");
        if (!fs::exists(p)) break;
        files.push_back(p.string());
    }
    return files;
}

std::vector<DataSet> read_data_sets(const fs::path& folder) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(folder))
        if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    std::vector<DataSet> sets;
    for (const auto& d : dirs) {
        DataSet s;
        for (const auto& f : numbered_files(d, "input_")) {
            std::string name;
            Tensor t = onnx::read_tensor_file(f, &name);
            s.inputs.emplace_back(name, std::move(t));
        }
        for (const auto& f : numbered_files(d, "output_")) s.outputs.push_back(onnx::read_tensor_file(f));
        sets.push_back(std::move(s));
    }
    return sets;
}

// ONNX 1.12's test data stores bfloat16 tensors as uint16 (numpy has no bfloat16): read them as
// bf16 where the model says bf16.
Tensor as_type(const Tensor& t, ElementType wanted) {
    if (wanted == ElementType::bf16 && t.get_element_type() == ElementType::u16) {
        Tensor out(ElementType::bf16, t.get_shape());
        std::memcpy(out.data(), t.data(), t.get_byte_size());
        return out;
    }
    return t;
}

// Empty when equal within tolerance, else what differs.
std::string compare(const Tensor& got, const Tensor& expected_stored, const Tolerance& tol) {
    const Tensor expected = as_type(expected_stored, got.get_element_type());
    if (got.get_element_type() != expected.get_element_type())
        return std::string("element type ") + to_string(got.get_element_type()) + ", expected " + to_string(expected.get_element_type());
    if (got.get_shape() != expected.get_shape())
        return "shape " + to_string(got.get_shape()) + ", expected " + to_string(expected.get_shape());
    const bool floating = is_floating(got.get_element_type());
    size_t bad = 0, first = 0;
    double first_got = 0, first_expected = 0;
    for (size_t i = 0; i < got.get_size(); ++i) {
        const double a = element_as_double(got, i);
        const double b = element_as_double(expected, i);
        bool ok;
        if (!floating) ok = a == b;
        else if (std::isnan(b)) ok = std::isnan(a);
        else if (std::isinf(b)) ok = a == b;
        else ok = std::fabs(a - b) <= tol.atol + tol.rtol * std::fabs(b);
        if (!ok && bad++ == 0) first = i, first_got = a, first_expected = b;
    }
    if (bad == 0) return "";
    std::ostringstream s;
    s << bad << " of " << got.get_size() << " values differ; first at index " << first << ": got " << first_got
      << ", expected " << first_expected;
    return s.str();
}

ElementType input_type(const Model& model, const std::string& name) {
    for (Node* p : model.get_parameters())
        if (Model::input_name(*p) == name) return p->output_type(0);
    return ElementType::undefined;
}

bool needs_input_values(const std::string& error) {
    return error.find("must be known when the model is read") != std::string::npos ||
           error.find("must be a constant") != std::string::npos;
}

// Input i's shape in every data set: a dimension that differs between sets stays dynamic, so one
// compiled model runs them all at their own shapes (a detector's sets at two image sizes).
Shape shape_across(const std::vector<DataSet>& sets, size_t i) {
    Shape shape = sets[0].inputs[i].second.get_shape();
    for (const DataSet& set : sets) {
        if (set.inputs.size() != sets[0].inputs.size()) return sets[0].inputs[i].second.get_shape();
        const Shape& other = set.inputs[i].second.get_shape();
        if (other.size() != shape.size()) return sets[0].inputs[i].second.get_shape();
        for (size_t d = 0; d < shape.size(); ++d)
            if (other[d] != shape[d]) shape[d] = kDynamicDim;
    }
    return shape;
}

// `t`'s shape with every dimension dynamic, but for an integer tensor's last one: a 1-D integer
// input is a shape, axes or pads whose length a model fixes (its rank), and the last axis of indices
// says how many axes each names (GatherND); a model's computed ones are as static.
Shape dynamic_shape(const Tensor& t) {
    Shape shape(t.get_shape().size(), kDynamicDim);
    if (is_integral(t.get_element_type()) && !shape.empty()) shape.back() = t.get_shape().back();
    return shape;
}

// Reads the model with the data sets' shapes. When a value-dependent shape needs an input's value
// (a Reshape target fed as a graph input, say), retries with inputs bound as constants (the first
// data set's): first all but the first input, then all of them. `bound` receives the names of the
// bound inputs.
std::shared_ptr<Model> read_for(const std::string& model_path, const std::vector<DataSet>& sets,
                                std::set<std::string>& bound, bool bind_inputs, bool dynamic) {
    const DataSet& set = sets[0];
    const size_t n = set.inputs.size();
    auto attempt = [&](size_t bind_from) {
        onnx::ReadOptions options;
        bound.clear();
        for (size_t i = 0; i < n; ++i) {
            const auto& [name, t] = set.inputs[i];
            if (i < bind_from) options.input_shapes[name] = dynamic ? dynamic_shape(t) : shape_across(sets, i);
            else options.input_values[name] = t, bound.insert(name);
        }
        return onnx::read_onnx(model_path, options);
    };
    if (!bind_inputs || dynamic) return attempt(n);
    std::vector<size_t> tries{n};
    if (n >= 2) tries.push_back(1);
    for (size_t bind_from : tries) {
        try {
            return attempt(bind_from);
        } catch (const ModelError& e) {
            if (!needs_input_values(e.what())) throw;
        }
    }
    return attempt(0);
}

}  // namespace

std::vector<std::string> find_test_folders(const std::string& path) {
    std::vector<std::string> out;
    auto is_test = [](const fs::path& p) { return fs::exists(p / "model.onnx") || fs::exists(p / "model.xml"); };
    if (is_test(path)) return {path};
    if (!fs::is_directory(path)) throw std::runtime_error("'" + path + "' is not a test folder or a folder of them");
    for (const auto& e : fs::directory_iterator(path))
        if (e.is_directory() && is_test(e.path())) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

namespace {

// Some test data (ONNX's pytorch-converted tests, say) leaves tensor names empty; such inputs are
// the model's graph inputs in order.
void name_inputs_by_position(const std::string& model_path, std::vector<DataSet>& sets) {
    bool unnamed = false;
    for (const auto& s : sets)
        for (const auto& [name, t] : s.inputs) unnamed = unnamed || name.empty();
    if (!unnamed) return;
    onnx::ReadOptions probe;
    probe.dynamic_dims_to_one = true;
    // The model is held while its nodes are read (a temporary would free them under the loop).
    const std::shared_ptr<Model> model = onnx::read_onnx(model_path, probe);
    std::vector<std::string> names;
    for (Node* p : model->get_parameters()) names.push_back(Model::input_name(*p));
    for (auto& s : sets)
        for (size_t i = 0; i < s.inputs.size() && i < names.size(); ++i)
            if (s.inputs[i].first.empty()) s.inputs[i].first = names[i];
}

// An IR test folder (model.xml, e.g. written by OpenVINO's ovc) reshaped to the data set's shapes.
std::shared_ptr<Model> read_ir_for(Core& core, const std::string& xml, const DataSet& set) {
    std::shared_ptr<Model> model = core.read_model(xml);
    std::map<std::string, PartialShape> shapes;
    for (const auto& [name, t] : set.inputs) shapes[name] = t.get_shape();
    model->reshape(shapes);
    return model;
}

// The model written as IR v11 and read back, to check that conversion keeps the outputs.
std::shared_ptr<Model> through_ir(Core& core, const Model& model, const std::string& test_name) {
    const fs::path dir = fs::temp_directory_path() / ("mosaic_conformance_ir_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string xml = (dir / (test_name + ".xml")).string(), bin = (dir / (test_name + ".bin")).string();
    serialize(model, xml, bin);
    std::shared_ptr<Model> back = core.read_model(xml);
    fs::remove(xml);
    fs::remove(bin);
    return back;
}

// "" when the device's query takes every op of the model, else the first op it leaves out with the
// device's reason: a test of an op the device does not have is unsupported there, not failed (a
// device with fewer ops than REFERENCE, e.g. GPU, runs the same test folders).
std::string ops_the_device_lacks(Core& core, const std::shared_ptr<Model>& model, const std::string& device) {
    // A query needs static shapes; a model whose shapes are known only when it runs (a shape given
    // as an input, NonZero of computed data) is asked at each shape by its compilations instead.
    for (const Node* n : model->get_ops())
        for (size_t o = 0; o < n->output_count(); ++o)
            if (!is_static(n->output_shape(o))) return "";
    const QueryResult q = core.query_model_details(model, device);
    if (q.unsupported.empty()) return "";
    const auto& [op, reasons] = *q.unsupported.begin();
    std::string detail = std::to_string(q.unsupported.size()) + " op(s) not supported on " + device + ", e.g. '" + op + "'";
    for (const auto& [by, reason] : reasons) detail += "; " + by + ": " + reason;
    return detail;
}

}  // namespace

ConformanceResult run_conformance_test(Core& core, const std::string& folder, const std::string& device,
                                       const Tolerance& tolerance, const ReadMode& mode) {
    ConformanceResult r;
    r.name = fs::path(folder).filename().string();
    if (r.name.empty()) r.name = fs::path(folder).parent_path().filename().string();
    try {
        std::vector<DataSet> sets;
        try {
            sets = read_data_sets(folder);
        } catch (const ModelError&) {
            // Sequence and optional values are stored in other protos; the model says whether
            // it uses them (then the test is unsupported), else the data is corrupt.
            const fs::path onnx_file = fs::path(folder) / "model.onnx";
            onnx::ReadOptions probe;
            probe.dynamic_dims_to_one = true;
            if (fs::exists(onnx_file)) onnx::read_onnx(onnx_file.string(), probe);
            throw;
        }
        if (sets.empty()) throw std::runtime_error("no test_data_set_* folder");
        std::set<std::string> bound;
        const fs::path onnx_file = fs::path(folder) / "model.onnx";
        if (fs::exists(onnx_file)) name_inputs_by_position(onnx_file.string(), sets);
        std::shared_ptr<Model> model = fs::exists(onnx_file)
                                           ? read_for(onnx_file.string(), sets, bound, mode.bind_inputs, mode.dynamic)
                                           : read_ir_for(core, (fs::path(folder) / "model.xml").string(), sets[0]);
        if (mode.via_ir) model = through_ir(core, *model, r.name);
        const std::string lacking = ops_the_device_lacks(core, model, device);
        if (!lacking.empty()) {
            r.verdict = Verdict::unsupported;
            r.detail = lacking;
            return r;
        }
        CompiledModel compiled = core.compile_model(model, device);
        const std::vector<Node*> results = model->get_results();
        for (size_t s = 0; s < sets.size(); ++s) {
            InferRequest request = compiled.create_infer_request();
            for (const auto& [name, t] : sets[s].inputs)
                if (!bound.count(name)) request.set_tensor(name, as_type(t, input_type(*model, name)));
            request.infer();
            if (sets[s].outputs.size() != results.size())
                throw std::runtime_error("the model has " + std::to_string(results.size()) + " outputs, the data set " +
                                         std::to_string(sets[s].outputs.size()));
            for (size_t o = 0; o < results.size(); ++o) {
                const std::string name = Model::output_name(*results[o]);
                std::string diff = compare(request.get_tensor(name), sets[s].outputs[o], tolerance);
                if (!diff.empty()) {
                    r.detail = "data set " + std::to_string(s) + ", output '" + name + "': " + diff;
                    return r;
                }
            }
        }
        r.verdict = Verdict::pass;
        for (const auto& name : bound) r.detail += (r.detail.empty() ? "inputs bound as constants: " : ", ") + name;
    } catch (const onnx::UnsupportedError& e) {
        r.verdict = Verdict::unsupported;
        r.detail = e.what();
    } catch (const std::exception& e) {
        r.detail = e.what();
    }
    return r;
}

}  // namespace mosaic::cli
