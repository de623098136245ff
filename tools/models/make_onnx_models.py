#!/usr/bin/python3
"""Generate ONNX test models (random weights) with reference data for Mosaic's ONNX frontend.

Usage:
    /usr/bin/python3 tools/models/make_onnx_models.py OUT_DIR [--only name,name] [--list]
                                                      [--opset N] [--force]

For every architecture this writes, in ONNX's backend-test layout:

    OUT_DIR/<name>/model.onnx
    OUT_DIR/<name>/test_data_set_0/input_<i>.pb    (graph input names, concrete shapes)
    OUT_DIR/<name>/test_data_set_0/output_<i>.pb   (reference outputs computed by torch, float32)

Weights are random with a fixed seed per model (derived from the model name, so --only gives the
same bytes as a full run). Needs Debian's python3-torch / python3-torchvision / python3-onnx; this
is a model-generation tool only, nothing in the runtime depends on Python.
"""

import argparse
import inspect
import math
import os
import sys
import time
import warnings
import zlib

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

torch.set_num_threads(1)
try:
    torch.set_num_interop_threads(1)
except RuntimeError:
    pass

IMAGE_SHAPE = (1, 3, 224, 224)
ENC_SEQ = 128
ENC_MASKED_TAIL = 16
VOCAB = 30522
MAX_POSITIONS = 512
TYPE_VOCAB = 2
RNN_SEQ, RNN_BATCH, RNN_INPUT, RNN_HIDDEN, RNN_CLASSES = 32, 1, 64, 128, 10


# torch 2.9 made the dynamo exporter the default; these models and their tests were made with the
# TorchScript one (its graphs, its dynamic_axes), so it is asked for wherever torch still has both.
TORCHSCRIPT_EXPORTER = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}


def seed_for(name):
    return zlib.crc32(name.encode("utf-8")) & 0x7FFFFFFF


def randomize_batchnorm(model, gen):
    """Give every BatchNorm non-identity running statistics and affine parameters.

    The ranges are mild (var in [0.5, 2], gamma in [0.8, 1.2]) so activations keep the scale of
    the default initialisation and deep residual nets do not blow up.
    """
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                n = m.num_features
                m.running_mean.copy_((torch.rand(n, generator=gen) - 0.5) * 0.2)
                m.running_var.copy_(0.5 + torch.rand(n, generator=gen) * 1.5)
                if m.affine:
                    m.weight.copy_(0.8 + torch.rand(n, generator=gen) * 0.4)
                    m.bias.copy_((torch.rand(n, generator=gen) - 0.5) * 0.2)


# ----------------------------------------------------------------------------------------------
# CNNs (torchvision)
# ----------------------------------------------------------------------------------------------

def make_torchvision(arch, dynamic_spatial=False):
    def build(gen):
        import torchvision
        model = getattr(torchvision.models, arch)(weights=None)
        randomize_batchnorm(model, gen)
        x = torch.randn(*IMAGE_SHAPE, generator=gen)
        # With dynamic_spatial the image size is free too, as a model meant for any resolution is
        # exported (the dynamic-shape tests run it at several sizes).
        input_axes = {0: "batch", 2: "height", 3: "width"} if dynamic_spatial else {0: "batch"}
        spec = dict(
            input_names=["input"],
            output_names=["logits"],
            dynamic_axes={"input": input_axes, "logits": {0: "batch"}},
        )
        return model, (x,), spec
    return build


# ----------------------------------------------------------------------------------------------
# BERT-shaped encoders in plain torch.nn
# ----------------------------------------------------------------------------------------------

class SelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        assert hidden % heads == 0
        self.heads = heads
        self.head_dim = hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.output = nn.Linear(hidden, hidden)

    def split(self, x):
        b, s = x.shape[0], x.shape[1]
        return x.view(b, s, self.heads, self.head_dim).transpose(1, 2)  # [B, H, S, D]

    def forward(self, x, additive_mask):
        q = self.split(self.query(x))
        k = self.split(self.key(x))
        v = self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        scores = scores + additive_mask  # [B, 1, 1, S] broadcast
        probs = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).transpose(1, 2)  # [B, S, H, D]
        ctx = ctx.reshape(ctx.shape[0], ctx.shape[1], self.heads * self.head_dim)
        return self.output(ctx)


