// The tokenizer against HF `tokenizers` on each LLM family's tokenizer.json (trained by
// tools/models/make_tokenizers.py with the family's real structure): ids with and without special
// tokens, decode with and without them, each id decoded alone, and the round trip where HF's holds.
#include <mosaic/genai/tokenizer.hpp>

#include "onnx/exporter_models.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

namespace {

using mosaic::genai::Tokenizer;
using mosaic::genai::TokenizerError;
using nlohmann::json;

// BUILD_DIR/tokenizers/tokenizer_<family>, generated on first use; skips the test without the
// torch exporters' venv.
std::filesystem::path family_folder(const std::string& family) {
    return mosaic::test::generated_model("tokenizers", "tokenizer_" + family, "make_tokenizers.py", "",
                                         mosaic::test::torch_exporter_python(), "corpus.json");
}

json read_corpus(const std::filesystem::path& folder) {
    std::ifstream in(folder / "corpus.json");
    return json::parse(in);
}

std::string quoted(const std::string& s) { return json(s).dump(); }

std::string ids_text(const std::vector<int64_t>& ids) { return json(ids).dump(); }

class TokenizerFamily : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        folder_ = family_folder(GetParam());
        if (folder_.empty())
            GTEST_SKIP() << "no tokenizer_" << GetParam()
                         << ": the torch exporters' venv (build-torch-exporters-venv, with `tokenizers`) is absent or "
                            "tools/models/make_tokenizers.py failed (see build/tokenizers/tokenizer_"
                         << GetParam() << ".log)";
    }
    std::filesystem::path folder_;
};

TEST_P(TokenizerFamily, MatchesHuggingFace) {
    const Tokenizer tokenizer(folder_);
    const json corpus = read_corpus(folder_);
    size_t failures = 0, round_trips = 0;
    const auto fail = [&](const std::string& text, const std::string& what, const std::string& got,
                          const std::string& want) {
        if (++failures <= 10)
            ADD_FAILURE() << GetParam() << " " << quoted(text) << ": " << what << "\n  got  " << got << "\n  want "
                          << want;
    };
    for (const json& entry : corpus) {
        const std::string text = entry["text"];
        const auto ids = entry["ids"].get<std::vector<int64_t>>();
        const auto plain = entry["ids_no_special"].get<std::vector<int64_t>>();
        if (const auto got = tokenizer.encode(text); got != ids) fail(text, "encode", ids_text(got), ids_text(ids));
        const auto got_plain = tokenizer.encode(text, false);
        if (got_plain != plain) fail(text, "encode without special tokens", ids_text(got_plain), ids_text(plain));
        if (const auto got = tokenizer.decode(ids); got != entry["decoded"])
            fail(text, "decode", quoted(got), entry["decoded"].dump());
        if (const auto got = tokenizer.decode(ids, false); got != entry["decoded_all"])
            fail(text, "decode keeping special tokens", quoted(got), entry["decoded_all"].dump());
        if (const auto got = tokenizer.decode(plain); got != entry["decoded_no_special"])
            fail(text, "decode of ids without special tokens", quoted(got), entry["decoded_no_special"].dump());
        for (size_t i = 0; i < plain.size(); ++i)
            if (const auto got = tokenizer.decode({plain[i]}); got != entry["decoded_each"][i])
                fail(text, "decode of id " + std::to_string(plain[i]) + " alone", quoted(got),
                     entry["decoded_each"][i].dump());
        if (entry["decoded_no_special"] == text) {
            ++round_trips;
            if (const auto back = tokenizer.decode(tokenizer.encode(text, false)); back != text)
                fail(text, "round trip", quoted(back), quoted(text));
        }
    }
    EXPECT_EQ(failures, 0u) << GetParam() << ": " << failures << " mismatches over " << corpus.size() << " strings";
    std::cout << "[ tokenizer_" << GetParam() << " ] " << corpus.size() << " strings compared with HF tokenizers, "
              << round_trips << " round trips, " << failures << " mismatches\n";
    RecordProperty("strings", static_cast<int>(corpus.size()));
}

// Many threads encoding and decoding at once give what one thread gives.
TEST_P(TokenizerFamily, ThreadSafe) {
    const Tokenizer tokenizer(folder_);
    const json corpus = read_corpus(folder_);
    std::vector<std::thread> threads;
    std::vector<size_t> wrong(4);
    for (size_t t = 0; t < wrong.size(); ++t) {
        threads.emplace_back([&, t] {
            for (size_t k = 0; k < corpus.size(); ++k) {
                const size_t i = (k + t * corpus.size() / wrong.size()) % corpus.size();
                const std::string text = corpus[i]["text"];
                const auto ids = tokenizer.encode(text);
                if (ids != corpus[i]["ids"].get<std::vector<int64_t>>() ||
                    tokenizer.decode(ids) != corpus[i]["decoded"])
                    ++wrong[t];
            }
        });
    }
    for (auto& thread : threads) thread.join();
    for (size_t t = 0; t < wrong.size(); ++t) EXPECT_EQ(wrong[t], 0u) << "thread " << t;
}

