#include "verify_plugin_checks.hpp"

#include "common.hpp"
#include "compare.hpp"
#include "inputs.hpp"
#include "op_case_model.hpp"

#include <mosaic/mosaic.hpp>
#include <mosaic/onnx.hpp>
#include <mosaic/plugin_abi.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

namespace mosaic::cli {

namespace {

CheckResult pass(const std::string& name, const std::string& detail) { return {name, Outcome::pass, detail}; }
CheckResult fail(const std::string& name, const std::string& detail) { return {name, Outcome::fail, detail}; }
CheckResult skip(const std::string& name, const std::string& detail) { return {name, Outcome::skip, detail}; }

// The model the request checks run: x[2,3] -> Relu -> y. Every bundled device runs Relu.
std::shared_ptr<Model> probe_model() {
    ModelBuilder b("verify_plugin_relu");
    auto x = b.parameter("x", ElementType::f32, {2, 3});
    b.result(b.op("Relu", {x}), "y");
    return b.build();
}

std::vector<float> probe_input(size_t seed) {
    std::vector<float> v(6);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((seed * 7 + i * 3) % 11) - 5.f;
    return v;
}

std::vector<float> relu_of(std::vector<float> v) {
    for (float& x : v) x = x > 0 ? x : 0;
    return v;
}

// Runs the probe model on `request` synchronously; "" when the result is right, else why not.
std::string run_probe(InferRequest& request, size_t seed) {
    const std::vector<float> input = probe_input(seed);
    request.set_input_tensor(Tensor::from_vector({2, 3}, ElementType::f32, input));
    request.infer();
    const std::vector<float> got = request.get_output_tensor().to_vector<float>();
    if (got != relu_of(input)) return "Relu computed " + nlohmann::json(got).dump() + " for " + nlohmann::json(input).dump();
    return "";
}

// The probe model compiled on the device, or the reason it cannot be (the check then fails: every
// device that passes "ops" for Relu must compile it).
std::unique_ptr<CompiledModel> compile_probe(Core& core, const VerifyOptions& o, std::string& why) {
    std::unique_ptr<CompiledModel> compiled;
    why = error_of([&] { compiled = std::make_unique<CompiledModel>(core.compile_model(probe_model(), o.device)); });
    if (!why.empty()) why = "compiling x -> Relu -> y on " + o.device + " failed: " + why;
    return compiled;
}

std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ") {
    std::string s;
    for (const auto& i : items) s += (s.empty() ? "" : separator) + i;
    return s;
}

}  // namespace

std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
        return "";
    } catch (const std::exception& e) {
        return std::string(e.what()).empty() ? "(an exception without a message)" : e.what();
    } catch (...) {
        return "(an exception that is not a std::exception)";
    }
}

CheckResult check_abi(Core& core, const VerifyOptions& o) {
    const std::string name = "abi";
    PluginInfo info;
    // Loading runs the host's own table checks (major version, size, required members).
    if (std::string why = error_of([&] { info = core.get_plugin_info(o.device); }); !why.empty())
        return fail(name, "the plugin does not load: " + why);
    const std::string version = std::to_string(info.abi_major) + "." + std::to_string(info.abi_minor);
    if (info.name.empty() || info.version.empty())
        return fail(name, "plugin_name and plugin_version must be non-empty static strings (got '" + info.name + "', '" +
                              info.version + "')");
    // A table that declares a minor must be large enough for that minor's members: the host reads
    // them by MOSAIC_HAS_MEMBER, so a short table silently loses them.
    const size_t needed_1_1 = offsetof(mosaic_plugin_api, estimate_cost) + sizeof(mosaic_plugin_api::estimate_cost);
    if (info.abi_minor >= 1 && info.table_size < needed_1_1)
        return fail(name, "the table declares ABI " + version + " but its struct_size is " + std::to_string(info.table_size) +
                              " bytes, which ends before estimate_cost (ABI 1.1, " + std::to_string(needed_1_1) +
                              " bytes): set struct_size = sizeof(mosaic_plugin_api)");
    return pass(name, info.name + " " + info.version + " from " + info.library + ": ABI " + version + " (host " +
                          std::to_string(MOSAIC_ABI_VERSION_MAJOR) + "." + std::to_string(MOSAIC_ABI_VERSION_MINOR) +
                          "), table of " + std::to_string(info.table_size) + " bytes; optional members: " +
                          (info.optional_members.empty() ? "none" : joined(info.optional_members)));
}

