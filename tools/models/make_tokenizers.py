#!/usr/bin/env python3
"""Tokenizers of the LLM families, trained here with Hugging Face `tokenizers`, and what HF makes of a
test corpus with them: the references of Mosaic's C++ tokenizer (tests/genai/tokenizer_test.cpp).

The hub is out of reach, so each family's tokenizer.json is built with the structure its real
model's file has (normalizer, pre-tokenizer, model flags, post-processor, decoder, added tokens) and
a vocabulary of a few thousand trained on a corpus made here (seeded, so every run writes the same):

- `gpt2`: ByteLevel pre-tokenizer (GPT-2's regex), ByteLevel post-processor and decoder,
  <|endoftext|> as the last id.
- `llama3`: Split on Llama-3's regex (digits in threes) then ByteLevel without its regex; BPE with
  ignore_merges; TemplateProcessing adding <|begin_of_text|>.
- `qwen2`: NFC, Split on Qwen2's regex (single digits) then ByteLevel; <|im_start|> and
  <|im_end|> special, <tool_call> added but not special; no BOS.
- `smollm2`: Digits(individual_digits) then ByteLevel; 17 special tokens first in the vocabulary.
- `llama2`: SentencePiece-style BPE as the Llama-2 converter writes it: normalizer
  Prepend("▁") + Replace(" ", "▁"), no pre-tokenizer, byte fallback over <0x00>..<0xFF>, fuse_unk,
  decoder Replace + ByteFallback + Fuse + Strip, TemplateProcessing adding <s>.
- `mistral`: the newer SentencePiece-style layout: no normalizer, Metaspace(prepend_scheme
  "first", split false) as pre-tokenizer and decoder, byte fallback; [INST] and [/INST] special.

    python tools/models/make_tokenizers.py OUT_DIR [--only gpt2,llama3,...] [--force]

writes OUT_DIR/tokenizer_<family>/tokenizer.json, tokenizer_config.json (bos/eos/pad tokens and a
chat template, in the forms real files use) and corpus.json: a list of {"text", "ids" (with the
special tokens the post-processor adds), "ids_no_special", "decoded" (of ids, special tokens
skipped), "decoded_all" (of ids, special tokens kept), "decoded_no_special" (of ids_no_special),
"decoded_each" (each id of ids_no_special alone)}, all from HF `tokenizers`, tokenizer.json read
back from the file written. corpus.json is written last: its presence marks a complete folder.
Needs `tokenizers` (the torch exporters' venv has it).
"""
import collections
import json
import os
import random
import sys

from exported_models import main

FAMILIES = ["gpt2", "llama3", "qwen2", "smollm2", "llama2", "mistral"]
CORPUS_SIZE = 2400  # test strings per family

LLAMA3_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
               r"|\s*[\r\n]+|\s+(?!\S)|\s+")
SMOLLM2_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<repo_name>", "<reponame>", "<file_sep>",
                    "<filename>", "<gh_stars>", "<issue_start>", "<issue_comment>", "<issue_closed>",
                    "<jupyter_start>", "<jupyter_text>", "<jupyter_code>", "<jupyter_output>", "<jupyter_script>",
                    "<empty_output>"]
CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + "
          "'<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")
LLAMA3_CHAT = ("{{ bos_token }}{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + "
               "'<|end_header_id|>\n\n' + message['content'] | trim + '<|eot_id|>' }}{% endfor %}"
               "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}")
INST_CHAT = ("{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}"
             "{{ '[INST] ' + message['content'] + ' [/INST]' }}{% else %}{{ message['content'] + eos_token }}"
             "{% endif %}{% endfor %}")

