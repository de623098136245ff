#!/usr/bin/env python3
"""A streaming voice-activity model in the shape of the Silero VAD family, exported by torch.

The model takes one chunk of audio (512 samples), the sample rate as an input (an `If` in the ONNX
graph chooses the 16 kHz or the 8 kHz encoder when the model runs) and its LSTM state (h, c) as
inputs, and returns the speech probability and the next state, which the caller feeds back on the
next chunk. Weights are random with a fixed seed.

    /usr/bin/python3 tools/models/make_streaming_model.py OUT_DIR [--chunks N] [--reflect]

writes OUT_DIR/streaming_vad/model.onnx and, for N chunks (default 20) fed one after the other from
a zero state, at 16 kHz then 8 kHz, the reference: OUT_DIR/streaming_vad/<rate>/chunk_<k>.pb
(TensorProto, the audio) and prob_<k>.pb, with h_<N>.pb and c_<N>.pb the state after the last
chunk, all computed by torch. With --reflect the model is the older family's shape (OUT_DIR/streaming_vad_reflect):
each branch reflect-pads the audio before its strided convolution, as that family's STFT front end
does. Needs Debian's python3-torch and python3-onnx (run with
/usr/bin/python3).
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
import torch
from torch import nn

CHUNK = 512
HIDDEN = 64


class StreamingVad(nn.Module):
    def __init__(self, reflect=False):
        super().__init__()
        self.reflect = reflect
        # 512 samples at 16 kHz and every second sample at 8 kHz both give 15 frames of 32 features.
        self.enc16 = nn.Conv1d(1, 32, kernel_size=64, stride=32)
        self.enc8 = nn.Conv1d(1, 32, kernel_size=32, stride=16)
        self.lstm = nn.LSTM(32, HIDDEN, batch_first=True)
        self.head = nn.Linear(HIDDEN, 1)

    def forward(self, x, sr, h, c):
        if bool(sr == 16000):
            a = x.unsqueeze(1)
            if self.reflect:
                a = nn.functional.pad(a, (16, 16), mode="reflect")
            f = self.enc16(a)
        else:
            a = x[:, ::2].unsqueeze(1)
            if self.reflect:
                a = nn.functional.pad(a, (8, 8), mode="reflect")
            f = self.enc8(a)
        f = torch.relu(f).transpose(1, 2)
        out, (h2, c2) = self.lstm(f, (h, c))
        prob = torch.sigmoid(self.head(out[:, -1]))
        return prob, h2, c2


def write_tensor(path, array, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(array), name=name).SerializeToString())


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    parser.add_argument("--chunks", type=int, default=20)
    parser.add_argument("--reflect", action="store_true")
    args = parser.parse_args(argv)
    torch.manual_seed(1234)
    gen = torch.Generator().manual_seed(1234)
    model = StreamingVad(args.reflect).eval()
    scripted = torch.jit.script(model)
    folder = os.path.join(args.out_dir, "streaming_vad_reflect" if args.reflect else "streaming_vad")
    if os.path.exists(os.path.join(folder, "model.onnx")):
        return  # a test that waited for the lock behind the one that wrote it: never rewrite under readers
    os.makedirs(folder, exist_ok=True)
    x = torch.randn(1, CHUNK, generator=gen)
    sr = torch.tensor(16000, dtype=torch.int64)
    h = torch.zeros(1, 1, HIDDEN)
    c = torch.zeros(1, 1, HIDDEN)
    tmp = os.path.join(folder, "model.onnx.tmp")
    with torch.no_grad():
        torch.onnx.export(scripted, (x, sr, h, c), tmp, opset_version=13, input_names=["input", "sr", "h", "c"],
                          output_names=["prob", "hn", "cn"],
                          # The older family declares its batch and chunk length dynamic.
                          dynamic_axes={"input": {0: "batch", 1: "samples"}, "h": {1: "batch"}, "c": {1: "batch"}}
                          if args.reflect else None)
    for rate in (16000, 8000):
        data = os.path.join(folder, str(rate))
        os.makedirs(data, exist_ok=True)
        h = torch.zeros(1, 1, HIDDEN)
        c = torch.zeros(1, 1, HIDDEN)
        with torch.no_grad():
            for k in range(args.chunks):
                chunk = torch.randn(1, CHUNK, generator=gen) * 0.3
                prob, h, c = model(chunk, torch.tensor(rate, dtype=torch.int64), h, c)
                write_tensor(os.path.join(data, f"chunk_{k}.pb"), chunk.numpy(), "input")
                write_tensor(os.path.join(data, f"prob_{k}.pb"), prob.numpy(), "prob")
        write_tensor(os.path.join(data, f"h_{args.chunks}.pb"), h.numpy(), "hn")
        write_tensor(os.path.join(data, f"c_{args.chunks}.pb"), c.numpy(), "cn")
    onnx.checker.check_model(onnx.load(tmp))
    os.replace(tmp, os.path.join(folder, "model.onnx"))  # appears last: its presence marks a complete set
    print(os.path.join(folder, "model.onnx"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
