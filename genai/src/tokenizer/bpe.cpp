#include "tokenizer/bpe.hpp"

#include "tokenizer/utf8.hpp"

#include <cstdio>
#include <queue>

namespace mosaic::genai::tokenizer {
namespace {

std::optional<std::string> optional_string(const JsonNode& node, const std::string& key) {
    if (!node.has(key)) return std::nullopt;
    return node[key].string();
}

// A merges entry: ["a", "b"] (tokenizers >= 0.20) or "a b" (older files).
std::pair<std::string, std::string> read_merge(const JsonNode& entry) {
    if (entry.value().is_array()) {
        if (entry.size() != 2) entry.fail("is not a pair of tokens");
        return {entry.at(0).string(), entry.at(1).string()};
    }
    const std::string line = entry.string();
    const size_t space = line.find(' ');
    if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos)
        entry.fail("\"" + line + "\" is not two tokens separated by one space");
    return {line.substr(0, space), line.substr(space + 1)};
}

}  // namespace

Bpe::Bpe(const JsonNode& node) {
    if (node.type() != "BPE") node.not_implemented("model");
    if (node.has("dropout") && node["dropout"].number() != 0.0)
        node["dropout"].fail("is not null: BPE dropout (random merges) is not implemented by Mosaic's tokenizer");
    unk_token_ = optional_string(node, "unk_token");
    prefix_ = optional_string(node, "continuing_subword_prefix");
    suffix_ = optional_string(node, "end_of_word_suffix");
    fuse_unk_ = node.bool_or("fuse_unk", false);
    byte_fallback_ = node.bool_or("byte_fallback", false);
    ignore_merges_ = node.bool_or("ignore_merges", false);

    const JsonNode vocab = node["vocab"];
    if (!vocab.value().is_object()) vocab.fail("is not an object");
    for (const auto& [token, id] : vocab.value().items()) {
        if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > kMaxTokenId)
            JsonNode(id, vocab.file(), vocab.path() + "[" + json(token).dump() + "]")
                .fail("is not an id (a whole number from 0 to " + std::to_string(kMaxTokenId) + ")");
        const auto i = id.get<uint32_t>();
        vocab_[token] = i;
        if (i >= tokens_.size()) {
            tokens_.resize(i + 1);
            has_id_.resize(i + 1);
        }
        tokens_[i] = token;
        has_id_[i] = true;
    }

    const JsonNode merges = node["merges"];
    const size_t prefix_length = prefix_ ? prefix_->size() : 0;
    for (size_t rank = 0, n = merges.size(); rank < n; ++rank) {
        const JsonNode entry = merges.at(rank);
        const auto [a, b] = read_merge(entry);
        const auto id_of = [&](const std::string& token) {
            const auto it = vocab_.find(token);
            if (it == vocab_.end()) entry.fail("names \"" + token + "\", which is not in model.vocab");
            return it->second;
        };
        const uint32_t a_id = id_of(a), b_id = id_of(b);
        // As HF: b's first prefix_length bytes are the continuing-subword prefix, whatever they hold.
        if (b.size() < prefix_length) entry.fail("\"" + b + "\" is shorter than the continuing_subword_prefix");
        merges_[pair_key(a_id, b_id)] = {static_cast<uint32_t>(rank), id_of(a + b.substr(prefix_length))};
    }

    if (byte_fallback_) {
        byte_ids_.assign(256, -1);
        for (int b = 0; b < 256; ++b) {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            if (const auto it = vocab_.find(name); it != vocab_.end()) byte_ids_[static_cast<size_t>(b)] = it->second;
        }
    }
    if (unk_token_ && !vocab_.count(*unk_token_))
        node["unk_token"].fail("\"" + *unk_token_ + "\" is not in model.vocab");
}

std::optional<int64_t> Bpe::token_to_id(const std::string& token) const {
    const auto it = vocab_.find(token);
    if (it == vocab_.end()) return std::nullopt;
    return it->second;
}

