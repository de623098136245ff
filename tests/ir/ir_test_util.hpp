// Helpers shared by the IR tests: a scratch directory, a field-by-field model comparison and a
// check that a call throws a ModelError carrying given pieces of text.
#pragma once

#include "readers/ir/ir.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

namespace mosaic::ir::test {

inline std::string data_file(const std::string& name) { return std::string(MOSAIC_TEST_DATA) + "/ir/" + name; }

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// A fresh directory for one test, removed with everything in it at the end.
class TempDir {
public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "mosaic_ir_XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        dir_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string path(const std::string& name) const { return (std::filesystem::path(dir_) / name).string(); }

    std::string write(const std::string& name, const std::string& bytes) const {
        const std::string p = path(name);
        std::ofstream out(p, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return p;
    }
    template <typename T>
    std::string write_values(const std::string& name, const std::vector<T>& values) const {
        return write(name, std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
    }

private:
    std::string dir_;
};

// `text` with the first `from` replaced by `to`; a test fails when `from` is missing, so a changed
// template cannot silently make an error test pass.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    if (at == std::string::npos) {
        ADD_FAILURE() << "template text '" << from << "' not found";
        return text;
    }
    return text.replace(at, from.size(), to);
}

template <typename Fn>
::testing::AssertionResult throws_model_error(Fn&& fn, std::initializer_list<std::string> parts) {
    try {
        fn();
    } catch (const ModelError& e) {
        const std::string message = e.what();
        for (const auto& p : parts)
            if (message.find(p) == std::string::npos)
                return ::testing::AssertionFailure() << "the message lacks \"" << p << "\": " << message;
        return ::testing::AssertionSuccess() << message;
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "threw something other than ModelError: " << e.what();
    }
    return ::testing::AssertionFailure() << "did not throw";
}

inline std::string describe(const RTMap& info) {
    std::string out = "{";
    for (const auto& [k, v] : info) out += k + "=" + v.as<std::string>() + "; ";
    return out + "}";
}

inline std::string describe(const Attributes& attrs) {
    std::string out = "{";
    for (const auto& [k, v] : attrs.entries()) out += k + "=" + v + "; ";
    return out + "}";
}

inline std::string describe(const std::vector<std::string>& names) {
    std::string out = "[";
    for (const auto& n : names) out += "'" + n + "' ";
    return out + "]";
}

inline std::vector<uint64_t> ids(const std::vector<Node*>& nodes) {
    std::vector<uint64_t> out;
    for (const Node* n : nodes) out.push_back(n->id());
    return out;
}

// Compares two models field by field, matching nodes by id. Returns "" when they are equal, else
// the first difference found.
inline std::string diff_models(const Model& a, const Model& b) {
    if (a.get_friendly_name() != b.get_friendly_name()) return "model name '" + a.get_friendly_name() + "' vs '" + b.get_friendly_name() + "'";
    if (a.get_rt_info() != b.get_rt_info()) return "model rt_info " + describe(a.get_rt_info()) + " vs " + describe(b.get_rt_info());
    if (a.get_ops().size() != b.get_ops().size())
        return "node count " + std::to_string(a.get_ops().size()) + " vs " + std::to_string(b.get_ops().size());
    if (ids(a.get_parameters()) != ids(b.get_parameters())) return "parameter order differs";
    if (ids(a.get_results()) != ids(b.get_results())) return "result order differs";
    for (const auto& na : a.get_ops()) {
        const Node* nb = b.find_node_by_id(na->id());
        const std::string at = "node id " + std::to_string(na->id()) + " ('" + na->get_friendly_name() + "'): ";
        if (!nb) return at + "missing in the second model";
        if (na->get_type_name() != nb->get_type_name() || na->version() != nb->version())
            return at + "type " + na->type_and_version() + " vs " + nb->type_and_version();
        if (na->get_friendly_name() != nb->get_friendly_name()) return at + "name vs '" + nb->get_friendly_name() + "'";
        if (na->attrs() != nb->attrs()) return at + "attrs " + describe(na->attrs()) + " vs " + describe(nb->attrs());
        if (na->get_rt_info() != nb->get_rt_info())
            return at + "rt_info " + describe(na->get_rt_info()) + " vs " + describe(nb->get_rt_info());
        if (na->input_count() != nb->input_count()) return at + "input count";
        for (size_t i = 0; i < na->input_count(); ++i) {
            const Output &ia = na->input(i), &ib = nb->input(i);
            if (ia.node->id() != ib.node->id() || ia.index != ib.index)
                return at + "input " + std::to_string(i) + " comes from " + std::to_string(ia.node->id()) + ":" +
                       std::to_string(ia.index) + " vs " + std::to_string(ib.node->id()) + ":" +
                       std::to_string(ib.index);
        }
        if (na->output_count() != nb->output_count()) return at + "output count";
        for (size_t o = 0; o < na->output_count(); ++o) {
            const std::string port = at + "output " + std::to_string(o) + " ";
            if (na->output_type(o) != nb->output_type(o))
                return port + "type " + to_string(na->output_type(o)) + " vs " + to_string(nb->output_type(o));
            if (na->output_shape(o) != nb->output_shape(o))
                return port + "shape " + to_string(na->output_shape(o)) + " vs " + to_string(nb->output_shape(o));
            if (na->output_names(o) != nb->output_names(o))
                return port + "names " + describe(na->output_names(o)) + " vs " + describe(nb->output_names(o));
        }
        const auto &ca = na->constant_data(), &cb = nb->constant_data();
        if (!ca != !cb) return at + "constant data present in only one model";
        if (ca && (ca->size() != cb->size() || (ca->size() && std::memcmp(ca->data(), cb->data(), ca->size()) != 0)))
            return at + "constant bytes differ";
    }
    return "";
}

}  // namespace mosaic::ir::test
