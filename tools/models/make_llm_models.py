#!/usr/bin/env python3
"""LLM folders as users download and export them, with the generations `transformers` makes on them.

Each is a decoder built from a `transformers` config with random weights (a fixed seed) at a small
size, with a byte-level BPE tokenizer trained here (the hub is out of reach) and a ChatML chat
template, exported the two ways optimum offers for `text-generation-with-past`:

- `llama`, `gpt2`, `qwen2`: optimum's ONNX (model.onnx with past_key_values / present outputs),
- `llama_ov`, `gpt2_ov`, `qwen2_ov`: optimum-intel's stateful OpenVINO IR (openvino_model.xml),
- `llama_ort`, `qwen2_ort`: ONNX Runtime GenAI's model builder (`onnxruntime_genai.models.builder
  -p fp32 -e cpu`): model.onnx with com.microsoft GroupQueryAttention and SkipSimplifiedLayerNormalization,
- with compressed weights: `llama_ov_int4` (optimum-intel `--weight-format int4 --group-size 16
  --ratio 1.0`: u4 weights in groups of 16, the embedding and head u8 per channel), `qwen2_ov_int8`
  (`--weight-format int8`), `llama_ort_int4`, `qwen2_ort_int4` (the builder's `-p int4`:
  com.microsoft MatMulNBits, blocks of 32, symmetric, `int4_accuracy_level` 4 as it writes them),

each folder beside config.json, generation_config.json, tokenizer.json and tokenizer_config.json,
as optimum-cli leaves them. `generate.json` holds what transformers' `generate` (f32, greedy,
the model's own generation config) returns for each prompt; for the compressed models, what the
runtime of their format computes on them at f32 accuracy (the same quantized weights, dequantized
exactly): OpenVINO through optimum-intel (INFERENCE_PRECISION_HINT f32, no dynamic quantization of
activations, an f32 KV cache), ONNX Runtime GenAI with each MatMulNBits' accuracy_level set to 0:

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


# The prose the tokenizer trains on besides the Zen of Python: this script's docstring as it was
# when the test models were first made, frozen, so that documenting the script does not retrain the
# tokenizer (and change every model's generations, which the tests check token by token).
TOKENIZER_PROSE = """LLM folders as users download and export them, with the generations `transformers` makes on them.

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


def corpus():
    """Text to train the tokenizer on: English prose, code and some other scripts."""
    import this  # noqa: F401  (prints the Zen of Python; its text is a handy corpus)
    import codecs
    zen = codecs.decode(this.s, "rot13")
    lines = [zen, TOKENIZER_PROSE]
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


def ov_generations(folder, tok):
    """OpenVINO's generations on an IR with compressed weights, at f32 accuracy."""
    from optimum.intel import OVModelForCausalLM
    config = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0", "KV_CACHE_PRECISION": "f32"}
    model = OVModelForCausalLM.from_pretrained(folder, ov_config=config)
    model.generation_config.pad_token_id = tok.pad_token_id
    return generations(model, tok)


def ort_generations(folder, tok):
    """ONNX Runtime GenAI's generations on a builder model with MatMulNBits, at f32 accuracy (a copy
    with accuracy_level 0: the builder's 4 quantizes the activations to int8)."""
    import onnx
    import onnxruntime_genai as og
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "model")
        shutil.copytree(folder, copy)
        model = onnx.load(os.path.join(copy, "model.onnx"))
        for node in model.graph.node:
            for a in node.attribute:
                if node.op_type == "MatMulNBits" and a.name == "accuracy_level":
                    a.i = 0
        os.remove(os.path.join(copy, "model.onnx.data"))
        onnx.save(model, os.path.join(copy, "model.onnx"), save_as_external_data=True, location="model.onnx.data")
        runtime = og.Model(copy)
        out = []
        for text in PROMPTS:
            ids = tok(text).input_ids
            params = og.GeneratorParams(runtime)
            params.set_search_options(do_sample=False, max_length=len(ids) + MAX_NEW_TOKENS)
            generator = og.Generator(runtime, params)
            generator.append_tokens([ids])
            first = generator.get_output("logits")[0, -1].tolist()
            while not generator.is_done():
                generator.generate_next_token()
            full = [int(t) for t in generator.get_sequence(0)][len(ids):]
            out.append({"text": text, "ids": ids, "generated": full,
                        "generated_text": tok.decode(full, skip_special_tokens=True), "first_logits": first})
    return {"max_new_tokens": MAX_NEW_TOKENS, "prompts": out}


def export(name, out_dir, force):
    target = os.path.join(out_dir, "llm_" + name)
    marker = os.path.join(target, "generate.json")
    if os.path.exists(marker) and not force:
        return "cached"
    parts = name.split("_")
    arch, ir, builder = parts[0], "ov" in parts, "ort" in parts
    weights = parts[-1] if parts[-1] in ("int4", "int8") else None
    with tempfile.TemporaryDirectory() as tmp:
        hf = os.path.join(tmp, "hf")
        model, tok = build(arch, hf)
        expected = generations(model, tok)
        exported = os.path.join(tmp, "exported")
        if builder:
            subprocess.run([sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", hf, "-o", exported,
                            "-p", weights or "fp32", "-e", "cpu"], check=True)
            for extra in ("config.json", "generation_config.json"):  # what a model folder holds beside it
                shutil.copy(os.path.join(hf, extra), os.path.join(exported, extra))
            if weights:
                expected = ort_generations(exported, tok)
        elif ir:
            cli = os.path.join(os.path.dirname(sys.executable), "optimum-cli")
            formats = {None: ["fp32"], "int8": ["int8"], "int4": ["int4", "--group-size", "16", "--ratio", "1.0"]}
            subprocess.run([cli, "export", "openvino", "--model", hf, "--task", "text-generation-with-past",
                            "--weight-format"] + formats[weights] + [exported], check=True)
            if weights:
                expected = ov_generations(exported, tok)
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
    names = (list(ARCHITECTURES) + [a + "_ov" for a in ARCHITECTURES] + ["llama_ort", "qwen2_ort"] +
             ["llama_ov_int4", "qwen2_ov_int8", "llama_ort_int4", "qwen2_ort_int4"])
    sys.exit(main(sys.argv[1:], __doc__, "llm_", names, export))