# The words of the corpora, by script.
WORDS = {
    "latin": ("the quick brown fox jumps over lazy dog hello world tokenizer model inference runtime kernel tensor "
              "graph layer weight cache memory thread device plugin compile request batch token vocabulary merge "
              "rank byte fallback prefix space language sentence paragraph example simple value function return "
              "Python Rust English French German Spanish Paris London Berlin Monday January OpenAI Mosaic "
              "café naïve résumé façade über straße señor año déjà vu Ångström smörgåsbord Łódź Dvořák "
              "garçon crème brûlée piñata fiancée Zürich São Paulo Kraków Ελλάδα").split(),
    "cyrillic": "привет мир быстрый язык модель токен Москва ёлка данные память поток слово Россия".split(),
    "greek": "γειά σου κόσμε Αθήνα λόγος ΣΟΦΙΑ ψυχή θάλασσα ήλιος φως".split(),
    "cjk": "你好 世界 模型 推理 中文 汉字 東京 北京大学 数据 语言 计算机 人工智能".split(),
    "kana": "こんにちは カタカナ ひらがな ありがとう トークン 日本語 東京タワー すし".split(),
    "korean": "안녕하세요 세계 한국어 토큰화 서울 감사합니다 데이터".split(),
    "arabic": "مرحبا العالم اللغة العربية كتاب بيانات".split(),
    "hebrew": "שלום עולם עברית ספר מילה".split(),
    "devanagari": "नमस्ते दुनिया हिन्दी भाषा भारत क्षत्रिय".split(),
    "thai": "สวัสดี โลก ภาษาไทย กรุงเทพ ขอบคุณ".split(),
}
EMOJI = ["😀", "👍", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇫🇷", "🇯🇵", "❤️", "🧑🏿‍💻", "👩‍🔬", "🤖", "✨", "🎉",
         "🙏🏻", "👋🏾", "🏴‍☠️", "😂😂😂", "🔥"]
# Composed and decomposed forms side by side (NFC composes, reorders marks), and marks on their own.
COMBINING = ["e\u0301", "é", "a\u0308", "ä", "n\u0303", "ñ", "A\u030a", "Å", "\u212b", "q\u0307\u0323",
             "q\u0323\u0307", "\u1e9b\u0323", "o\u0308\u0304", "\u0301", "ﬁ", "Ｆｕｌｌ", "ｶﾀｶﾅ", "①", "x\u0336y\u0336"]
SPACES = [" ", "  ", "   ", "\t", "\n", "\r\n", "\n\n", "\u00a0", "\u2003", "\u3000", "\u2009", "\u202f",
          "\u200b", "\u180e", " \t ", "   \n\n  ", "\r", "\u2028", "\u0085", "\x0b", "\x0c"]
CODE = [
    "def add(a, b):\n    return a + b\n",
    "for i in range(10):\n\tprint(f\"{i:>3}\")",
    "import numpy as np\nx = np.zeros((3, 4), dtype=np.float32)",
    "class Foo(Bar):\n    '''Docstring.'''\n    pass",
    "#include <vector>\nint main() { std::vector<int> v{1, 2, 3}; return v[0]; }",
    "template <class T> T max(T a, T b) { return a > b ? a : b; }",
    "if (x != nullptr && *x >= 0x1F) { ++count; }  // comment",
    "{\"name\": \"mosaic\", \"version\": [1, 2, 3], \"ok\": true, \"none\": null}",
    "[{\"text\": \"héllo\", \"ids\": [1, 2]}, {}]",
    "SELECT * FROM users WHERE id = 42;",
    "<div class=\"x\">&amp; &lt;tag&gt;</div>",
    "$ ls -la ~/work | grep '.cpp' && echo \"done\" >> log.txt",
    "x <<= 2; y >>= 3; z **= 4; a //= b; c := d",
]
CONTRACTIONS = ["I'm", "you're", "it's", "don't", "we've", "they'll", "he'd", "IT'S", "DON'T", "I'M", "Y'ALL",
                "She'S", "can't", "won't", "'s", "'tis", "rock'n'roll", "O'Neil's", "we'RE", "’s", "it’s"]
NUMBERS = ["0", "7", "42", "123", "1234", "12345", "1234567", "3.14159", "1,000,000", "2024-01-15", "v1.2.3",
           "٣٤٥", "１２３", "²³", "Ⅻ", "½", "0x1F", "1e-9", "-273.15", "100%", "$5.99", "№5"]