CheckResult check_properties(Core& core, const VerifyOptions& o) {
    const std::string name = "properties";
    PropertyValue supported;
    if (std::string why = error_of([&] { supported = core.get_property(o.device, "SUPPORTED_PROPERTIES"); }); !why.empty())
        return fail(name, "reading SUPPORTED_PROPERTIES failed: " + why);
    std::vector<std::string> problems;
    size_t round_trips = 0, read_only = 0;
    for (const auto& entry : supported) {  // canonical: the host checked the shape
        const std::string key = entry["name"];
        if (key == "SUPPORTED_PROPERTIES") continue;
        PropertyValue value;
        if (std::string why = error_of([&] { value = core.get_property(o.device, key); }); !why.empty()) {
            problems.push_back("SUPPORTED_PROPERTIES lists " + key + " but reading it fails: " + why);
            continue;
        }
        if (entry["mutable"].get<bool>()) {
            // Setting a key to the value it already has must succeed and change nothing.
            if (std::string why = error_of([&] { core.set_property(o.device, {{key, value}}); }); !why.empty()) {
                problems.push_back(key + " is listed as mutable but setting it to its own value " + value.dump() +
                                   " fails: " + why);
                continue;
            }
            PropertyValue again;
            if (std::string why = error_of([&] { again = core.get_property(o.device, key); }); !why.empty())
                problems.push_back("reading " + key + " after setting it fails: " + why);
            else if (again != value)
                problems.push_back(key + " reads back as " + again.dump() + " after setting it to " + value.dump());
            else
                ++round_trips;
        } else {
            if (error_of([&] { core.set_property(o.device, {{key, value}}); }).empty())
                problems.push_back(key + " is listed as read-only (\"mutable\": false) but set_property accepted it");
            else
                ++read_only;
        }
    }
    const std::string unknown = "MOSAIC_VERIFY_NO_SUCH_KEY";
    if (error_of([&] { core.set_property(o.device, {{unknown, 1}}); }).empty())
        problems.push_back("set_property accepted the unknown key " + unknown +
                           "; the ABI requires MOSAIC_ERROR_NOT_FOUND for a key the device does not list");
    if (error_of([&] { core.get_property(o.device, unknown); }).empty())
        problems.push_back("get_property answered for the unknown key " + unknown + " instead of MOSAIC_ERROR_NOT_FOUND");
    if (error_of([&] { core.compile_model(probe_model(), o.device, {{unknown, 1}}); }).empty())
        problems.push_back("compile_model accepted the unknown property " + unknown);
    if (!problems.empty()) return fail(name, joined(problems, "; "));
    return pass(name, std::to_string(supported.size()) + " keys listed and readable; " + std::to_string(round_trips) +
                          " mutable keys set to their own value and read back; " + std::to_string(read_only) +
                          " read-only keys refused; an unknown key refused by set, get and compile");
}

