// The tokenizer on small tokenizer.json files written here (no Python needed): what each piece
// does by hand-worked examples, and the errors for files and input it cannot take.
#include <mosaic/genai/tokenizer.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>

namespace {

namespace fs = std::filesystem;
using mosaic::genai::Tokenizer;
using mosaic::genai::TokenizerError;
using nlohmann::json;
using Ids = std::vector<int64_t>;

// A fresh folder per test under gtest's temporary directory.
fs::path test_folder() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const fs::path folder = fs::path(::testing::TempDir()) / "mosaic_tokenizer" /
                            (std::string(info->test_suite_name()) + "." + info->name());
    fs::remove_all(folder);
    fs::create_directories(folder);
    return folder;
}

void write(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }

// A tokenizer.json of a BPE model over `vocab` and `merges`, the rest null unless `extra` says.
json bpe_file(const json& vocab, const json& merges, const json& extra = json::object()) {
    json file = {{"version", "1.0"},
                 {"truncation", nullptr},
                 {"padding", nullptr},
                 {"added_tokens", json::array()},
                 {"normalizer", nullptr},
                 {"pre_tokenizer", nullptr},
                 {"post_processor", nullptr},
                 {"decoder", nullptr},
                 {"model",
                  {{"type", "BPE"},
                   {"dropout", nullptr},
                   {"unk_token", nullptr},
                   {"continuing_subword_prefix", nullptr},
                   {"end_of_word_suffix", nullptr},
                   {"fuse_unk", false},
                   {"byte_fallback", false},
                   {"ignore_merges", false},
                   {"vocab", vocab},
                   {"merges", merges}}}};
    for (const auto& [key, value] : extra.items()) {
        if (key == "model")
            file["model"].update(value);
        else
            file[key] = value;
    }
    return file;
}

Tokenizer load(const json& file) {
    const fs::path folder = test_folder();
    write(folder / "tokenizer.json", file.dump());
    return Tokenizer(folder);
}

// The error message of loading `file`, or "" when it loads.
std::string load_error(const json& file) {
    try {
        load(file);
    } catch (const TokenizerError& e) {
        return e.what();
    }
    return "";
}

json added(int64_t id, const std::string& content, json flags = json::object()) {
    json token = {{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
                  {"rstrip", false}, {"normalized", false}, {"special", true}};
    token.update(flags);
    return token;
}

const json kAbc = {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}, {"abc", 5}};

TEST(TokenizerBpe, LowestRankMergesFirst) {
    // (b, c) ranks before (a, b): "abc" is a + bc, and (a, bc) is no merge.
    EXPECT_EQ(load(bpe_file(kAbc, {"b c", "a b", "ab c"})).encode("abc"), (Ids{0, 4}));
    EXPECT_EQ(load(bpe_file(kAbc, json::array({json::array({"a", "b"}), json::array({"ab", "c"})}))).encode("abc"),
              (Ids{5}));  // the pair form
    EXPECT_EQ(load(bpe_file(kAbc, json::array())).encode("abcab"), (Ids{0, 1, 2, 0, 1}));
    // ignore_merges: a word in the vocabulary is its id whatever the merges say.
    EXPECT_EQ(load(bpe_file(kAbc, {"b c"}, {{"model", {{"ignore_merges", true}}}})).encode("abc"), (Ids{5}));
}

TEST(TokenizerBpe, UnknownCharacters) {
    const json vocab = {{"<unk>", 0}, {"a", 1}, {"<0x78>", 2}, {"<0xC3>", 3}};
    // Without an unknown token HF drops the character.
    EXPECT_EQ(load(bpe_file(vocab, json::array())).encode("axya"), (Ids{1, 1}));
    EXPECT_EQ(load(bpe_file(vocab, json::array(), {{"model", {{"unk_token", "<unk>"}}}})).encode("ayyza"),
              (Ids{1, 0, 0, 0, 1}));
    EXPECT_EQ(
        load(bpe_file(vocab, json::array(), {{"model", {{"unk_token", "<unk>"}, {"fuse_unk", true}}}})).encode("ayyza"),
        (Ids{1, 0, 1}));
    // Byte fallback takes a character whose bytes all have tokens (x), else the unknown token (é: C3 A9).
    const Tokenizer fallback =
        load(bpe_file(vocab, json::array(), {{"model", {{"unk_token", "<unk>"}, {"byte_fallback", true}}}}));
    EXPECT_EQ(fallback.encode("axé"), (Ids{1, 2, 0}));
}

