"""The torch models that make_dynamo_models.py and make_ovc_models.py export, each with the inputs
of its two data sets (different batch sizes, and lengths or image sizes where the model allows).

Built from `transformers` configs and torch's own layers with random weights (a fixed seed), at
small sizes for the tests' time; the architectures are the real ones:

- `vit`: ViTForImageClassification (patch embedding by a strided Conv, a class token, learned
  positions, pre-LN encoder, GELU), input `pixel_values [?,3,32,32]`.
- `convnext`: ConvNextForImageClassification (7x7 depthwise convolutions, LayerNorm over channels
  written channels-last, layer scale, GELU), input `pixel_values [?,3,?,?]`.
- `bert`: BertModel (token types, attention mask, post-LN), inputs `input_ids`, `attention_mask`
  `[?,?]`, outputs the last hidden state and the pooled output.
- `conv_lstm`: a keyword spotter of torch's layers (Conv1d + BatchNorm + ReLU over a [?,40,?]
  spectrogram, an LSTM over time, the last step's Linear), BatchNorm with trained-looking statistics.
- `pool_cnn`: a CNN of torch's layers pooling with `ceil_mode=True` as GoogLeNet and Inception do
  (MaxPool2d padded and not, AvgPool2d counting its padding), input `[?,3,15,21]`: at 15x21 each
  padded pooling's last window, rounded up, would start in the end padding on both axes, and
  ceil_mode drops it. OpenVINO's PyTorch front end converts them to MaxPool-14 and AvgPool-14
  (`rounding_type="ceil_torch"`). The image size is static: torch.export, tracing ceil_mode's
  arithmetic, keeps only sizes of the example's residue (height = 12k + 3). No window kept reaches
  past the padding, where OpenVINO's AvgPool divides by the whole kernel and torch by the part
  inside the padded image.
- `token_split`: a CvT-shaped token mixer of torch's layers: a strided Conv's feature map flattened
  to tokens behind a class token, then split back by `torch.split(t, [1, h * w])` with h and w read
  from the map's shape, input `[?,3,?,?]`: OpenVINO converts the split to a `VariadicSplit` whose
  lengths are computed when the model runs.
- `fold_mixer`: MobileViT's unfold, mix, fold of 2x2 patches (`F.unfold`, a Linear over each
  patch, `F.fold` to the map's own size read from its shape), input `[?,3,?,?]`: `Col2Im`, its
  output size computed when the model runs in OpenVINO's conversion.
- `swin`, `poolformer`, `cvt`, `hf_resnet`: SwinForImageClassification (shifted windows by `Roll`,
  the attention mask written by slice assignment, `ScatterNDUpdate` in OpenVINO's conversion),
  PoolFormerForImageClassification (`GroupNorm(1, C)`, average pooling as the token mixer),
  CvtForImageClassification (convolutional projections, the class token split off by sizes
  computed from the shape, attention by `einsum`) and ResNetForImageClassification (max pooling
  as OpenVINO's `MaxPool`-14), small configs, input `[?,3,32,32]` (`[?,3,64,64]` for cvt).
"""
import numpy as np

NAMES = ("vit", "convnext", "bert", "conv_lstm", "pool_cnn", "token_split", "swin", "poolformer", "cvt", "hf_resnet", "fold_mixer")


def _randomize_batchnorm(model, gen):
    """Non-identity running statistics and affine parameters, as a trained model has: defaults of
    zero and one would hide a wrong normalization."""
    import torch
    for m in model.modules():
        if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
                m.weight.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(m.num_features, generator=gen) * 0.1)