CheckResult check_ops(Core& core, const VerifyOptions& o) {
    const std::string name = "ops";
    if (o.op_cases.empty())
        return skip(name, "no op cases found: pass --op-cases DIR (tests/ops/cases in the source tree, "
                          "share/mosaic/op_cases where Mosaic is installed)");
    std::vector<op_cases::OpCaseSpec> cases;
    if (std::string why = error_of([&] { cases = op_cases::load_op_cases(o.op_cases); }); !why.empty())
        return fail(name, "the op cases in '" + o.op_cases + "' cannot be read: " + why);

    std::map<std::string, size_t> claimed;  // op type -> cases claimed and run
    size_t unclaimed = 0;
    std::vector<std::string> failures;
    for (const auto& c : cases) {
        if (!c.error.empty()) continue;  // shape-inference error cases build no model
        if (o.cases_per_op && claimed[c.op] >= o.cases_per_op) continue;
        std::shared_ptr<Model> model;
        const std::string build_error = error_of([&] { model = op_cases::op_case_model(c); });
        if (!build_error.empty()) continue;  // an op this Mosaic cannot build is nobody's claim
        SupportedOpsMap supported;
        if (std::string why = error_of([&] { supported = core.query_model(model, o.device); }); !why.empty()) {
            failures.push_back(c.id + ": query failed: " + why);
            continue;
        }
        if (!supported.count(op_cases::kOpUnderTest)) {
            ++unclaimed;
            continue;
        }
        ++claimed[c.op];
        // The same inputs on the device and on REFERENCE; the device must agree with REFERENCE.
        auto run = [&](const std::string& device) {
            CompiledModel compiled = core.compile_model(model, device);
            InferRequest request = compiled.create_infer_request();
            op_cases::set_op_case_inputs(request, c);
            request.infer();
            std::vector<Tensor> outs;
            for (size_t k = 0; k < c.outputs.size(); ++k) outs.push_back(request.get_tensor("out" + std::to_string(k)));
            return outs;
        };
        std::vector<Tensor> expected, got;
        if (!error_of([&] { expected = run(o.reference); }).empty()) continue;  // REFERENCE's own gap, not the plugin's
        if (std::string why = error_of([&] { got = run(o.device); }); !why.empty()) {
            failures.push_back(c.id + " (" + c.op + ", claimed by query): " + why);
            continue;
        }
        for (size_t k = 0; k < expected.size(); ++k) {
            const std::string what = c.id + " output " + std::to_string(k);
            if (got[k].get_element_type() != expected[k].get_element_type() || got[k].get_shape() != expected[k].get_shape()) {
                failures.push_back(what + ": " + to_string(got[k].get_element_type()) + to_string(got[k].get_shape()) +
                                   ", REFERENCE gives " + to_string(expected[k].get_element_type()) +
                                   to_string(expected[k].get_shape()));
                continue;
            }
            op_cases::OpCaseTensor reference{expected[k].get_element_type(), expected[k].get_shape(), false, {}};
            const auto* bytes = static_cast<const uint8_t*>(expected[k].data());
            reference.bytes.assign(bytes, bytes + expected[k].get_byte_size());
            const auto bad = op_cases::mismatches(reference, got[k].data(), std::max(c.rtol, o.rtol),
                                                  std::max(c.atol, o.atol), what, 3);
            if (!bad.empty()) failures.push_back(joined(bad) + " (REFERENCE's value expected)");
        }
    }
    size_t total = 0;
    std::string ops;
    for (const auto& [op, n] : claimed) {
        total += n;
        if (n) ops += (ops.empty() ? "" : ", ") + op;
    }
    if (!failures.empty()) {
        const size_t shown = std::min<size_t>(failures.size(), 5);
        return fail(name, std::to_string(failures.size()) + " op case(s) failed or differ from REFERENCE (" +
                              std::to_string(total) + " claimed and run): " +
                              joined({failures.begin(), failures.begin() + static_cast<long>(shown)}, "; ") +
                              (shown < failures.size() ? "; ..." : ""));
    }
    if (total == 0) return skip(name, "the device claims none of the op cases (" + std::to_string(unclaimed) + " queried)");
    return pass(name, std::to_string(total) + " claimed op cases equal to REFERENCE (ops: " + ops + "); " +
                          std::to_string(unclaimed) + " cases not claimed");
}

// Requests whose plugin never completed them, and their models: the plugin still owns them, so
// they are never released or reused. Reachable from this static (not leaked, for LeakSanitizer)
// and never destroyed (a destructor would wait for the inference forever).
struct Abandoned {
    std::vector<InferRequest> requests;
    std::vector<CompiledModel> models;
};
Abandoned& abandoned() {
    static Abandoned* kept = new Abandoned;
    return *kept;
}

