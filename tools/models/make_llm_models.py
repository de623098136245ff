#!/usr/bin/env python3
"""LLM folders as users download and export them, with the generations `transformers` makes on them.

Each is a decoder built from a `transformers` config with random weights (a fixed seed) at a small
size, with a byte-level BPE tokenizer trained here (the hub is out of reach) and a ChatML chat
template, exported the two ways optimum offers for `text-generation-with-past`:

- `llama`, `gpt2`, `qwen2`: optimum's ONNX (model.onnx with past_key_values / present outputs),
- `llama_ov`, `gpt2_ov`, `qwen2_ov`: optimum-intel's stateful OpenVINO IR (openvino_model.xml),
- `llama_ort`, `qwen2_ort`: ONNX Runtime GenAI's model builder (`onnxruntime_genai.models.builder
  -p fp32 -e cpu`): model.onnx with com.microsoft GroupQueryAttention and SkipSimplifiedLayerNormalization,

each folder beside config.json, generation_config.json, tokenizer.json and tokenizer_config.json,
as optimum-cli leaves them. `generate.json` holds what transformers' `generate` (f32, greedy,
the model's own generation config) returns for each prompt:

    {"max_new_tokens": 64, "prompts": [{"text", "ids", "generated", "generated_text",
                                         "first_logits": [vocab floats]}]}

    python tools/models/make_llm_models.py OUT_DIR [--only llama,gpt2_ov] [--force]

writes OUT_DIR/llm_<name>/, generate.json last (its presence marks a complete folder). Needs torch,
transformers, tokenizers, optimum[onnx], optimum-intel and onnxruntime-genai
(scripts/install_model_exporters.sh).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from exported_models import main

ARCHITECTURES = ("llama", "gpt2", "qwen2")
MAX_NEW_TOKENS = 64
PROMPTS = [
    "The quick brown fox",
    "Once upon a time, in a land far away, there lived",
    "def fibonacci(n):\n    ",
    "Naïve café — 東京 🚀",
]
CHATML = ("{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + "
          "'<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")


def corpus():
    """Text to train the tokenizer on: English prose, code and some other scripts."""
    import this  # noqa: F401  (prints the Zen of Python; its text is a handy corpus)
    import codecs
    zen = codecs.decode(this.s, "rot13")
    lines = [zen, __doc__]
    for n in range(200):
        lines.append("def f%d(x):\n    return x * %d + %d  # %s" % (n, n, n * 7, "value"))
        lines.append("The number %d is %s than %d, said the fox to the dog." % (n, "larger" if n % 2 else "smaller", n + 3))
    lines += ["Naïve café résumé", "東京 大阪 京都", "Привет мир", "🚀 ✨ 👍🏽"] * 20
    return lines


def tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast
    t = Tokenizer(models.BPE())
    t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    t.decoder = decoders.ByteLevel()
    t.post_processor = processors.ByteLevel(trim_offsets=False)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    trainer = trainers.BpeTrainer(vocab_size=800, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    t.train_from_iterator(corpus(), trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=t, bos_token="<|endoftext|>", eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>")
    fast.chat_template = CHATML
    return fast


def config(name, tok):
    import transformers
    ids = dict(vocab_size=len(tok), bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    if name == "llama":
        return transformers.LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                                        num_key_value_heads=2, max_position_embeddings=256, **ids)
    if name == "qwen2":
        return transformers.Qwen2Config(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                                        num_key_value_heads=2, max_position_embeddings=256, **ids)
    if name == "gpt2":
        return transformers.GPT2Config(n_embd=64, n_layer=2, n_head=4, n_positions=256, **ids)
    raise SystemExit("unknown architecture " + name)


def build(name, folder):
    """The Hugging Face folder: weights, config, generation config and tokenizer."""
    import torch
    import transformers
    torch.manual_seed(0)
    tok = tokenizer()
    cls = {"llama": transformers.LlamaForCausalLM, "qwen2": transformers.Qwen2ForCausalLM,
           "gpt2": transformers.GPT2LMHeadModel}[name]
    model = cls(config(name, tok)).eval()
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return model, tok


def generations(model, tok):
    import torch
    out = []
    for text in PROMPTS:
        ids = tok(text, return_tensors="pt").input_ids
        with torch.no_grad():
            first = model(ids).logits[0, -1].tolist()
            full = model.generate(ids, max_new_tokens=MAX_NEW_TOKENS, do_sample=False)[0, ids.shape[1]:].tolist()
        out.append({"text": text, "ids": ids[0].tolist(), "generated": full,
                    "generated_text": tok.decode(full, skip_special_tokens=True), "first_logits": first})
    return {"max_new_tokens": MAX_NEW_TOKENS, "prompts": out}


def export(name, out_dir, force):
    target = os.path.join(out_dir, "llm_" + name)
    marker = os.path.join(target, "generate.json")
    if os.path.exists(marker) and not force:
        return "cached"
    ir, builder = name.endswith("_ov"), name.endswith("_ort")
    arch = name.rsplit("_", 1)[0] if ir or builder else name
    with tempfile.TemporaryDirectory() as tmp:
        hf = os.path.join(tmp, "hf")
        model, tok = build(arch, hf)
        expected = generations(model, tok)
        exported = os.path.join(tmp, "exported")
        if builder:
            subprocess.run([sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", hf, "-o", exported,
                            "-p", "fp32", "-e", "cpu"], check=True)
            for extra in ("config.json", "generation_config.json"):  # what a model folder holds beside it
                shutil.copy(os.path.join(hf, extra), os.path.join(exported, extra))
        elif ir:
            cli = os.path.join(os.path.dirname(sys.executable), "optimum-cli")
            subprocess.run([cli, "export", "openvino", "--model", hf, "--task", "text-generation-with-past",
                            "--weight-format", "fp32", exported], check=True)
        else:
            from optimum.exporters.onnx import main_export
            main_export(hf, output=exported, task="text-generation-with-past", no_post_process=True)
        if os.path.exists(target):
            shutil.rmtree(target)
        shutil.copytree(exported, target)
    # optimum-intel writes OpenVINO's own tokenizer models when openvino_tokenizers is installed;
    # Mosaic reads tokenizer.json, which both exporters copy.
    with open(marker + ".tmp", "w") as f:
        json.dump(expected, f)
    os.replace(marker + ".tmp", marker)
    return ", ".join(sorted(os.listdir(target)))


if __name__ == "__main__":
    names = list(ARCHITECTURES) + [a + "_ov" for a in ARCHITECTURES] + ["llama_ort", "qwen2_ort"]
    sys.exit(main(sys.argv[1:], __doc__, "llm_", names, export))