class EncoderLayer(nn.Module):
    def __init__(self, hidden, heads, intermediate, eps):
        super().__init__()
        self.attention = SelfAttention(hidden, heads)
        self.attention_norm = nn.LayerNorm(hidden, eps=eps)
        self.intermediate = nn.Linear(hidden, intermediate)
        self.act = nn.GELU()
        self.ffn_output = nn.Linear(intermediate, hidden)
        self.output_norm = nn.LayerNorm(hidden, eps=eps)

    def forward(self, x, additive_mask):
        x = self.attention_norm(x + self.attention(x, additive_mask))
        return self.output_norm(x + self.ffn_output(self.act(self.intermediate(x))))


class BertLikeEncoder(nn.Module):
    """BERT encoder (post-LN) + pooler. token_type_ids are implicitly all zero."""

    def __init__(self, layers, hidden, heads, intermediate, eps=1e-12):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, hidden)
        self.position_embeddings = nn.Embedding(MAX_POSITIONS, hidden)
        self.token_type_embeddings = nn.Embedding(TYPE_VOCAB, hidden)
        self.embedding_norm = nn.LayerNorm(hidden, eps=eps)
        self.layers = nn.ModuleList(
            [EncoderLayer(hidden, heads, intermediate, eps) for _ in range(layers)])
        self.pooler = nn.Linear(hidden, hidden)
        self.register_buffer("position_ids", torch.arange(MAX_POSITIONS).unsqueeze(0),
                             persistent=False)

    def init_weights(self, gen):
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, (nn.Linear, nn.Embedding)):
                    m.weight.copy_(torch.randn(m.weight.shape, generator=gen) * 0.02)
                if isinstance(m, nn.Linear):
                    m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.02)
                if isinstance(m, nn.LayerNorm):
                    m.weight.copy_(1.0 + torch.randn(m.weight.shape, generator=gen) * 0.05)
                    m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.02)

    def forward(self, input_ids, attention_mask):
        seq = input_ids.shape[1]
        position_ids = self.position_ids[:, :seq]
        token_type_ids = torch.zeros_like(input_ids)
        x = (self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
             + self.token_type_embeddings(token_type_ids))
        x = self.embedding_norm(x)
        additive_mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, additive_mask)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return x, pooled


def make_encoder(layers, hidden, heads, intermediate):
    def build(gen):
        model = BertLikeEncoder(layers, hidden, heads, intermediate)
        model.init_weights(gen)
        ids = torch.randint(0, VOCAB, (1, ENC_SEQ), generator=gen, dtype=torch.int64)
        mask = torch.ones(1, ENC_SEQ, dtype=torch.int64)
        mask[:, ENC_SEQ - ENC_MASKED_TAIL:] = 0
        dyn = {0: "batch", 1: "sequence"}
        spec = dict(
            input_names=["input_ids", "attention_mask"],
            output_names=["last_hidden_state", "pooler_output"],
            dynamic_axes={"input_ids": dyn, "attention_mask": dyn,
                          "last_hidden_state": dyn, "pooler_output": {0: "batch"}},
        )
        return model, (ids, mask), spec
    return build


# ----------------------------------------------------------------------------------------------
# Bidirectional RNNs
# ----------------------------------------------------------------------------------------------

