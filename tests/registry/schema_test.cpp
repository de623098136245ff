// config/schemas/*.schema.json against the registry and device files Mosaic ships, and against
// documents that must be rejected (so a schema that accepts everything fails here). Uses Python's
// jsonschema package; skipped, saying so, where it is not installed.
#include "plugins/test_plugins.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <iostream>

namespace mosaic::test {
namespace {

// Validates each "<schema>:<document>" pair given on the command line; prints one line per
// document and exits non-zero when one that should pass fails or one that should fail passes.
const char* kValidator = R"PY(
import json, pathlib, sys
import jsonschema
try:
    from referencing import Registry, Resource
except ImportError:
    Registry = None

schema_dir = pathlib.Path(sys.argv[1])
schemas = {p.name: json.loads(p.read_text()) for p in schema_dir.glob("*.schema.json")}
for name, schema in schemas.items():
    jsonschema.Draft202012Validator.check_schema(schema)

def validator(name):
    schema = schemas[name]
    if Registry is not None:
        registry = Registry().with_resources(
            (n, Resource.from_contents(s)) for n, s in schemas.items())
        return jsonschema.Draft202012Validator(schema, registry=registry)
    # Relative $refs resolve against the schema file's own URI; the store answers for every file.
    store = {(schema_dir / n).resolve().as_uri(): s for n, s in schemas.items()}
    resolver = jsonschema.RefResolver(base_uri=(schema_dir / name).resolve().as_uri(), referrer=schema, store=store)
    return jsonschema.Draft202012Validator(schema, resolver=resolver)

failed = False
for arg in sys.argv[2:]:
    expect, schema_name, document = arg.split("|", 2)
    doc = json.loads(pathlib.Path(document).read_text())
    errors = list(validator(schema_name).iter_errors(doc))
    ok = not errors
    if ok != (expect == "valid"):
        failed = True
        why = "; ".join(f"{list(e.absolute_path)}: {e.message}" for e in errors) or "it was accepted"
        print(f"FAIL {document} against {schema_name}: expected {expect}: {why}")
    else:
        print(f"ok   {document} is {expect} against {schema_name}")
sys.exit(1 if failed else 0)
)PY";

int run(const std::string& command, std::string& output) {
    output.clear();
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return -1;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
    int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// Debian's interpreter first: python3-jsonschema (installed by scripts/install_deps.sh) lives
// there, while a python3 earlier on PATH (pyenv, a venv) may lack it.
std::string python() { return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }

class Schemas : public ::testing::Test {
protected:
    void SetUp() override {
        std::string output;
        if (run(python() + " -c 'import jsonschema'", output) != 0)
            GTEST_SKIP() << "python3 with the jsonschema package is needed to validate the JSON schemas "
                            "(apt install python3-jsonschema or pip install jsonschema): "
                         << output;
        schema_dir = source_config_dir() / "schemas";
        ASSERT_TRUE(fs::exists(schema_dir / "plugins.schema.json")) << schema_dir;
        ASSERT_TRUE(fs::exists(schema_dir / "device-properties.schema.json")) << schema_dir;
    }

    // Each check: {"valid"|"invalid", schema file name, document path}.
    void validate(const std::vector<std::array<std::string, 3>>& checks) {
        const fs::path script = work.dir() / "validate.py";
        {
            std::ofstream out(script);
            out << kValidator;
        }
        std::string command = python() + " " + quote(script.string()) + " " + quote(schema_dir.string());
        for (const auto& c : checks) command += " " + quote(c[0] + "|" + c[1] + "|" + c[2]);
        std::string output;
        const int rc = run(command, output);
        EXPECT_EQ(rc, 0) << output;
        std::cout << output;
    }

    fs::path write(const std::string& name, const std::string& text) {
        const fs::path path = work.dir() / name;
        std::ofstream(path) << text;
        return path;
    }

    fs::path schema_dir;
    TempRegistry work;  // only for its temporary folder
};

TEST_F(Schemas, ShippedRegistryAndDeviceFilesAreValid) {
    std::vector<std::array<std::string, 3>> checks = {
        {"valid", "plugins.schema.json", (source_config_dir() / "plugins.json").string()},
        {"valid", "plugins.schema.json", build_registry().string()},
    };
    for (const auto& entry : fs::directory_iterator(source_config_dir() / "devices"))
        if (entry.path().extension() == ".json")
            checks.push_back({"valid", "device-properties.schema.json", entry.path().string()});
    validate(checks);
}

TEST_F(Schemas, WellFormedDocumentsAreAccepted) {
    validate({
        {"valid", "plugins.schema.json", write("minimal.json", R"({"plugins": []})").string()},
        {"valid", "plugins.schema.json",
         write("full.json", R"({"$schema": "plugins.schema.json", "version": 1, "plugins": [
             {"device": "GPU", "library": "plugins/libmosaic_gpu_plugin.so",
              "properties": {"PERF_COUNT": "YES", "NUM_STREAMS": 2, "PERFORMANCE_HINT": "THROUGHPUT",
                             "DEVICE_PROPERTIES": {"CPU": {"INFERENCE_NUM_THREADS": 4}}}},
             {"device": "VENDOR_X", "library": "/opt/vendor/libx.so", "properties": {"VENDOR_SPECIFIC_KEY": 1.5}}]})")
             .string()},
        {"valid", "device-properties.schema.json",
         write("device.json", R"({"PERF_COUNT": true, "INFERENCE_NUM_THREADS": "4", "INFERENCE_PRECISION_HINT": "f16",
                            "NUM_STREAMS": "AUTO"})")
             .string()},
    });
}

TEST_F(Schemas, MalformedDocumentsAreRejected) {
    validate({
        {"invalid", "plugins.schema.json", write("no_plugins.json", R"({"version": 1})").string()},
        {"invalid", "plugins.schema.json", write("version2.json", R"({"version": 2, "plugins": []})").string()},
        {"invalid", "plugins.schema.json",
         write("no_library.json", R"({"version": 1, "plugins": [{"device": "CPU"}]})").string()},
        {"invalid", "plugins.schema.json",
         write("no_device.json", R"({"version": 1, "plugins": [{"library": "x.so"}]})").string()},
        {"invalid", "plugins.schema.json",
         write("reserved_char.json", R"({"version": 1, "plugins": [{"device": "GPU.1", "library": "x.so"}]})").string()},
        {"invalid", "plugins.schema.json",
         write("typo_key.json", R"({"version": 1, "plugins": [{"device": "CPU", "libary": "x.so", "library": "x.so"}]})")
             .string()},
        {"invalid", "plugins.schema.json",
         write("bad_property.json",
               R"({"version": 1, "plugins": [{"device": "CPU", "library": "x.so", "properties": {"PERF_COUNT": "maybe"}}]})")
             .string()},
        {"invalid", "device-properties.schema.json", write("array.json", R"([1, 2])").string()},
        {"invalid", "device-properties.schema.json", write("hint.json", R"({"PERFORMANCE_HINT": "FASTEST"})").string()},
        {"invalid", "device-properties.schema.json", write("streams.json", R"({"NUM_STREAMS": 0})").string()},
        {"invalid", "device-properties.schema.json", write("lower.json", R"({"perf_count": true})").string()},
    });
}

}  // namespace
}  // namespace mosaic::test
