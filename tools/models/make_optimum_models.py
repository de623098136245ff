#!/usr/bin/env python3
"""Transformer models exported by Hugging Face optimum, the way LLM and encoder users get them.

Each is built from a `transformers` config with random weights (a fixed seed), at a small size for
the tests' time (the architectures are the real ones), and exported by optimum's ONNX exporter:

- `llama`: LlamaForCausalLM with grouped-query attention (4 heads sharing 2 key/value heads), rotary
  positions and RMSNorm, exported for `text-generation-with-past`: inputs input_ids, attention_mask,
  position_ids and past_key_values.<layer>.key/value; outputs logits and present.<layer>.key/value.
- `gpt2`: GPT2LMHeadModel (learned positions, fused QKV Conv1D, LayerNorm), same task.
- `bert`: BertModel for `feature-extraction` (input_ids, attention_mask, token_type_ids).
- `llama_ov`, `gpt2_ov`: the same decoders exported by optimum-intel to OpenVINO IR
  (`optimum-cli export openvino --task text-generation-with-past`): stateful, the KV cache in
  ReadValue/Assign variables of dynamic shape, a `beam_idx` input, ScaledDotProductAttention-13.

    python tools/models/make_optimum_models.py OUT_DIR [--only llama,gpt2,bert] [--force]

writes OUT_DIR/optimum_<name>/model.onnx and test_data_set_<k>/input_<i>.pb, output_<i>.pb (ONNX's
backend-test layout, inputs and outputs in the graph's order) computed by ONNX Runtime. A decoder's
data sets are one generation: k = 0 the prompt (a batch of two, the second left-padded, as
`generate` pads; the past is empty), then each k > 0 one new token per row whose past is the
presents ONNX Runtime returned at k - 1. `steps.txt` says how many. An IR decoder's folder holds
openvino_model.xml/.bin and the same generation run by OpenVINO's CPU plugin (f32) in one stateful
request, each data set's inputs the IR's (input_ids, attention_mask, position_ids, beam_idx) and
its output the logits. Needs torch, transformers, optimum[onnx], optimum-intel, openvino and
onnxruntime (scripts/install_model_exporters.sh puts them into a venv of their own).
"""
import os
import sys
import tempfile

import numpy as np

from exported_models import main, save_last, write_data_set, write_tensor

DECODERS = ("llama", "gpt2")
DECODE_STEPS = 3


def config(name):
    import transformers
    small = dict(vocab_size=1000, max_position_embeddings=128)
    if name == "llama":
        return transformers.LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                        num_attention_heads=4, num_key_value_heads=2, **small)
    if name == "gpt2":
        return transformers.GPT2Config(n_embd=64, n_layer=2, n_head=4, vocab_size=1000, n_positions=128)
    if name == "bert":
        return transformers.BertConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                       num_attention_heads=4, **small)
    raise SystemExit("unknown model " + name)


def build(name, folder):
    import torch
    import transformers
    torch.manual_seed(0)
    cls = {"llama": transformers.LlamaForCausalLM, "gpt2": transformers.GPT2LMHeadModel,
           "bert": transformers.BertModel}[name]
    model = cls(config(name)).eval()
    model.save_pretrained(folder)


def write_set(target, k, session, feeds, outputs):
    write_data_set(target, k, [(spec.name, feeds[spec.name]) for spec in session.get_inputs()],
                   [(spec.name, value) for spec, value in zip(session.get_outputs(), outputs)])


class Generation:
    """The inputs of a greedy generation, step by step: a prompt of two rows (the second
    left-padded by two, as `generate` pads a batch), then one token per row per step, the one each
    row's last logits choose."""

    def __init__(self, rng):
        self.mask = np.ones((2, 5), np.int64)
        self.mask[1, :2] = 0
        self.ids = rng.integers(0, 1000, (2, 5)).astype(np.int64)

    def inputs(self):
        positions = np.cumsum(self.mask, axis=1) - 1
        positions[self.mask == 0] = 1  # what transformers' generate gives padded positions
        return {"input_ids": self.ids, "attention_mask": self.mask, "position_ids": positions[:, -self.ids.shape[1]:]}

    def advance(self, logits):
        self.ids = logits[:, -1:, :].argmax(-1).astype(np.int64)
        self.mask = np.concatenate([self.mask, np.ones((2, 1), np.int64)], axis=1)


def write_steps(target, count):
    with open(os.path.join(target, "steps.txt"), "w") as f:
        f.write("%d\n" % count)


