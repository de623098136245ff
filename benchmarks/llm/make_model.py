"""The benchmark's model: Qwen2.5-0.5B's architecture (24 layers, hidden 896, 14 query heads sharing 2
key/value heads, FFN 4864, vocabulary 151,936, tied embeddings) with random weights, f32, in every
runtime's format from the same weights:

    OUT/hf        the transformers folder (and the byte-level BPE tokenizer of make_llm_models.py)
    OUT/ov        optimum-intel's stateful IR (optimum-cli export openvino --weight-format fp32):
                  Mosaic and OpenVINO GenAI
    OUT/ort       ONNX Runtime GenAI's model builder (-p fp32 -e cpu)
    OUT/model.gguf  llama.cpp's F32 GGUF, written with `gguf` (qwen2 architecture)

and with `--weights int8,int4`, the same weights compressed as each runtime's tools compress them:

    OUT/ov_int8, OUT/ov_int4   optimum-intel (NNCF) --weight-format int8 (per channel) / int4
                               (asymmetric, groups of 128, every layer: --ratio 1.0; the tied
                               embedding and head int8 per channel, as NNCF keeps them)
    OUT/ort_int4               the model builder's -p int4 (MatMulNBits, blocks of 32, symmetric)
    OUT/model_q8_0.gguf, OUT/model_q4_0.gguf   llama.cpp's quantize of the F32 GGUF (Q8_0, Q4_0)

    python make_model.py OUT [--layers N] [--weights f32,int8,int4]   (a smaller depth for a quick run)
"""
import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "models"))


def build_hf(folder, layers):
    import torch
    import transformers
    from make_llm_models import tokenizer
    torch.manual_seed(0)
    tok = tokenizer()
    config = transformers.Qwen2Config(hidden_size=896, intermediate_size=4864, num_hidden_layers=layers,
                                      num_attention_heads=14, num_key_value_heads=2, vocab_size=151936,
                                      max_position_embeddings=32768, rope_theta=1000000.0, rms_norm_eps=1e-6,
                                      tie_word_embeddings=True, bos_token_id=tok.bos_token_id,
                                      eos_token_id=tok.eos_token_id)
    model = transformers.Qwen2ForCausalLM(config).eval()
    with torch.no_grad():  # matrices at a trained model's scale; the norms keep their ones
        for p in model.parameters():
            if p.dim() > 1:
                p.normal_(0, 0.02)
    model.save_pretrained(folder, safe_serialization=True)
    tok.save_pretrained(folder)
    return model, tok