TEST(TokenizerAddedTokens, StripAndSingleWord) {
    const json vocab = {{"a", 0}, {" ", 1}, {"<unk>", 2}};
    const json tokens = {added(10, "<m>", {{"lstrip", true}}), added(11, "[w]", {{"single_word", true}}),
                         added(12, "<r>", {{"rstrip", true}}), added(13, "<m>x"),
                         added(14, "<p>", {{"special", false}})};
    const Tokenizer tokenizer =
        load(bpe_file(vocab, json::array(), {{"added_tokens", tokens}, {"model", {{"unk_token", "<unk>"}}}}));
    EXPECT_EQ(tokenizer.encode("a  <m>"), (Ids{0, 10}));     // lstrip takes the spaces before
    EXPECT_EQ(tokenizer.encode("<r>  a"), (Ids{12, 0}));     // rstrip the spaces after
    EXPECT_EQ(tokenizer.encode(" [w] "), (Ids{1, 11, 1}));   // a word of its own
    EXPECT_EQ(tokenizer.encode("a[w]"), (Ids{0, 2, 2, 2}));  // inside a word it is not the token
    EXPECT_EQ(tokenizer.encode("<m>xa"), (Ids{13, 0}));      // the longest match
    EXPECT_EQ(tokenizer.decode({13, 14, 0}), "<p> a");       // special ones skipped, no decoder: spaces
    EXPECT_EQ(tokenizer.decode({13, 14, 0}, false), "<m>x <p> a");
    EXPECT_TRUE(tokenizer.is_special(13));
    EXPECT_FALSE(tokenizer.is_special(14));
    EXPECT_EQ(tokenizer.vocab_size(), 15u);
}

// Split's behaviors on "a-b--c", each piece looked up whole (ignore_merges).
TEST(TokenizerPreTokenizers, SplitBehaviors) {
    const json vocab = {{"a", 0}, {"b", 1}, {"c", 2}, {"-", 3}, {"a-", 4}, {"b-", 5}, {"-b", 6}, {"-c", 7}, {"--", 8}};
    const auto with = [&](const std::string& behavior, bool invert = false) {
        const json split = {
            {"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", behavior}, {"invert", invert}};
        return load(bpe_file(vocab, json::array(), {{"pre_tokenizer", split}, {"model", {{"ignore_merges", true}}}}))
            .encode("a-b--c");
    };
    EXPECT_EQ(with("Removed"), (Ids{0, 1, 2}));
    EXPECT_EQ(with("Isolated"), (Ids{0, 3, 1, 3, 3, 2}));
    EXPECT_EQ(with("MergedWithPrevious"), (Ids{4, 5, 3, 2}));
    EXPECT_EQ(with("MergedWithNext"), (Ids{0, 6, 3, 7}));
    EXPECT_EQ(with("Contiguous"), (Ids{0, 3, 1, 8, 2}));
    EXPECT_EQ(with("Removed", true), (Ids{3, 3, 3}));
}