def generation(target, session, rng):
    """ONNX Runtime on optimum's ONNX: the past of each step is the presents of the step before."""
    names = [i.name for i in session.get_inputs()]
    past_specs = [i for i in session.get_inputs() if i.name.startswith("past_key_values.")]
    past = {}
    for spec in past_specs:  # [batch, kv_heads, 0, head_dim]
        past[spec.name] = np.zeros((2, spec.shape[1], 0, spec.shape[3]), np.float32)
    steps = Generation(rng)
    for k in range(DECODE_STEPS + 1):
        feeds = {**steps.inputs(), **past}
        feeds = {n: feeds[n] for n in names}
        outputs = session.run(None, feeds)
        write_set(target, k, session, feeds, outputs)
        presents = dict(zip([o.name for o in session.get_outputs()], outputs))
        past = {spec.name: presents[spec.name.replace("past_key_values.", "present.")] for spec in past_specs}
        steps.advance(outputs[0])
    write_steps(target, DECODE_STEPS + 1)


def stateful_generation(target, xml, rng):
    """OpenVINO (CPU, f32) on optimum-intel's stateful IR: the KV cache stays in the request;
    beam_idx keeps each row's cache in place."""
    import openvino as ov
    # f32 throughout: OpenVINO's CPU plugin otherwise keeps the KV cache in u8 (KV_CACHE_PRECISION).
    compiled = ov.Core().compile_model(xml, "CPU", {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32"})
    request = compiled.create_infer_request()
    names = [i.get_any_name() for i in compiled.inputs]
    steps = Generation(rng)
    for k in range(DECODE_STEPS + 1):
        feeds = {**steps.inputs(), "beam_idx": np.arange(2, dtype=np.int32)}
        feeds = {n: feeds[n] for n in names}
        logits = request.infer(feeds)[0]
        data = os.path.join(target, "test_data_set_%d" % k)
        os.makedirs(data, exist_ok=True)
        for i, n in enumerate(names):
            write_tensor(os.path.join(data, "input_%d.pb" % i), feeds[n], n)
        write_tensor(os.path.join(data, "output_0.pb"), logits, "logits")
        steps.advance(logits)
    write_steps(target, DECODE_STEPS + 1)


def export_openvino(name, out_dir, force):
    """optimum-intel's `optimum-cli export openvino --task text-generation-with-past`: a stateful IR."""
    import shutil
    import subprocess
    target = os.path.join(out_dir, "optimum_" + name)
    xml = os.path.join(target, "openvino_model.xml")
    if os.path.exists(xml) and not force:
        return "cached"
    os.makedirs(target, exist_ok=True)
    cli = os.path.join(os.path.dirname(sys.executable), "optimum-cli")
    with tempfile.TemporaryDirectory() as tmp:
        build(name[:-len("_ov")], os.path.join(tmp, "hf"))
        subprocess.run([cli, "export", "openvino", "--model", os.path.join(tmp, "hf"), "--task",
                        "text-generation-with-past", "--weight-format", "fp32", os.path.join(tmp, "ov")], check=True)
        shutil.copy(os.path.join(tmp, "ov", "openvino_model.bin"), os.path.join(target, "openvino_model.bin"))
        stateful_generation(target, os.path.join(tmp, "ov", "openvino_model.xml"), np.random.default_rng(11))
        shutil.copy(os.path.join(tmp, "ov", "openvino_model.xml"), xml + ".tmp")
        os.replace(xml + ".tmp", xml)  # appears last: its presence marks a complete set
    return "%d bytes of weights" % os.path.getsize(os.path.join(target, "openvino_model.bin"))


def encodings(target, session, rng):
    """[1, 7], and [2, 12] with the second row padded at the end."""
    names = [i.name for i in session.get_inputs()]
    for k, (batch, length) in enumerate([(1, 7), (2, 12)]):
        mask = np.ones((batch, length), np.int64)
        if batch == 2:
            mask[1, 8:] = 0
        feeds = {"input_ids": rng.integers(0, 1000, (batch, length)).astype(np.int64), "attention_mask": mask,
                 "token_type_ids": (np.arange(length)[None, :] >= length // 2).astype(np.int64).repeat(batch, 0)}
        feeds = {n: feeds[n] for n in names}
        write_set(target, k, session, feeds, session.run(None, feeds))
    write_steps(target, 2)


def export(name, out_dir, force):
    if name.endswith("_ov"):
        return export_openvino(name, out_dir, force)
    import onnx
    import onnxruntime
    from optimum.exporters.onnx import main_export
    target = os.path.join(out_dir, "optimum_" + name)
    model_path = os.path.join(target, "model.onnx")
    if os.path.exists(model_path) and not force:
        return "cached"
    os.makedirs(target, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        build(name, os.path.join(tmp, "hf"))
        task = "text-generation-with-past" if name in DECODERS else "feature-extraction"
        main_export(os.path.join(tmp, "hf"), output=os.path.join(tmp, "onnx"), task=task, no_post_process=True)
        exported = onnx.load(os.path.join(tmp, "onnx", "model.onnx"))
    session = onnxruntime.InferenceSession(exported.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(11)
    (generation if name in DECODERS else encodings)(target, session, rng)
    return save_last(exported, model_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], __doc__, "optimum_", ["llama", "gpt2", "bert", "llama_ov", "gpt2_ov"], export))