def write_gguf(model, tok, path):
    """llama.cpp's qwen2 layout: the tensor names of convert_hf_to_gguf.py, F32, the tokenizer as
    'gpt2' BPE padded to the model's vocabulary."""
    import gguf
    cfg = model.config
    w = gguf.GGUFWriter(path, "qwen2")
    w.add_name("qwen2.5-0.5b-shaped")
    w.add_context_length(cfg.max_position_embeddings)
    w.add_embedding_length(cfg.hidden_size)
    w.add_block_count(cfg.num_hidden_layers)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_head_count(cfg.num_attention_heads)
    w.add_head_count_kv(cfg.num_key_value_heads)
    w.add_rope_freq_base(cfg.rope_theta)
    w.add_layer_norm_rms_eps(cfg.rms_norm_eps)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    vocab = tok.get_vocab()
    tokens = ["[PAD%d]" % i for i in range(cfg.vocab_size)]
    for text, i in vocab.items():
        tokens[i] = text
    types = [gguf.TokenType.NORMAL] * cfg.vocab_size
    for i in range(len(vocab), cfg.vocab_size):
        types[i] = gguf.TokenType.UNUSED
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types(types)
    import json
    merges = json.loads(tok.backend_tokenizer.to_str())["model"]["merges"]
    w.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in merges])
    w.add_bos_token_id(tok.bos_token_id)
    w.add_eos_token_id(tok.eos_token_id)
    names = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight"}
    per_layer = {"input_layernorm.weight": "attn_norm.weight", "post_attention_layernorm.weight": "ffn_norm.weight",
                 "self_attn.q_proj.weight": "attn_q.weight", "self_attn.q_proj.bias": "attn_q.bias",
                 "self_attn.k_proj.weight": "attn_k.weight", "self_attn.k_proj.bias": "attn_k.bias",
                 "self_attn.v_proj.weight": "attn_v.weight", "self_attn.v_proj.bias": "attn_v.bias",
                 "self_attn.o_proj.weight": "attn_output.weight", "mlp.gate_proj.weight": "ffn_gate.weight",
                 "mlp.up_proj.weight": "ffn_up.weight", "mlp.down_proj.weight": "ffn_down.weight"}
    for name, tensor in model.state_dict().items():
        if name == "lm_head.weight":
            continue  # tied to the embeddings
        if name.startswith("model.layers."):
            layer, rest = name[len("model.layers."):].split(".", 1)
            target = "blk.%s.%s" % (layer, per_layer[rest])
        else:
            target = names[name]
        w.add_tensor(target, tensor.detach().float().numpy())
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--weights", default="f32", help="f32, int8, int4, comma-separated")
    args = parser.parse_args()
    weights = args.weights.split(",")
    hf = os.path.join(args.out, "hf")
    bin_dir = os.path.dirname(sys.executable)
    ov, ort, gguf_path = (os.path.join(args.out, p) for p in ("ov", "ort", "model.gguf"))
    if not all(os.path.exists(p) for p in (os.path.join(ov, "openvino_model.xml"), os.path.join(ort, "genai_config.json"),
                                           gguf_path)):
        model, tok = build_hf(hf, args.layers)
        if not os.path.exists(os.path.join(ov, "openvino_model.xml")):
            subprocess.run([os.path.join(bin_dir, "optimum-cli"), "export", "openvino", "--model", hf, "--task",
                            "text-generation-with-past", "--weight-format", "fp32", ov], check=True)
        if not os.path.exists(os.path.join(ort, "genai_config.json")):
            subprocess.run([sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", hf, "-o", ort, "-p", "fp32",
                            "-e", "cpu"], check=True)
        if not os.path.exists(gguf_path):
            write_gguf(model, tok, gguf_path)
    for w in weights:
        if w != "f32":
            compress(args.out, hf, w)
    print("models in", args.out)


def compress(out, hf, weights):
    """The compressed formats of `weights` (int8 or int4), each made by its runtime's own tool."""
    bin_dir = os.path.dirname(sys.executable)
    ov = os.path.join(out, "ov_" + weights)
    if not os.path.exists(os.path.join(ov, "openvino_model.xml")):
        extra = ["--group-size", "128", "--ratio", "1.0"] if weights == "int4" else []
        subprocess.run([os.path.join(bin_dir, "optimum-cli"), "export", "openvino", "--model", hf, "--task",
                        "text-generation-with-past", "--weight-format", weights] + extra + [ov], check=True)
    ort = os.path.join(out, "ort_int4")
    if weights == "int4" and not os.path.exists(os.path.join(ort, "genai_config.json")):
        subprocess.run([sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", hf, "-o", ort, "-p", "int4",
                        "-e", "cpu"], check=True)
    kind = {"int8": "q8_0", "int4": "q4_0"}[weights]
    gguf_path = os.path.join(out, "model_%s.gguf" % kind)
    if not os.path.exists(gguf_path):
        import llama_cpp
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype = {"q8_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0, "q4_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_0}[kind]
        if llama_cpp.llama_model_quantize(os.path.join(out, "model.gguf").encode(), gguf_path.encode(), params) != 0:
            raise SystemExit("llama.cpp could not quantize " + gguf_path)


if __name__ == "__main__":
    main()