# Characters from blocks the training corpus never sees: byte fallback or unknown bytes.
RARE_BLOCKS = [(0x10A0, 0x10FF), (0x0531, 0x0587), (0x1200, 0x137C), (0x0F40, 0x0F6C), (0x1D400, 0x1D4FF),
               (0x10330, 0x1034A), (0x2200, 0x22FF), (0x13A0, 0x13F4), (0x1780, 0x17DD), (0xA000, 0xA48C),
               (0x1F300, 0x1F5FF), (0x0400, 0x04FF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3)]


def made_up_words(rng, count):
    """Latin-script words of a few syllables, for a vocabulary of a few thousand."""
    syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in ["a", "e", "i", "o", "u", "ou", "ai", "é"]]
    return ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(count)]


def training_lines(rng):
    """A few thousand lines of the corpus' words, code, numbers and spaces: what the vocabulary learns."""
    lines = []
    groups = list(WORDS.values()) + [made_up_words(rng, 3000)] * 3
    for _ in range(6000):
        words = rng.choice(groups)
        n = rng.randint(3, 14)
        line = " ".join(rng.choice(words) for _ in range(n))
        if rng.random() < 0.3:
            line += " " + rng.choice(NUMBERS) + " " + rng.choice(CONTRACTIONS)
        if rng.random() < 0.1:
            line = rng.choice(CODE) + "\n" + line
        if rng.random() < 0.05:
            line += " " + rng.choice(EMOJI)
        lines.append(line)
    return lines


def rare_word(rng):
    out = []
    for _ in range(rng.randint(1, 6)):
        lo, hi = rng.choice(RARE_BLOCKS)
        out.append(chr(rng.randint(lo, hi)))
    return "".join(out)


def unseen_word(rng):
    letters = "abcdefghijklmnopqrstuvwxyzäöüßçñøå"
    word = "".join(rng.choice(letters) for _ in range(rng.randint(4, 14)))
    return word.upper() if rng.random() < 0.2 else word


def test_strings(rng, specials):
    """The strings every family is checked on: fixed edge cases, then random mixtures."""
    fixed = ["", " ", "  ", "\n", "\t", "\r\n", "a", "A", " leading", "trailing ", "  both  ", "\u00a0", "é",
             "e\u0301", "'s", "'S", "I'M FINE", "123456789", "1 2 3", "  \n  x", "x\n\n\ny", "\u3000全角",
             "😀", "👨‍👩‍👧‍👦", "🇫🇷🇯🇵", "\ufeffBOM", "\U0010fffd", "\x00\x01\x7f", "tab\there",
             "ﬁnance", "Ω≈ç√∫", "a" * 300, " " * 50, "\n" * 20, "ab" * 100 + "!",
             "".join(chr(c) for c in range(0x20, 0x7f))]
    for s in specials:
        fixed += [s, " " + s, s + " ", "x" + s + "y", s + s, s + "\n" + s, "a " + s + " b", s[:-1], s[1:]]
    pieces = [
        lambda: rng.choice(rng.choice(list(WORDS.values()))),
        lambda: rng.choice(rng.choice(list(WORDS.values()))).capitalize(),
        lambda: rng.choice(EMOJI),
        lambda: rng.choice(COMBINING),
        lambda: rng.choice(CODE),
        lambda: rng.choice(CONTRACTIONS),
        lambda: rng.choice(NUMBERS),
        lambda: str(rng.randint(0, 10 ** rng.randint(1, 15))),
        lambda: rare_word(rng),
        lambda: unseen_word(rng),
        lambda: rng.choice(specials) if specials else "x",
        lambda: rng.choice(".,;:!?-()[]{}\"'`~@#$%^&*_+=|\\/<>…—–«»„“”‘’¿¡"),
    ]
    weights = [30, 6, 5, 5, 3, 5, 5, 4, 5, 6, 3, 8]
    strings = list(fixed)
    while len(strings) < CORPUS_SIZE:
        parts = []
        for _ in range(rng.randint(1, 12)):
            parts.append(rng.choices(pieces, weights)[0]())
            parts.append(rng.choice(SPACES) if rng.random() < 0.3 else " " if rng.random() < 0.8 else "")
        text = "".join(parts)
        if rng.random() < 0.1:
            text = rng.choice(SPACES) + text
        if rng.random() < 0.3:
            text = text.rstrip(" ")
        strings.append(text)
    return strings