CheckResult check_async(Core& core, const VerifyOptions& o) {
    const std::string name = "async";
    std::string why;
    auto compiled = compile_probe(core, o, why);
    if (!compiled) return fail(name, why);
    // Shared with the callback, which may outlive this function when the plugin misbehaves.
    struct Calls {
        std::atomic<int> count{0};
        std::mutex mutex;
        std::string error;
    };
    auto calls = std::make_shared<Calls>();
    auto request = std::make_unique<InferRequest>(compiled->create_infer_request());
    request->set_callback([calls](std::exception_ptr e) {
        if (e) {
            std::lock_guard<std::mutex> lock(calls->mutex);
            try { std::rethrow_exception(e); } catch (const std::exception& x) { calls->error = x.what(); } catch (...) {}
        }
        ++calls->count;
    });
    const size_t runs = 3;
    for (size_t run = 0; run < runs; ++run) {
        const std::vector<float> input = probe_input(run);
        request->set_input_tensor(Tensor::from_vector({2, 3}, ElementType::f32, input));
        if (std::string e = error_of([&] { request->start_async(); }); !e.empty())
            return fail(name, "start_async failed: " + e);
        bool finished = false;
        if (std::string e = error_of([&] { finished = request->wait_for(o.timeout); }); !e.empty())
            return fail(name, "the asynchronous inference failed: " + e);
        if (!finished) {
            // The plugin still owns the request (the ABI says `done` ends an inference), so it can
            // be neither released nor reused: it is abandoned, and the process exits with it.
            abandoned().requests.push_back(std::move(*request));
            abandoned().models.push_back(std::move(*compiled));
            return fail(name, "start_async returned but the inference did not complete within " +
                                  std::to_string(o.timeout.count()) +
                                  " ms: the plugin never called `done` (the ABI requires exactly one call per start_async)");
        }
        if (calls->count != static_cast<int>(run + 1))
            return fail(name, "the completion callback ran " + std::to_string(calls->count.load()) + " times for " +
                                  std::to_string(run + 1) + " start_async calls (exactly one each is required)");
        {
            std::lock_guard<std::mutex> lock(calls->mutex);
            if (!calls->error.empty()) return fail(name, "the callback received an error: " + calls->error);
        }
        const std::vector<float> got = request->get_output_tensor().to_vector<float>();
        if (got != relu_of(input)) return fail(name, "asynchronous Relu computed " + nlohmann::json(got).dump());
    }
    return pass(name, std::to_string(runs) + " start_async calls each completed within " +
                          std::to_string(o.timeout.count()) + " ms with one callback and the right result");
}

CheckResult check_threads(Core& core, const VerifyOptions& o) {
    const std::string name = "threads";
    std::string why;
    auto compiled = compile_probe(core, o, why);
    if (!compiled) return fail(name, why);
    std::mutex mutex;
    std::vector<std::string> problems;
    std::vector<std::thread> threads;
    for (size_t t = 0; t < o.threads; ++t)
        threads.emplace_back([&, t] {
            std::string e = error_of([&] {
                InferRequest request = compiled->create_infer_request();
                for (size_t i = 0; i < o.inferences_per_thread; ++i)
                    if (std::string wrong = run_probe(request, t * 1000 + i); !wrong.empty())
                        throw std::runtime_error("inference " + std::to_string(i) + ": " + wrong);
            });
            if (!e.empty()) {
                std::lock_guard<std::mutex> lock(mutex);
                problems.push_back("thread " + std::to_string(t) + ": " + e);
            }
        });
    for (auto& th : threads) th.join();
    if (!problems.empty()) return fail(name, joined(problems, "; "));
    return pass(name, std::to_string(o.threads) + " threads, each with its own request on one compiled model, ran " +
                          std::to_string(o.inferences_per_thread) + " inferences each with the right results");
}

CheckResult check_export(Core& core, const VerifyOptions& o) {
    const std::string name = "export";
    PluginInfo info = core.get_plugin_info(o.device);
    auto offers = [&](const char* member) {
        return std::find(info.optional_members.begin(), info.optional_members.end(), member) != info.optional_members.end();
    };
    if (!offers("export_model")) return skip(name, "the plugin's table has no export_model");
    std::string why;
    auto compiled = compile_probe(core, o, why);
    if (!compiled) return fail(name, why);
    std::stringstream blob;
    if (std::string e = error_of([&] { compiled->export_model(blob); }); !e.empty()) {
        // The ABI lets a filled member decline with MOSAIC_ERROR_NOT_SUPPORTED.
        if (e.find("not supported") != std::string::npos || e.find("cannot export") != std::string::npos)
            return skip(name, "the plugin declines export: " + e);
        return fail(name, "export_model failed: " + e);
    }
    if (!offers("import_model")) return fail(name, "the plugin exports but its table has no import_model to read the blob");
    std::string wrong;
    if (std::string e = error_of([&] {
            CompiledModel imported = core.import_model(blob, o.device);
            InferRequest request = imported.create_infer_request();
            wrong = run_probe(request, 42);
        });
        !e.empty())
        return fail(name, "importing the exported blob failed: " + e);
    if (!wrong.empty()) return fail(name, "the imported model computes wrong results: " + wrong);
    return pass(name, "exported " + std::to_string(blob.str().size()) + " bytes, imported them and ran the result correctly");
}