def build(name):
    """(model in eval mode, input names, dynamic axes {input: {axis: label}}, [data set inputs])."""
    import torch
    import transformers
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    rng = np.random.default_rng(2)
    if name == "vit":
        config = transformers.ViTConfig(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2,
                                        num_attention_heads=4, intermediate_size=128, num_labels=10)
        model = transformers.ViTForImageClassification(config)
        sets = [{"pixel_values": rng.standard_normal((b, 3, 32, 32), np.float32)} for b in (1, 3)]
        return _wrap(model, ["pixel_values"], {"pixel_values": {0: "batch"}}, sets)
    if name == "convnext":
        config = transformers.ConvNextConfig(num_channels=3, hidden_sizes=[16, 32], depths=[1, 1], num_stages=2,
                                             num_labels=10, layer_scale_init_value=0.5)
        model = transformers.ConvNextForImageClassification(config)
        sets = [{"pixel_values": rng.standard_normal(s, np.float32)} for s in ((1, 3, 32, 32), (2, 3, 48, 40))]
        return _wrap(model, ["pixel_values"], {"pixel_values": {0: "batch", 2: "height", 3: "width"}}, sets)
    if name == "bert":
        config = transformers.BertConfig(vocab_size=500, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                         num_attention_heads=4, max_position_embeddings=64)
        model = transformers.BertModel(config)
        sets = []
        for batch, length in ((1, 7), (2, 12)):
            mask = np.ones((batch, length), np.int64)
            mask[batch - 1, length - 3:] = 0  # the last row padded
            sets.append({"input_ids": rng.integers(0, 500, (batch, length), dtype=np.int64), "attention_mask": mask})
        axes = {"batch": 0, "length": 1}
        return _wrap(model, ["input_ids", "attention_mask"],
                     {n: {v: k for k, v in axes.items()} for n in ("input_ids", "attention_mask")}, sets)
    if name == "conv_lstm":
        class Spotter(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv1d(40, 32, 5, padding=2)
                self.bn = torch.nn.BatchNorm1d(32)
                self.lstm = torch.nn.LSTM(32, 24, batch_first=True)
                self.head = torch.nn.Linear(24, 6)

            def forward(self, features):
                x = torch.relu(self.bn(self.conv(features)))
                out, _ = self.lstm(x.transpose(1, 2))
                return self.head(out[:, -1])

        model = Spotter()
        _randomize_batchnorm(model, gen)
        sets = [{"features": rng.standard_normal(s, np.float32)} for s in ((1, 40, 16), (2, 40, 25))]
        return _wrap(model, ["features"], {"features": {0: "batch", 2: "time"}}, sets)
    if name == "pool_cnn":
        def conv(cin, cout):
            return [torch.nn.Conv2d(cin, cout, 3, padding=1), torch.nn.BatchNorm2d(cout), torch.nn.ReLU()]

        model = torch.nn.Sequential(
            *conv(3, 16),
            torch.nn.MaxPool2d(2, stride=2, padding=1, ceil_mode=True),
            *conv(16, 24),
            torch.nn.AvgPool2d(3, stride=3, padding=1, ceil_mode=True, count_include_pad=True),
            torch.nn.MaxPool2d(3, stride=2, ceil_mode=True),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(24, 10))
        _randomize_batchnorm(model, gen)
        sets = [{"pixel_values": rng.standard_normal((b, 3, 15, 21), np.float32)} for b in (1, 2)]
        return _wrap(model, ["pixel_values"], {"pixel_values": {0: "batch"}}, sets)
    if name in ("swin", "poolformer", "cvt", "hf_resnet"):
        size = 64 if name == "cvt" else 32
        if name == "swin":
            config = transformers.SwinConfig(image_size=size, patch_size=2, embed_dim=16, depths=[2, 2], num_heads=[2, 4],
                                             window_size=4, num_labels=10)
            model = transformers.SwinForImageClassification(config)
        elif name == "poolformer":
            config = transformers.PoolFormerConfig(hidden_sizes=[16, 32], depths=[1, 1], num_encoder_blocks=2,
                                                   patch_sizes=[7, 3], strides=[4, 2], padding=[2, 1], num_labels=10)
            model = transformers.PoolFormerForImageClassification(config)
        elif name == "cvt":
            config = transformers.CvtConfig(embed_dim=[16, 32], num_heads=[1, 2], depth=[1, 2], patch_sizes=[7, 3],
                                            patch_stride=[4, 2], patch_padding=[2, 1], stride_kv=[2, 2],
                                            cls_token=[False, True], mlp_ratio=[2.0, 2.0], attention_drop_rate=[0.0, 0.0],
                                            drop_rate=[0.0, 0.0], drop_path_rate=[0.0, 0.0], qkv_bias=[True, True],
                                            padding_kv=[1, 1], kernel_qkv=[3, 3], padding_q=[1, 1], stride_q=[1, 1],
                                            qkv_projection_method=["dw_bn", "dw_bn"], num_labels=10)
            model = transformers.CvtForImageClassification(config)
        else:
            config = transformers.ResNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1],
                                               layer_type="basic", num_labels=10)
            model = transformers.ResNetForImageClassification(config)
        _randomize_batchnorm(model, gen)
        sets = [{"pixel_values": rng.standard_normal((b, 3, size, size), np.float32)} for b in (1, 2)]
        return _wrap(model, ["pixel_values"], {"pixel_values": {0: "batch"}}, sets)
    if name == "fold_mixer":
        class FoldMixer(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.mix = torch.nn.Linear(12, 12)
                self.head = torch.nn.Linear(3, 4)

            def forward(self, pixel_values):
                patches = torch.nn.functional.unfold(pixel_values, 2, stride=2)  # [B, 12, L]
                mixed = self.mix(patches.transpose(1, 2)).transpose(1, 2)
                image = torch.nn.functional.fold(mixed, pixel_values.shape[-2:], 2, stride=2)
                return self.head(image.mean(dim=(2, 3)))

        model = FoldMixer()
        sets = [{"pixel_values": rng.standard_normal(s, np.float32)} for s in ((1, 3, 8, 8), (2, 3, 6, 10))]
        return _wrap(model, ["pixel_values"], {"pixel_values": {0: "batch", 2: "height", 3: "width"}}, sets)
    if name == "token_split":
        class TokenSplit(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = torch.nn.Conv2d(3, 16, 3, stride=2, padding=1)
                self.cls = torch.nn.Parameter(torch.randn(1, 1, 16, generator=gen))
                self.mix = torch.nn.Linear(16, 16)
                self.head = torch.nn.Linear(32, 5)

            def forward(self, pixel_values):
                x = self.embed(pixel_values)
                h, w = x.shape[-2:]
                tokens = torch.cat([self.cls.expand(x.shape[0], -1, -1), x.flatten(2).transpose(1, 2)], dim=1)
                tokens = torch.relu(self.mix(tokens))
                cls, rest = torch.split(tokens, [1, h * w], dim=1)
                return self.head(torch.cat([cls.squeeze(1), rest.mean(dim=1)], dim=1))

        model = TokenSplit()
        sets = [{"pixel_values": rng.standard_normal(s, np.float32)} for s in ((1, 3, 16, 16), (2, 3, 14, 22))]
        return _wrap(model, ["pixel_values"], {"pixel_values": {0: "batch", 2: "height", 3: "width"}}, sets)
    raise SystemExit("unknown model " + name)


def _wrap(model, input_names, dynamic_axes, sets):
    import torch

    class Plain(torch.nn.Module):
        """The model's outputs as a tuple of tensors (transformers returns a ModelOutput)."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *args):
            out = self.inner(*args)
            if isinstance(out, torch.Tensor):
                return out
            return tuple(v for v in out.values() if isinstance(v, torch.Tensor))

    return Plain(model.eval()).eval(), input_names, dynamic_axes, sets


def reference(model, inputs):
    """torch's outputs for one data set, as numpy arrays."""
    import torch
    with torch.no_grad():
        out = model(*[torch.from_numpy(v) for v in inputs.values()])
    return [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]