// Random bytes: ids or TokenizerError (invalid UTF-8), never a crash; valid UTF-8 decodes back.
TEST_P(TokenizerFamily, RandomBytes) {
    const Tokenizer tokenizer(folder_);
    std::mt19937 rng(7);
    size_t errors = 0;
    for (int n = 0; n < 3000; ++n) {
        std::string text(rng() % 40, '\0');
        for (char& c : text) c = static_cast<char>(n % 2 ? rng() % 256 : rng() % 128);
        try {
            const auto ids = tokenizer.encode(text);
            (void)tokenizer.decode(ids);
        } catch (const TokenizerError& e) {
            ++errors;
            EXPECT_NE(std::string(e.what()).find("byte offset"), std::string::npos) << e.what();
        }
    }
    EXPECT_GT(errors, 0u);
}

TEST_P(TokenizerFamily, Config) {
    const Tokenizer tokenizer(folder_);
    const std::string family = GetParam();
    const auto id = [&](const char* token) { return tokenizer.token_to_id(token); };
    if (family == "gpt2") {
        EXPECT_EQ(tokenizer.bos_token(), "<|endoftext|>");
        EXPECT_EQ(tokenizer.eos_token_id(), id("<|endoftext|>"));
        EXPECT_EQ(tokenizer.vocab_size(), static_cast<size_t>(*id("<|endoftext|>") + 1));
        EXPECT_FALSE(tokenizer.chat_template());
    } else if (family == "llama3") {
        EXPECT_EQ(tokenizer.bos_token_id(), id("<|begin_of_text|>"));
        EXPECT_EQ(tokenizer.eos_token(), "<|eot_id|>");
        ASSERT_TRUE(tokenizer.chat_template());
        EXPECT_NE(tokenizer.chat_template()->find("<|start_header_id|>"), std::string::npos);
        EXPECT_EQ(tokenizer.encode("hi").front(), *id("<|begin_of_text|>"));
    } else if (family == "qwen2") {
        EXPECT_FALSE(tokenizer.bos_token());
        EXPECT_FALSE(tokenizer.bos_token_id());
        EXPECT_EQ(tokenizer.eos_token_id(), id("<|im_end|>"));
        EXPECT_EQ(tokenizer.pad_token_id(), id("<|endoftext|>"));
        EXPECT_TRUE(tokenizer.is_special(*id("<|im_start|>")));
        EXPECT_FALSE(tokenizer.is_special(*id("<tool_call>")));  // added, not special: decode keeps it
        EXPECT_EQ(tokenizer.decode({*id("<tool_call>"), *id("<|im_end|>")}), "<tool_call>");
    } else if (family == "smollm2") {
        EXPECT_EQ(tokenizer.bos_token_id(), 1);
        EXPECT_EQ(tokenizer.eos_token_id(), 2);
        EXPECT_EQ(tokenizer.id_to_token(0), "<|endoftext|>");
    } else if (family == "llama2" || family == "mistral") {
        EXPECT_EQ(tokenizer.bos_token(), "<s>");  // llama2's config holds AddedToken objects
        EXPECT_EQ(tokenizer.bos_token_id(), 1);
        EXPECT_EQ(tokenizer.eos_token_id(), 2);
        EXPECT_EQ(tokenizer.id_to_token(3), "<0x00>");
        ASSERT_TRUE(tokenizer.chat_template());  // llama2's is the "default" of a list
        EXPECT_NE(tokenizer.chat_template()->find("[INST]"), std::string::npos);
        EXPECT_EQ(tokenizer.encode("hi").front(), 1);
    }
    EXPECT_FALSE(tokenizer.id_to_token(static_cast<int64_t>(tokenizer.vocab_size())));
    EXPECT_FALSE(tokenizer.token_to_id("no such token, surely"));
}

// "Tokenizer/...": --gtest_filter='Tokenizer*' runs these too.
INSTANTIATE_TEST_SUITE_P(Tokenizer, TokenizerFamily,
                         ::testing::Values("gpt2", "llama3", "qwen2", "smollm2", "llama2", "mistral"),
                         [](const auto& info) { return info.param; });

}  // namespace