def byte_level(add_prefix_space, trim_offsets, use_regex):
    from tokenizers import pre_tokenizers
    return pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, trim_offsets=trim_offsets, use_regex=use_regex)


def train_byte_level(family, lines):
    """A byte-level BPE with the family's normalizer and pre-tokenizer, trained on `lines`."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    tok = Tokenizer(models.BPE(ignore_merges=family == "llama3"))
    if family == "gpt2":
        tok.pre_tokenizer = byte_level(False, True, True)
    elif family in ("llama3", "qwen2"):
        regex = LLAMA3_REGEX if family == "llama3" else QWEN2_REGEX
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(regex), behavior="isolated", invert=False),
            byte_level(False, family == "llama3", False)])
        if family == "qwen2":
            tok.normalizer = normalizers.NFC()
    elif family == "smollm2":
        tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                     byte_level(False, True, True)])
    specials = SMOLLM2_SPECIALS if family == "smollm2" else []
    trainer = trainers.BpeTrainer(vocab_size=3000, special_tokens=specials, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(lines, trainer)
    if family == "gpt2":
        tok.add_special_tokens(["<|endoftext|>"])
        tok.post_processor = processors.ByteLevel(add_prefix_space=True, trim_offsets=False, use_regex=True)
        tok.decoder = decoders.ByteLevel(add_prefix_space=True, trim_offsets=True, use_regex=True)
    elif family == "llama3":
        tok.add_special_tokens(["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
                                "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"])
        bos = tok.token_to_id("<|begin_of_text|>")
        tok.post_processor = processors.Sequence([
            processors.ByteLevel(add_prefix_space=True, trim_offsets=False, use_regex=True),
            processors.TemplateProcessing(single="<|begin_of_text|> $A",
                                          pair="<|begin_of_text|> $A <|begin_of_text|>:1 $B:1",
                                          special_tokens=[("<|begin_of_text|>", bos)])])
        tok.decoder = decoders.ByteLevel(add_prefix_space=True, trim_offsets=True, use_regex=True)
    elif family == "qwen2":
        from tokenizers import AddedToken
        tok.add_special_tokens(["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
        tok.add_tokens([AddedToken("<tool_call>", normalized=False, special=False),
                        AddedToken("</tool_call>", normalized=False, special=False)])
        tok.post_processor = processors.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
        tok.decoder = decoders.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    else:
        tok.post_processor = processors.ByteLevel(add_prefix_space=True, trim_offsets=False, use_regex=True)
        tok.decoder = decoders.ByteLevel(add_prefix_space=True, trim_offsets=True, use_regex=True)
    return json.loads(tok.to_str())


def train_sentencepiece_style(family, lines):
    """A Llama-2 (`llama2`) or Mistral (`mistral`) tokenizer.json: ids 0-2 <unk> <s> </s>, 3-258 the
    byte tokens, then merges learnt on ▁-joined words (as SentencePiece learns them, never across a
    ▁), with an alphabet too small for every character so that byte fallback has work."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    learner = Tokenizer(models.BPE())
    learner.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    learner.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="never", split=True)
    # The trainer's own limit_alphabet breaks ties between equally frequent characters at random:
    # the alphabet is chosen here (ties by code point), and given as the only one it may keep.
    counts = collections.Counter("".join(lines).replace(" ", "▁"))
    alphabet = sorted(counts, key=lambda c: (-counts[c], c))[:160]
    learner.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=2500, limit_alphabet=len(alphabet),
                                                           initial_alphabet=alphabet, show_progress=False))
    learnt = json.loads(learner.to_str())["model"]
    specials = ["<unk>", "<s>", "</s>"]
    vocab = {t: i for i, t in enumerate(specials + ["<0x%02X>" % b for b in range(256)])}
    for token, _ in sorted(learnt["vocab"].items(), key=lambda kv: kv[1]):
        vocab.setdefault(token, len(vocab))
    model = models.BPE(vocab=vocab, merges=[tuple(m) for m in learnt["merges"]], unk_token="<unk>",
                       fuse_unk=True, byte_fallback=True)
    tok = Tokenizer(model)
    tok.add_special_tokens(specials + (["[INST]", "[/INST]"] if family == "mistral" else []))
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s>:1 $B:1",
                                                       special_tokens=[("<s>", 1)])
    if family == "llama2":
        tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
        tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                         decoders.Strip(content=" ", left=1, right=0)])
    else:
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False)
        tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first", split=False)
    return json.loads(tok.to_str())