class BiRNNClassifier(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(RNN_INPUT, RNN_HIDDEN, num_layers=2, bidirectional=True, batch_first=False)
        self.head = nn.Linear(2 * RNN_HIDDEN, RNN_CLASSES)

    def forward(self, x):  # x: [seq, batch, input]
        y, _ = self.rnn(x)  # [seq, batch, 2 * hidden]
        return self.head(y)


def make_rnn(cell):
    def build(gen):
        model = BiRNNClassifier(cell)  # default init U(-1/sqrt(h), 1/sqrt(h)) under manual_seed
        x = torch.randn(RNN_SEQ, RNN_BATCH, RNN_INPUT, generator=gen)
        spec = dict(input_names=["input"], output_names=["output"], dynamic_axes=None)
        return model, (x,), spec
    return build


MODELS = {
    "resnet50": make_torchvision("resnet50"),
    "mobilenet_v2": make_torchvision("mobilenet_v2"),
    "mobilenet_v3_small": make_torchvision("mobilenet_v3_small"),
    "efficientnet_b0": make_torchvision("efficientnet_b0"),
    "squeezenet1_1": make_torchvision("squeezenet1_1"),
    "squeezenet1_1_dynamic": make_torchvision("squeezenet1_1", dynamic_spatial=True),
    "bert_base": make_encoder(layers=12, hidden=768, heads=12, intermediate=3072),
    "minilm_l6": make_encoder(layers=6, hidden=384, heads=12, intermediate=1536),
    "bilstm": make_rnn(nn.LSTM),
    "bigru": make_rnn(nn.GRU),
}


# ----------------------------------------------------------------------------------------------

def write_tensor(path, array, name):
    tensor = numpy_helper.from_array(np.ascontiguousarray(array), name=name)
    with open(path, "wb") as f:
        f.write(tensor.SerializeToString())


def export_one(name, out_dir, opset):
    seed = seed_for(name)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model, inputs, spec = MODELS[name](gen)
    model.eval()

    with torch.no_grad():
        outputs = model(*inputs)
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)
    for out_name, out in zip(spec["output_names"], outputs):
        arr = out.numpy()
        if not np.isfinite(arr).all():
            raise RuntimeError(f"{name}: reference output {out_name} is not finite")

    model_dir = os.path.join(out_dir, name)
    data_dir = os.path.join(model_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    model_path = os.path.join(model_dir, "model.onnx")
    tmp_path = model_path + ".tmp"

    with torch.no_grad():
        torch.onnx.export(
            model, inputs, tmp_path,
            export_params=True,
            opset_version=opset,
            do_constant_folding=True,
            input_names=spec["input_names"],
            output_names=spec["output_names"],
            dynamic_axes=spec["dynamic_axes"],
            **TORCHSCRIPT_EXPORTER,
        )

    # Use the names as they appear in the exported graph (they are the ones we asked for, but the
    # test data must match the graph whatever the exporter did).
    graph = onnx.load(tmp_path, load_external_data=False).graph
    initializers = {init.name for init in graph.initializer}
    graph_inputs = [vi.name for vi in graph.input if vi.name not in initializers]
    graph_outputs = [vi.name for vi in graph.output]
    if len(graph_inputs) != len(inputs) or len(graph_outputs) != len(outputs):
        raise RuntimeError(f"{name}: graph has {len(graph_inputs)} inputs / {len(graph_outputs)} "
                           f"outputs, expected {len(inputs)} / {len(outputs)}")

    for i, (gname, t) in enumerate(zip(graph_inputs, inputs)):
        write_tensor(os.path.join(data_dir, f"input_{i}.pb"), t.numpy(), gname)
    for i, (gname, t) in enumerate(zip(graph_outputs, outputs)):
        write_tensor(os.path.join(data_dir, f"output_{i}.pb"), t.numpy().astype(np.float32), gname)
    os.replace(tmp_path, model_path)  # model.onnx appears last: its presence marks a complete set
    return model_path


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", nargs="?")
    parser.add_argument("--only", help="comma-separated model names")
    parser.add_argument("--list", action="store_true", help="list model names and exit")
    parser.add_argument("--opset", type=int, default=13, help="ONNX opset (default 13)")
    parser.add_argument("--force", action="store_true", help="re-export existing models")
    parser.add_argument("--verbose", action="store_true", help="show the exporter's warnings")
    args = parser.parse_args(argv)
    if not args.verbose:
        warnings.filterwarnings("ignore")  # tracer/shape-inference chatter; one line per model

    if args.list:
        for name in MODELS:
            print(name)
        return 0
    if not args.out_dir:
        parser.error("OUT_DIR is required")

    names = list(MODELS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in MODELS]
        if unknown:
            parser.error(f"unknown model(s): {', '.join(unknown)} (see --list)")

    os.makedirs(args.out_dir, exist_ok=True)
    failures = 0
    t_all = time.perf_counter()
    for name in names:
        model_path = os.path.join(args.out_dir, name, "model.onnx")
        data_dir = os.path.join(args.out_dir, name, "test_data_set_0")
        if (not args.force and os.path.isfile(model_path)
                and os.path.isfile(os.path.join(data_dir, "output_0.pb"))):
            print(f"{name:20s} {os.path.getsize(model_path) / 1e6:9.1f} MB  skipped (exists)",
                  flush=True)
            continue
        t0 = time.perf_counter()
        try:
            export_one(name, args.out_dir, args.opset)
        except Exception as e:  # keep going; report at the end
            failures += 1
            print(f"{name:20s} FAILED: {type(e).__name__}: {e}", flush=True)
            continue
        dt = time.perf_counter() - t0
        print(f"{name:20s} {os.path.getsize(model_path) / 1e6:9.1f} MB  {dt:7.1f} s", flush=True)
    print(f"total {time.perf_counter() - t_all:.1f} s, {failures} failed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
