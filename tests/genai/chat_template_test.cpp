// ChatTemplate against jinja2/transformers: every case in tests/data/chat_templates/*.json (written by
// tools/models/make_chat_template_cases.py from real models' templates and per-construct cases)
// must render exactly as apply_chat_template did, or fail with the recorded message.
#include "mosaic/genai/chat_template.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using mosaic::genai::ChatHistory;
using mosaic::genai::ChatTemplate;
using mosaic::genai::ChatTemplateError;
using OrderedJson = nlohmann::ordered_json;

namespace {

const std::string kDir = std::string(MOSAIC_TEST_DATA) + "/chat_templates";

std::vector<std::string> case_files() {
    std::vector<std::string> names;
    if (DIR* d = opendir(kDir.c_str())) {
        while (dirent* e = readdir(d)) {
            std::string n = e->d_name;
            if (n.size() > 5 && n.substr(n.size() - 5) == ".json") names.push_back(n.substr(0, n.size() - 5));
        }
        closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

OrderedJson load(const std::string& name) {
    std::ifstream in(kDir + "/" + name + ".json");
    std::stringstream ss;
    ss << in.rdbuf();
    return OrderedJson::parse(ss.str());
}

class ChatTemplateCases : public ::testing::TestWithParam<std::string> {};

TEST_P(ChatTemplateCases, MatchTransformers) {
    const OrderedJson file = load(GetParam());
    const auto& cases = file.at("cases");
    ASSERT_FALSE(cases.empty());
    size_t passed = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i];
        const std::string source = c.contains("template") ? c["template"].get<std::string>()
                                                          : file.at("template").get<std::string>();
        const std::string label = GetParam() + " case " + std::to_string(i) +
                                  (c.contains("name") ? " (" + c["name"].get<std::string>() + ")" : "") +
                                  "\ntemplate: " + source.substr(0, 300);
        std::string got, error;
        try {
            ChatTemplate t(source);
            got = t.render_ordered(c.at("context"));
        } catch (const ChatTemplateError& e) {
            error = e.what();
        }
        if (c.contains("error")) {
            const std::string want = c["error"].get<std::string>();
            EXPECT_NE(error.find(want), std::string::npos)
                << label << "\nexpected an error containing: " << want << "\ngot error: " << error
                << "\ngot output: " << got;
            passed += error.find(want) != std::string::npos;
        } else {
            EXPECT_EQ(error, "") << label;
            EXPECT_EQ(got, c.at("expected").get<std::string>()) << label;
            passed += error.empty() && got == c["expected"].get<std::string>();
        }
    }
    std::printf("[ chat ] %-22s %zu/%zu cases match\n", GetParam().c_str(), passed, cases.size());
}

INSTANTIATE_TEST_SUITE_P(Files, ChatTemplateCases, ::testing::ValuesIn(case_files()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(ChatTemplate, HasCaseFiles) {
    const auto files = case_files();
    EXPECT_GE(files.size(), 15u);
    EXPECT_NE(std::find(files.begin(), files.end(), "constructs"), files.end());
    EXPECT_NE(std::find(files.begin(), files.end(), "errors"), files.end());
}

TEST(ChatTemplate, ApplyMatchesRenderWithTransformersContext) {
    // The Llama-2 file's first case: a single user message, no generation prompt.
    const OrderedJson file = load("llama2_chat");
    ChatTemplate t(file["template"].get<std::string>());
    const auto& c = file["cases"][0];
    ChatHistory history;
    for (const auto& m : c["context"]["messages"]) history.push_back({{"role", m["role"]}, {"content", m["content"]}});
    EXPECT_EQ(t.apply(history, false, "<s>", "</s>"), c["expected"].get<std::string>());
}

TEST(ChatTemplate, RenderWithSortedJson) {
    ChatTemplate t("{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}{{ x | tojson }}");
    nlohmann::json context = {{"messages", {{{"role", "user"}, {"content", "hi"}}}}, {"x", {{"b", 1}, {"a", 2}}}};
    EXPECT_EQ(t.render(context), "<user>hi{\"a\": 2, \"b\": 1}");
}

TEST(ChatTemplate, StrftimeNowGivesTheDate) {
    // Llama 3.2 asks strftime_now for today's date when none is given; only its shape is checked.
    const OrderedJson file = load("llama32_instruct");
    ChatTemplate t(file["template"].get<std::string>());
    OrderedJson context = {{"messages", {{{"role", "user"}, {"content", "hi"}}}}, {"tools", nullptr},
                           {"bos_token", ""}, {"add_generation_prompt", true}};
    const std::string out = t.render_ordered(context);
    const size_t at = out.find("Today Date: ");
    ASSERT_NE(at, std::string::npos);
    const std::string date = out.substr(at + 12, out.find('\n', at) - at - 12);
    EXPECT_EQ(date.size(), 11u) << date;  // "%d %b %Y": "05 Mar 2025"
}

TEST(ChatTemplate, MovesAndRendersFromManyThreads) {
    ChatTemplate a("{% for i in range(n) %}{{ i }},{% endfor %}");
    ChatTemplate t(std::move(a));
    std::vector<std::thread> threads;
    std::vector<std::string> outs(8);
    for (int k = 0; k < 8; ++k)
        threads.emplace_back([&, k] { outs[static_cast<size_t>(k)] = t.render_ordered({{"n", k}}); });
    for (auto& th : threads) th.join();
    EXPECT_EQ(outs[3], "0,1,2,");
    EXPECT_EQ(outs[0], "");
}

std::string error_of(const std::string& source, const OrderedJson& context = OrderedJson::object()) {
    try {
        ChatTemplate(source).render_ordered(context);
    } catch (const ChatTemplateError& e) {
        return e.what();
    }
    return "";
}

TEST(ChatTemplate, HostileInputFailsCleanly) {
    // Output bounded: 100000 iterations of 1 KiB each would be about 100 MiB.
    EXPECT_NE(error_of("{% for i in range(100000) %}{{ s }}{% endfor %}", {{"s", std::string(1024, 'x')}})
                  .find("output too large"),
              std::string::npos);
    // Strings doubling in a loop are bounded before the output is.
    EXPECT_NE(error_of("{% set ns = namespace(s='x') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}")
                  .find("too large"),
              std::string::npos);
    // Nested loops: bounded in iterations.
    EXPECT_NE(error_of("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")
                  .find("too many loop iterations"),
              std::string::npos);
    // Deep nesting in the source.
    EXPECT_NE(error_of("{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}").find("nested too deeply"), std::string::npos);
    EXPECT_NE(error_of("{{ " + std::string(5000, '[') + std::string(5000, ']') + " }}").find("nested too deeply"),
              std::string::npos);
    std::string ifs;
    for (int i = 0; i < 3000; ++i) ifs += "{% if true %}";
    EXPECT_NE(error_of(ifs).find("nested too deeply"), std::string::npos);
    // Long chains are as deep as they are long: 20000 links of each kind of chain.
    auto chain = [](const std::string& first, const std::string& link, int n) {
        std::string e = first;
        for (int i = 0; i < n; ++i) e += link;
        return "{{ " + e + " }}";
    };
    for (const std::string& t : {chain("1", " + 1", 20000), chain("1", " ~ 1", 20000), chain("1", " * 1", 20000),
                                 chain("x", ".a", 20000), chain("x", "|trim", 20000), chain("1", " or 1", 20000),
                                 chain("1", " and 1", 20000), chain("1", " == 1", 20000), chain("1", " if 1 else 1", 20000),
                                 chain("x", "[0]", 20000), chain("2", " ** 1", 20000)})
        EXPECT_NE(error_of(t).find("nested too deeply"), std::string::npos) << t.substr(0, 40);
    // Mutual recursion through two macros.
    EXPECT_NE(error_of("{% macro a(n) %}{{ b(n) }}{% endmacro %}{% macro b(n) %}{{ a(n) }}{% endmacro %}{{ a(1) }}")
                  .find("nested too deeply"),
              std::string::npos);
    // Deeply nested data in the context.
    OrderedJson deep = OrderedJson::array();
    for (int i = 0; i < 2000; ++i) deep = OrderedJson::array({deep});
    EXPECT_NE(error_of("{{ x|tojson }}", {{"x", deep}}).find("nested too deeply"), std::string::npos);
    // Integer overflow is an error, not undefined behaviour.
    EXPECT_NE(error_of("{{ 9223372036854775807 + 1 }}").find("overflow"), std::string::npos);
    EXPECT_NE(error_of("{{ 2 ** 100 }}").find("overflow"), std::string::npos);
    EXPECT_NE(error_of("{{ (-9223372036854775807 - 1) | abs }}").find("overflow"), std::string::npos);
    EXPECT_NE(error_of("{{ [9223372036854775807, 1] | sum }}").find("overflow"), std::string::npos);
    EXPECT_NE(error_of("{{ 4 is divisibleby(-9223372036854775807 - 1) }}").find("overflow"), std::string::npos);
    // Steps and ranges that would walk past the int64 end stop at it.
    EXPECT_EQ(ChatTemplate("{{ 'abc'[1::9223372036854775807] }}").render(nlohmann::json::object()), "b");
    EXPECT_EQ(ChatTemplate("{{ range(9223372036854775806, 9223372036854775807, 5) | length }}").render(nlohmann::json::object()), "1");
    // Not an object.
    EXPECT_THROW(ChatTemplate("x").render_ordered(OrderedJson::array()), ChatTemplateError);
    // Invalid UTF-8 in the data does not crash the string operations.
    EXPECT_NO_THROW(ChatTemplate("{{ s|length }}{{ s[::-1] }}{{ s|tojson }}{{ s.strip() }}")
                        .render_ordered({{"s", std::string("\xff\xfe a \xc3")}}));
}

TEST(ChatTemplate, ErrorsNameLineAndColumn) {
    const std::string e = error_of("line one\n  {{ messages | frobnicate }}");
    EXPECT_NE(e.find("line 2:17"), std::string::npos) << e;
    EXPECT_NE(e.find("frobnicate"), std::string::npos) << e;
}

}  // namespace