TEST(TokenizerPreTokenizers, WhitespaceDigitsPunctuationMetaspace) {
    const json vocab = {{"ab", 0}, {"12", 1}, {"1", 2}, {"2", 3}, {"!", 4}, {"?", 5}, {"!?", 6}, {"▁ab", 7}, {"▁", 8}};
    const auto encode = [&](const json& pre_tokenizer, const std::string& text) {
        return load(bpe_file(vocab, json::array(),
                             {{"pre_tokenizer", pre_tokenizer}, {"model", {{"ignore_merges", true}}}}))
            .encode(text);
    };
    EXPECT_EQ(encode({{"type", "WhitespaceSplit"}}, " ab\t12\u3000 ab "), (Ids{0, 1, 0}));
    EXPECT_EQ(encode({{"type", "Whitespace"}}, "ab!? 12"), (Ids{0, 6, 1}));
    EXPECT_EQ(encode({{"type", "Digits"}, {"individual_digits", true}}, "12"), (Ids{2, 3}));
    EXPECT_EQ(encode({{"type", "Digits"}, {"individual_digits", false}}, "12"), (Ids{1}));
    EXPECT_EQ(encode({{"type", "Punctuation"}}, "ab!?"), (Ids{0, 4, 5}));
    const json metaspace = {{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", "always"}, {"split", true}};
    EXPECT_EQ(encode(metaspace, "ab ab"), (Ids{7, 7}));
    EXPECT_EQ(encode(metaspace, " ab"), (Ids{7}));  // already begins with ▁: none added
    EXPECT_EQ(encode(metaspace, "  ab"), (Ids{8, 7}));
}

TEST(TokenizerNormalizers, FormsCaseStripReplace) {
    const json vocab = {{"é", 0}, {"e", 1},      {"\u0301", 2}, {"fi", 3}, {"x", 4}, {"İ", 5},
                        {"i", 6}, {"\u0307", 7}, {"σ", 8},      {"y", 9},  {"f", 10}};
    const auto encode = [&](const json& normalizer, const std::string& text) {
        return load(bpe_file(vocab, {"f i"}, {{"normalizer", normalizer}})).encode(text);
    };
    EXPECT_EQ(encode({{"type", "NFC"}}, "e\u0301"), (Ids{0}));
    EXPECT_EQ(encode({{"type", "NFD"}}, "é"), (Ids{1, 2}));
    EXPECT_EQ(encode({{"type", "NFKC"}}, "\uFB01"), (Ids{3}));         // the ligature is f + i, merged
    EXPECT_EQ(encode(nullptr, "\uFB01"), (Ids{}));                     // not in the vocabulary, no unknown token
    EXPECT_EQ(encode({{"type", "Lowercase"}}, "İΣ"), (Ids{6, 7, 8}));  // one character at a time: no final ς
    EXPECT_EQ(encode({{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}}, " \u3000x\n"), (Ids{4}));
    const json replace = {{"type", "Replace"}, {"pattern", {{"Regex", "\\s+"}}}, {"content", "y"}};
    EXPECT_EQ(encode(replace, "x \t\u00a0x"), (Ids{4, 9, 4}));
    const json sequence = {{"type", "Sequence"},
                           {"normalizers", {{{"type", "NFD"}}, {{"type", "Prepend"}, {"prepend", "x"}}}}};
    EXPECT_EQ(encode(sequence, "é"), (Ids{4, 1, 2}));
    EXPECT_EQ(encode(sequence, ""), (Ids{}));  // Prepend leaves empty text empty
}

TEST(TokenizerDecoders, ByteFallbackStripMetaspace) {
    const json vocab = {{"<0xE2>", 0}, {"<0x82>", 1}, {"<0xAC>", 2}, {"▁a", 3}, {"▁▁b", 4}, {"<0xFF>", 5}};
    const json sentencepiece = {{"type", "Sequence"},
                                {"decoders",
                                 {{{"type", "Replace"}, {"pattern", {{"String", "▁"}}}, {"content", " "}},
                                  {{"type", "ByteFallback"}},
                                  {{"type", "Fuse"}},
                                  {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
    const Tokenizer sp = load(bpe_file(vocab, json::array(), {{"decoder", sentencepiece}}));
    EXPECT_EQ(sp.decode({3, 0, 1, 2, 4}), "a€  b");
    EXPECT_EQ(sp.decode({0, 1, 3}), "\uFFFD\uFFFD a");  // an incomplete character: one U+FFFD per byte
    EXPECT_EQ(sp.decode({5}), "\uFFFD");
    const json metaspace = {{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", "always"}, {"split", true}};
    const Tokenizer meta = load(bpe_file(vocab, json::array(), {{"decoder", metaspace}}));
    EXPECT_EQ(meta.decode({4, 3}), "b a");  // the first token loses all its ▁, as HF's
}

// GPT-2's byte characters, as the test's own table.
std::string byte_char(int b) {
    static std::vector<std::string> table = [] {
        std::vector<std::string> out(256);
        int next = 256;
        for (int c = 0; c < 256; ++c) {
            const bool printable = (c >= '!' && c <= '~') || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF);
            const int cp = printable ? c : next++;
            out[static_cast<size_t>(c)] =
                cp < 0x80 ? std::string(1, static_cast<char>(cp))
                          : std::string{static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
        }
        return out;
    }();
    return table[static_cast<size_t>(b)];
}

Tokenizer byte_level_tokenizer() {
    json vocab = json::object();
    for (int b = 0; b < 256; ++b) vocab[byte_char(b)] = b;
    vocab[byte_char(' ') + "a"] = 256;
    const json level = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}};
    return load(bpe_file(vocab, {byte_char(' ') + " a"},
                         {{"pre_tokenizer", level}, {"decoder", level}, {"added_tokens", {added(257, "<|end|>")}}}));
}

TEST(TokenizerByteLevel, PrefixSpaceAndLossyDecode) {
    const Tokenizer tokenizer = byte_level_tokenizer();
    EXPECT_EQ(tokenizer.encode("a a"), (Ids{256, 256}));             // add_prefix_space: the first word gets one too
    EXPECT_EQ(tokenizer.encode("a<|end|>a"), (Ids{256, 257, 256}));  // and so does each stretch between added tokens
    EXPECT_EQ(tokenizer.decode({0xE2, 0x82, 0xAC}), "€");
    EXPECT_EQ(tokenizer.decode({0xE2, 0x82}), "\uFFFD");  // one U+FFFD for the whole incomplete character
    EXPECT_EQ(tokenizer.decode({0xE2, 0x82, 'x', 0xFF}), "\uFFFDx\uFFFD");
    EXPECT_EQ(tokenizer.decode({256, 257}, false), " a<|end|>");
}

// Random bytes: ids or TokenizerError naming the offset, never a crash; valid text round-trips.
TEST(TokenizerByteLevel, RandomBytes) {
    const Tokenizer tokenizer = byte_level_tokenizer();
    std::mt19937 rng(1);
    size_t errors = 0, round_trips = 0;
    for (int n = 0; n < 4000; ++n) {
        std::string text(rng() % 32, '\0');
        for (char& c : text) c = static_cast<char>(n % 3 == 0 ? rng() % 128 : rng() % 256);
        try {
            const Ids ids = tokenizer.encode(text, false);
            // Byte-level keeps every byte, but add_prefix_space gives the text a leading space.
            const std::string back = tokenizer.decode(ids);
            EXPECT_EQ(back, text.rfind(' ', 0) == 0 ? text : text.empty() ? "" : " " + text);
            ++round_trips;
        } catch (const TokenizerError& e) {
            ++errors;
            EXPECT_NE(std::string(e.what()).find("byte offset"), std::string::npos) << e.what();
        }
    }
    EXPECT_GT(errors, 0u);
    EXPECT_GT(round_trips, 0u);
}

TEST(TokenizerErrors, InvalidUtf8NamesTheOffset) {
    const Tokenizer tokenizer = load(bpe_file(kAbc, json::array()));
    for (const auto& [text, offset] : std::vector<std::pair<std::string, size_t>>{{"abc\xff", 3},
                                                                                  {"ab\xc3", 2},
                                                                                  {"a\xed\xa0\x80", 1},
                                                                                  {"\xc0\xaf", 0},
                                                                                  {"ab\xf4\x90\x80\x80", 2},
                                                                                  {"\xe2\x82", 0}}) {
        try {
            tokenizer.encode(text);
            ADD_FAILURE() << "no error for " << json(std::vector<unsigned char>(text.begin(), text.end())).dump();
        } catch (const TokenizerError& e) {
            EXPECT_NE(std::string(e.what()).find("byte offset " + std::to_string(offset)), std::string::npos)
                << e.what();
        }
    }
}

TEST(TokenizerErrors, DecodeOutOfVocabulary) {
    const Tokenizer tokenizer = load(bpe_file(kAbc, json::array()));
    // As HF's tokenizers: ids past the vocabulary give nothing (a model's padded output rows).
    EXPECT_EQ(tokenizer.decode({0, 6, 1000, 0}), tokenizer.decode({0, 0}));
    try {
        tokenizer.decode({0, -1});
        ADD_FAILURE() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_NE(std::string(e.what()).find("id -1 is negative"), std::string::npos) << e.what();
    }
}

TEST(TokenizerErrors, MissingFolderAndFile) {
    const fs::path folder = test_folder();
    try {
        Tokenizer(folder / "nowhere");
        ADD_FAILURE() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_NE(std::string(e.what()).find("nowhere"), std::string::npos) << e.what();
    }
    try {
        Tokenizer{folder};
        ADD_FAILURE() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_NE(std::string(e.what()).find("tokenizer.json"), std::string::npos) << e.what();
    }
}

TEST(TokenizerErrors, MalformedJson) {
    const fs::path folder = test_folder();
    write(folder / "tokenizer.json", "{\n  \"model\": {\n    \"type\": \"BPE\",,\n  }\n}\n");
    try {
        Tokenizer{folder};
        ADD_FAILURE() << "no error";
    } catch (const TokenizerError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("tokenizer.json"), std::string::npos) << message;
        EXPECT_NE(message.find("line 3"), std::string::npos) << message;
    }
    // tokenizer_config.json beside a good tokenizer.json.
    write(folder / "tokenizer.json", bpe_file(kAbc, json::array()).dump());
    write(folder / "tokenizer_config.json", "{\"bos_token\": }");
    try {
        Tokenizer{folder};
        ADD_FAILURE() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_NE(std::string(e.what()).find("tokenizer_config.json: malformed JSON"), std::string::npos) << e.what();
    }
    // A number too large for a double is nlohmann's out_of_range, not parse_error: the fuzzer's
    // input that escaped as an uncaught exception.
    write(folder / "tokenizer.json", "{\"model\": {\"dropout\": 1e999}}");
    try {
        Tokenizer{folder};
        ADD_FAILURE() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_NE(std::string(e.what()).find("tokenizer.json: malformed JSON"), std::string::npos) << e.what();
    }
}

TEST(TokenizerErrors, NotImplementedTypesNameTheKey) {
    const auto expect = [](const json& file, const std::string& want) {
        const std::string message = load_error(file);
        EXPECT_NE(message.find(want), std::string::npos) << "message: " << message << "\nwanted: " << want;
        EXPECT_NE(message.find("not implemented"), std::string::npos) << message;
    };
    expect(bpe_file(kAbc, json::array(), {{"model", {{"type", "WordPiece"}}}}),
           "tokenizer.json: model.type \"WordPiece\"");
    expect(bpe_file(kAbc, json::array(), {{"model", {{"type", "Unigram"}}}}), "model.type \"Unigram\"");
    const json pre = {{"type", "Sequence"}, {"pretokenizers", {{{"type", "Digits"}}, {{"type", "Foo"}}}}};
    expect(bpe_file(kAbc, json::array(), {{"pre_tokenizer", pre}}),
           "tokenizer.json: pre_tokenizer.pretokenizers[1].type \"Foo\"");
    expect(bpe_file(kAbc, json::array(), {{"normalizer", {{"type", "BertNormalizer"}}}}),
           "normalizer.type \"BertNormalizer\"");
    expect(bpe_file(kAbc, json::array(), {{"decoder", {{"type", "WordPiece"}}}}), "decoder.type \"WordPiece\"");
    expect(bpe_file(kAbc, json::array(), {{"post_processor", {{"type", "Foo"}}}}), "post_processor.type \"Foo\"");
    EXPECT_NE(load_error(bpe_file(kAbc, json::array(), {{"model", {{"dropout", 0.1}}}})).find("model.dropout"),
              std::string::npos);
}

TEST(TokenizerErrors, BadModel) {
    const std::string unknown = load_error(bpe_file(kAbc, {"a b", "b z"}));
    EXPECT_NE(unknown.find("model.merges[1]"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("\"z\""), std::string::npos) << unknown;
    const std::string merged = load_error(bpe_file({{"a", 0}, {"c", 1}}, {"a c"}));  // "ac" is not in the vocabulary
    EXPECT_NE(merged.find("\"ac\""), std::string::npos) << merged;
    EXPECT_NE(load_error(bpe_file(kAbc, {"a b c"})).find("model.merges[0]"), std::string::npos);
    EXPECT_NE(load_error(bpe_file(kAbc, json::array(), {{"model", {{"unk_token", "<unk>"}}}})).find("model.unk_token"),
              std::string::npos);
    const json bad_regex = {
        {"type", "Split"}, {"pattern", {{"Regex", "(a"}}}, {"behavior", "Isolated"}, {"invert", false}};
    EXPECT_NE(
        load_error(bpe_file(kAbc, json::array(), {{"pre_tokenizer", bad_regex}})).find("pre_tokenizer.pattern.Regex"),
        std::string::npos);
    EXPECT_NE(load_error(json::array()).find("not a JSON object"), std::string::npos);
    const json no_vocab = {{"model", {{"type", "BPE"}, {"merges", json::array()}}}};
    EXPECT_NE(load_error(no_vocab).find("model.vocab is missing"), std::string::npos) << load_error(no_vocab);
}

TEST(TokenizerConfig, SpecialTokensAndTemplate) {
    const fs::path folder = test_folder();
    json file = bpe_file(kAbc, json::array(), {{"added_tokens", {added(6, "<s>"), added(7, "</s>")}}});
    write(folder / "tokenizer.json", file.dump());
    write(
        folder / "tokenizer_config.json",
        json({{"bos_token", {{"__type", "AddedToken"}, {"content", "<s>"}}},
              {"eos_token", "</s>"},
              {"pad_token", nullptr},
              {"chat_template", {{{"name", "tool_use"}, {"template", "T"}}, {{"name", "default"}, {"template", "D"}}}}})
            .dump());
    const Tokenizer tokenizer(folder / "tokenizer.json");  // the file itself: the config beside it is read
    EXPECT_EQ(tokenizer.bos_token(), "<s>");
    EXPECT_EQ(tokenizer.bos_token_id(), 6);
    EXPECT_EQ(tokenizer.eos_token_id(), 7);
    EXPECT_FALSE(tokenizer.pad_token_id());
    EXPECT_EQ(tokenizer.chat_template(), "D");
    EXPECT_EQ(tokenizer.token_to_id("ab"), 3);
    EXPECT_EQ(tokenizer.id_to_token(7), "</s>");
}

TEST(TokenizerPostProcessors, TemplateAndRoberta) {
    const json tmpl = {{"type", "TemplateProcessing"},
                       {"single",
                        {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
                         {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                         {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}}}},
                       {"pair", json::array()},
                       {"special_tokens",
                        {{"<s>", {{"id", "<s>"}, {"ids", {6}}, {"tokens", {"<s>"}}}},
                         {"</s>", {{"id", "</s>"}, {"ids", {7}}, {"tokens", {"</s>"}}}}}}};
    const Tokenizer tokenizer = load(bpe_file(kAbc, json::array(), {{"post_processor", tmpl}}));
    EXPECT_EQ(tokenizer.encode("ab"), (Ids{6, 0, 1, 7}));
    EXPECT_EQ(tokenizer.encode("ab", false), (Ids{0, 1}));
    EXPECT_EQ(tokenizer.encode(""), (Ids{6, 7}));
    const json roberta = {{"type", "RobertaProcessing"}, {"sep", {"</s>", 2}}, {"cls", {"<s>", 0}}};
    EXPECT_EQ(load(bpe_file(kAbc, json::array(), {{"post_processor", roberta}})).encode("c"), (Ids{0, 2, 2}));
}

}  // namespace