const std::string* Bpe::id_to_token(int64_t id) const {
    if (id < 0 || static_cast<size_t>(id) >= tokens_.size() || !has_id_[static_cast<size_t>(id)]) return nullptr;
    return &tokens_[static_cast<size_t>(id)];
}

const Bpe::Merge* Bpe::merge_of(uint32_t a, uint32_t b) const {
    const auto it = merges_.find(pair_key(a, b));
    return it == merges_.end() ? nullptr : &it->second;
}

std::vector<uint32_t> Bpe::characters(std::string_view word) const {
    std::vector<uint32_t> ids;
    ids.reserve(word.size());
    std::optional<uint32_t> pending_unk;  // fuse_unk folds a run of unknown characters into one
    std::string symbol;
    for (size_t i = 0; i < word.size();) {
        const size_t begin = i;
        next_code_point(word, i);
        symbol.clear();
        if (prefix_ && begin > 0) symbol += *prefix_;
        symbol.append(word.substr(begin, i - begin));
        if (suffix_ && i == word.size()) symbol += *suffix_;

        if (const auto it = vocab_.find(symbol); it != vocab_.end()) {
            if (pending_unk) ids.push_back(*pending_unk);
            pending_unk.reset();
            ids.push_back(it->second);
            continue;
        }
        if (byte_fallback_) {
            bool all = true;
            for (const char c : symbol) all = all && byte_ids_[static_cast<unsigned char>(c)] >= 0;
            if (all) {
                // As HF, a pending unknown token waits until a known character comes.
                for (const char c : symbol)
                    ids.push_back(static_cast<uint32_t>(byte_ids_[static_cast<unsigned char>(c)]));
                continue;
            }
        }
        // Without an unknown token HF drops the character.
        if (!unk_token_) continue;
        if (pending_unk && !fuse_unk_) ids.push_back(*pending_unk);
        pending_unk = vocab_.at(*unk_token_);
    }
    if (pending_unk) ids.push_back(*pending_unk);
    return ids;
}

void Bpe::tokenize(std::string_view word, std::vector<int64_t>& ids) const {
    if (word.empty()) return;
    if (ignore_merges_) {
        if (const auto it = vocab_.find(std::string(word)); it != vocab_.end()) {
            ids.push_back(it->second);
            return;
        }
    }
    struct Symbol {
        uint32_t id;
        int prev, next;
        bool alive;
    };
    const std::vector<uint32_t> start = characters(word);
    std::vector<Symbol> symbols(start.size());
    for (size_t i = 0; i < start.size(); ++i)
        symbols[i] = {start[i], static_cast<int>(i) - 1, i + 1 < start.size() ? static_cast<int>(i) + 1 : -1, true};

    struct Candidate {
        uint32_t rank;
        int pos;
        uint32_t id;
        bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    for (size_t i = 0; i + 1 < symbols.size(); ++i)
        if (const Merge* m = merge_of(symbols[i].id, symbols[i + 1].id))
            queue.push({m->rank, static_cast<int>(i), m->id});

    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        Symbol& left = symbols[static_cast<size_t>(top.pos)];
        if (!left.alive || left.next < 0) continue;
        Symbol& right = symbols[static_cast<size_t>(left.next)];
        // Either side may have merged since this candidate was queued.
        const Merge* current = merge_of(left.id, right.id);
        if (!current || current->id != top.id) continue;
        left.id = top.id;
        right.alive = false;
        left.next = right.next;
        if (left.next >= 0) symbols[static_cast<size_t>(left.next)].prev = top.pos;
        if (left.prev >= 0)
            if (const Merge* m = merge_of(symbols[static_cast<size_t>(left.prev)].id, left.id))
                queue.push({m->rank, left.prev, m->id});
        if (left.next >= 0)
            if (const Merge* m = merge_of(left.id, symbols[static_cast<size_t>(left.next)].id))
                queue.push({m->rank, top.pos, m->id});
    }
    for (const Symbol& s : symbols)
        if (s.alive) ids.push_back(s.id);
}

}  // namespace mosaic::genai::tokenizer