CheckResult check_bad_inputs(Core& core, const VerifyOptions& o) {
    const std::string name = "bad-inputs";
    std::string why;
    auto compiled = compile_probe(core, o, why);
    if (!compiled) return fail(name, why);
    InferRequest request = compiled->create_infer_request();
    struct Bad {
        std::string what;
        std::function<void()> attempt;
    };
    const std::vector<Bad> bad = {
        {"a [3,2] tensor for the [2,3] input",
         [&] { request.set_input_tensor(Tensor(ElementType::f32, {3, 2})); request.infer(); }},
        {"a [2,3,1] tensor (wrong rank)", [&] { request.set_input_tensor(Tensor(ElementType::f32, {2, 3, 1})); request.infer(); }},
        {"an i32 tensor for the f32 input", [&] { request.set_input_tensor(Tensor(ElementType::i32, {2, 3})); request.infer(); }},
        {"an input name the model does not have", [&] { request.set_tensor("no_such_input", Tensor(ElementType::f32, {2, 3})); }},
        {"a blob that is not an exported model",
         [&] {
             std::stringstream garbage("this is not a compiled model");
             core.import_model(garbage, o.device);
         }},
    };
    std::vector<std::string> problems;
    for (const auto& b : bad)
        if (error_of(b.attempt).empty()) problems.push_back(b.what + " was accepted");
    // After refusing bad inputs the request must still work.
    if (std::string e = error_of([&] {
            if (std::string wrong = run_probe(request, 7); !wrong.empty()) throw std::runtime_error(wrong);
        });
        !e.empty())
        problems.push_back("the request no longer works after the bad inputs: " + e);
    if (!problems.empty()) return fail(name, joined(problems, "; "));
    return pass(name, std::to_string(bad.size()) + " bad inputs refused with errors (wrong shape, rank, type, input name, "
                                                   "import blob); the request still works after them");
}

namespace fs = std::filesystem;

CheckResult check_model(Core& core, const VerifyOptions& o) {
    const std::string name = "model";
    if (o.model.empty()) return skip(name, "no --model given");
    std::vector<ResolvedShape> resolved;
    const std::shared_ptr<Model> model = load_model_for_inputs(core, o.model, {}, {}, &resolved);
    // The inputs of a test folder's first data set (a fused chain `mosaic compare --save-case` wrote),
    // by position; else deterministic data.
    std::vector<std::pair<std::string, Tensor>> inputs;
    const fs::path data = fs::path(o.model).parent_path() / "test_data_set_0";
    const std::vector<Node*> parameters = model->get_parameters();
    for (size_t i = 0; i < parameters.size() && fs::exists(data / ("input_" + std::to_string(i) + ".pb")); ++i)
        inputs.emplace_back(Model::input_name(*parameters[i]),
                            onnx::read_tensor_file((data / ("input_" + std::to_string(i) + ".pb")).string()));
    if (inputs.size() != parameters.size()) {
        inputs.clear();
        for (const InputData& in : prepare_inputs(compile_model(core, model, o.reference, {}), {}))
            inputs.emplace_back(in.name, in.tensor);
    }
    CompareSettings settings;
    settings.device = o.device;
    settings.against = o.reference;
    settings.rtol = o.rtol;
    settings.atol = o.atol;
    const ComparisonReport report = compare_devices(core, model, inputs, settings);
    const std::string what = o.model + ": " + report.verdict + " (mosaic compare -m " + o.model + " -d " + o.device +
                             " --save-case DIR makes the op a case)";
    return report.first_divergence < 0 ? pass(name, o.model + ": " + report.verdict) : fail(name, what);
}

std::vector<CheckResult> run_verify_checks(Core& core, const VerifyOptions& options) {
    std::vector<CheckResult> results = {check_abi(core, options)};
    using Check = CheckResult (*)(Core&, const VerifyOptions&);
    const std::pair<const char*, Check> rest[] = {{"properties", check_properties}, {"ops", check_ops},
                                                  {"async", check_async},           {"threads", check_threads},
                                                  {"export", check_export},         {"bad-inputs", check_bad_inputs},
                                                  {"memory", check_memory},         {"model", check_model}};
    for (const auto& [name, check] : rest) {
        if (results.front().outcome == Outcome::fail) {
            results.push_back(skip(name, "the plugin did not pass \"abi\""));
            continue;
        }
        // A check that throws despite itself is reported, not allowed to end the others.
        CheckResult r;
        if (std::string e = error_of([&] { r = check(core, options); }); !e.empty()) r = fail(name, e);
        results.push_back(r);
    }
    return results;
}

}  // namespace mosaic::cli