def make_real(family, data):
    """What the real files hold that training does not set: GPT-2's and Qwen2's empty subword
    prefix and suffix, Qwen2's decoder flags, merges as "a b" strings in the files written before
    tokenizers 0.20 (GPT-2's, Llama-2's; the others keep the newer pairs), and special tokens that
    are not normalized."""
    if family in ("gpt2", "qwen2"):
        data["model"]["continuing_subword_prefix"] = ""
        data["model"]["end_of_word_suffix"] = ""
    if family == "qwen2":
        data["decoder"].update(add_prefix_space=False, trim_offsets=False, use_regex=False)
    if family in ("gpt2", "llama2"):
        data["model"]["merges"] = [" ".join(pair) for pair in data["model"]["merges"]]
    for token in data["added_tokens"]:
        if token["special"]:
            token["normalized"] = family == "gpt2"  # GPT-2's <|endoftext|> says normalized: true
    return data


def config(family):
    """tokenizer_config.json as each family's real one writes its special tokens and chat template."""
    if family == "gpt2":
        return {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>"}
    if family == "llama3":
        return {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>", "chat_template": LLAMA3_CHAT}
    if family == "qwen2":
        return {"bos_token": None, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>", "chat_template": CHATML}
    if family == "smollm2":
        return {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "pad_token": "<|im_end|>",
                "chat_template": CHATML}

    def added(content):
        return {"__type": "AddedToken", "content": content, "lstrip": False, "normalized": False, "rstrip": False,
                "single_word": False}
    if family == "llama2":
        return {"bos_token": added("<s>"), "eos_token": added("</s>"), "pad_token": None, "unk_token": added("<unk>"),
                "chat_template": [{"name": "default", "template": INST_CHAT},
                                  {"name": "tool_use", "template": "{{ bos_token }}tools"}]}
    return {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "chat_template": INST_CHAT}


def write_json(path, value):
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, indent=1)
    os.replace(tmp, path)


def export(family, out_dir, force):
    from tokenizers import Tokenizer
    target = os.path.join(out_dir, "tokenizer_" + family)
    corpus_path = os.path.join(target, "corpus.json")
    if os.path.exists(corpus_path) and not force:
        return "cached"
    os.makedirs(target, exist_ok=True)
    rng = random.Random("mosaic-tokenizers-" + family)
    lines = training_lines(rng)
    if family in ("llama2", "mistral"):
        data = train_sentencepiece_style(family, lines)
    else:
        data = train_byte_level(family, lines)
    write_json(os.path.join(target, "tokenizer.json"), make_real(family, data))
    write_json(os.path.join(target, "tokenizer_config.json"), config(family))

    tok = Tokenizer.from_file(os.path.join(target, "tokenizer.json"))
    specials = [t["content"] for t in data["added_tokens"]]
    corpus = []
    for text in test_strings(rng, specials):
        ids = tok.encode(text).ids
        plain = tok.encode(text, add_special_tokens=False).ids
        corpus.append({"text": text, "ids": ids, "ids_no_special": plain,
                       "decoded": tok.decode(ids, skip_special_tokens=True),
                       "decoded_all": tok.decode(ids, skip_special_tokens=False),
                       "decoded_no_special": tok.decode(plain, skip_special_tokens=True),
                       "decoded_each": [tok.decode([i], skip_special_tokens=True) for i in plain]})
    write_json(corpus_path, corpus)
    return "%d strings, vocabulary of %d" % (len(corpus), tok.get_vocab_size())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], __doc__, "tokenizer_", FAMILIES, export))
