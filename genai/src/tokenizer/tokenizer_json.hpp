// Reading tokenizer.json and tokenizer_config.json: every value carries the file and the JSON path
// it came from, so that a complaint names both (`tokenizer.json: model.merges[3] ...`).
#pragma once

#include <mosaic/genai/tokenizer.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace mosaic::genai::tokenizer {

// The largest token id a tokenizer.json may use: vocabularies are indexed densely, and the largest
// in use (Gemma's) hold about 256k entries, so a file with ids beyond this is broken, not big.
constexpr int64_t kMaxTokenId = (int64_t{1} << 24) - 1;

using nlohmann::json;

// The parsed file; TokenizerError for a missing or malformed one (with nlohmann's line and column).
json read_json_file(const std::filesystem::path& path);

class JsonNode {
public:
    JsonNode(const json& value, std::string file, std::string path)
        : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

    const json& value() const { return *value_; }
    bool is_null() const { return value_->is_null(); }
    // Present and not null.
    bool has(const std::string& key) const;
    // A required member (TokenizerError when absent), or an optional one (nullopt when absent or null).
    JsonNode operator[](const std::string& key) const;
    std::optional<JsonNode> find(const std::string& key) const;
    JsonNode at(size_t index) const;
    size_t size() const;  // of an array (TokenizerError otherwise)

    std::string string() const;
    bool boolean() const;
    int64_t integer() const;
    double number() const;
    // A member or its default when absent or null.
    std::string string_or(const std::string& key, const std::string& fallback) const;
    bool bool_or(const std::string& key, bool fallback) const;
    // A single character (Rust's char), as Metaspace's replacement and Strip's content are.
    char32_t character() const;

    // The "type" member, for choosing the component it describes.
    std::string type() const { return (*this)["type"].string(); }

    [[noreturn]] void fail(const std::string& what) const;
    // The "type" of this component is one this tokenizer does not implement.
    [[noreturn]] void not_implemented(const std::string& kind) const;

    const std::string& path() const { return path_; }
    const std::string& file() const { return file_; }

private:
    std::string child_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
    const json* value_;
    std::string file_, path_;
};

}  // namespace mosaic::genai::tokenizer
