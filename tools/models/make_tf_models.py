#!/usr/bin/env python3
"""Keras models exported by tf2onnx, the way TensorFlow's models reach ONNX users.

keras.applications' ResNet50, MobileNetV3Small (hard-swish, squeeze-and-excitation, its Rescaling
preprocessing inside) and EfficientNetB0 (Rescaling and Normalization inside, swish,
squeeze-and-excitation), and a text model (Embedding, a bidirectional LSTM, self-attention by
MultiHeadAttention, LayerNormalization and Dense heads over int32 token ids), built with random
weights (`weights=None`, a fixed seed), exported by `tf2onnx.convert.from_keras` at tf2onnx's
default opset (15) with a dynamic batch (`[?,H,W,3]`, channels last as Keras has them; `[?,?]`
tokens, a dynamic batch and length, for the text model). tf2onnx writes what torch's exporter does
not: the NHWC input Transposed once to NCHW (its transpose optimizer pushes the Transposes of every
convolution through the graph), Rescaling and Normalization as Mul and Add on NHWC, BatchNorm as a
Mul and an Add after each convolution, hard-swish as Add + Clip + Mul, squeeze-and-excitation's
means as GlobalAveragePool, the two directions of Keras' Bidirectional LSTM as one bidirectional
ONNX LSTM whose initial states are built from Shape, MultiHeadAttention's einsums as Gemm and MatMul
between Reshapes computed from Shape, LayerNormalization's moments as GlobalAveragePool.

    python tools/models/make_tf_models.py OUT_DIR [--only resnet50,mobilenetv3,efficientnet,text] [--force]

writes OUT_DIR/tf_<name>/model.onnx and, per shape in SHAPES, test_data_set_<k>/input_0.pb with
output_<i>.pb computed by TensorFlow itself (`model(x)`; ONNX's backend-test layout, as
make_paddle_models.py), and the same as input_<k>.npy and output_<k>_<i>.npy for readers without
onnx. Checks that ONNX Runtime agrees with TensorFlow on the export within the tests' bound (1e-4
of each output's range) and prints the difference, writing no model.onnx when it does not. Needs
tensorflow, tf2onnx, onnx and onnxruntime (scripts/install_model_exporters.sh puts them into a venv
of their own); prints one line per model.

Weights as a trained model has them, not Keras' initial ones: biases and BatchNorm's scale and shift
random, and BatchNorm's moving statistics those of the model's own activations on random images
(one training-mode pass with momentum 0), then moved a little, so that every layer's output stays
in range through fifty layers and a statistic applied to the wrong channel shows; ResNet's residual
branches end in a BatchNorm of a fifth of the scale, as training leaves them; Normalization holds
ImageNet's mean and variance. Without them the classifiers' softmax is 1/1000 everywhere.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np

from exported_models import main, save_last, write_tensor

IMAGE = {"resnet50": 64, "mobilenetv3": 96, "efficientnet": 96}
SHAPES = {
    "resnet50": [(1, 64, 64, 3), (2, 64, 64, 3)],
    "mobilenetv3": [(1, 96, 96, 3), (3, 96, 96, 3)],
    "efficientnet": [(1, 96, 96, 3), (2, 96, 96, 3)],
    "text": [(1, 12), (3, 20)],
}
VOCABULARY = 1000


def inputs(name, shape, rng):
    """What the model is fed: token ids, images of 0..255 for the models that rescale them
    themselves, caffe-style centred values for ResNet50 (keras.applications' preprocess_input)."""
    if name == "text":
        return rng.integers(0, VOCABULARY, shape).astype(np.int32)
    if name == "resnet50":
        return (rng.standard_normal(shape) * 60).astype(np.float32)
    return rng.uniform(0, 255, shape).astype(np.float32)


def build(name):
    import keras
    from keras import layers

    keras.utils.set_random_seed(1234 + sum(map(ord, name)))
    size = IMAGE.get(name)
    if name == "resnet50":
        model = keras.applications.ResNet50(weights=None, input_shape=(size, size, 3))
    elif name == "mobilenetv3":
        model = keras.applications.MobileNetV3Small(weights=None, input_shape=(size, size, 3))
    elif name == "efficientnet":
        model = keras.applications.EfficientNetB0(weights=None, input_shape=(size, size, 3))
    else:  # a tagger and a classifier over one encoder
        tokens = keras.Input((None,), dtype="int32", name="tokens")
        x = layers.Embedding(VOCABULARY, 32)(tokens)
        x = layers.Bidirectional(layers.LSTM(24, return_sequences=True))(x)
        x = layers.LayerNormalization()(x + layers.MultiHeadAttention(num_heads=2, key_dim=16)(x, x))
        tags = layers.Dense(9, name="tags")(x)
        pooled = layers.GlobalAveragePooling1D()(layers.Dense(32, activation="tanh")(x))
        label = layers.Dense(3, activation="softmax", name="label")(pooled)
        model = keras.Model(tokens, [tags, label], name="text")

    rng = np.random.default_rng(4321 + sum(map(ord, name)))
    norms = []
    for layer in model.layers:
        for w in layer.weights:
            # Biases start at zero, LayerNormalization's and BatchNorm's scale at one.
            leaf = w.path.split("/")[-1]
            if leaf == "bias" or leaf == "beta":
                w.assign(rng.uniform(-0.2, 0.2, w.shape).astype(np.float32))
            elif leaf == "gamma":
                # ResNet's residual branches end in a BatchNorm (conv<i>_block<j>_3_bn) whose scale
                # training keeps small (He et al. start it at zero): at the stream's scale, fifty
                # layers amplify f32's rounding to 8.5e-5 of the output's range in TensorFlow itself
                # (against float64), near the tests' bound; at a fifth of it to 1.8e-6.
                scale = 0.2 if layer.name.endswith("_3_bn") else 1.0
                w.assign(scale * rng.uniform(0.5, 1.5, w.shape).astype(np.float32))
        if isinstance(layer, layers.BatchNormalization):
            norms.append(layer)
        if isinstance(layer, layers.Normalization):
            layer.adapt_mean.assign(np.array([0.485, 0.456, 0.406], np.float32))
            layer.adapt_variance.assign(np.array([0.229, 0.224, 0.225], np.float32) ** 2)
            layer.finalize_state()
    if norms:
        # The moving statistics of the model's own activations: a training-mode pass with momentum 0
        # makes them the batch's, which the layers after saw normalized by them.
        momenta = [n.momentum for n in norms]
        for n in norms:
            n.momentum = 0.0
        model(inputs(name, (8,) + SHAPES[name][0][1:], rng), training=True)
        for n, m in zip(norms, momenta):
            n.momentum = m
            c = n.moving_mean.shape
            std = np.sqrt(n.moving_variance.numpy())
            n.moving_mean.assign(n.moving_mean.numpy() + (0.1 * std * rng.standard_normal(c)).astype(np.float32))
            n.moving_variance.assign(n.moving_variance.numpy() * rng.uniform(0.8, 1.25, c).astype(np.float32))
    return model


def export(name, out_dir, force):
    import onnxruntime
    import tensorflow as tf
    import tf2onnx
    target = os.path.join(out_dir, "tf_" + name)
    model_path = os.path.join(target, "model.onnx")
    if os.path.exists(model_path) and not force:
        return "cached"
    os.makedirs(target, exist_ok=True)
    model = build(name)
    if name == "text":
        spec = (tf.TensorSpec([None, None], tf.int32, name="tokens"),)
    else:
        spec = (tf.TensorSpec((None,) + SHAPES[name][0][1:], tf.float32, name="image"),)
    exported, _ = tf2onnx.convert.from_keras(model, input_signature=spec)
    session = onnxruntime.InferenceSession(exported.SerializeToString(), providers=["CPUExecutionProvider"])
    input_name = exported.graph.input[0].name
    output_names = [o.name for o in exported.graph.output]
    rng = np.random.default_rng(7)
    worst = []
    for k, shape in enumerate(SHAPES[name]):
        x = inputs(name, shape, rng)
        ys = model(x, training=False)
        ys = [y.numpy() for y in (ys if isinstance(ys, (list, tuple)) else [ys])]
        assert len(ys) == len(output_names), (len(ys), output_names)
        theirs = session.run(output_names, {input_name: x})
        for y, t in zip(ys, theirs):
            assert y.shape == t.shape, (y.shape, t.shape)
            worst.append(float(np.abs(y - t).max() / max(float(y.max() - y.min()), 1e-30)))
        data = os.path.join(target, "test_data_set_%d" % k)
        os.makedirs(data, exist_ok=True)
        write_tensor(os.path.join(data, "input_0.pb"), x, input_name)
        np.save(os.path.join(target, "input_%d.npy" % k), x)
        for i, (y, out) in enumerate(zip(ys, output_names)):
            write_tensor(os.path.join(data, "output_%d.pb" % i), y, out)
            np.save(os.path.join(target, "output_%d_%d.npy" % (k, i)), y)
    if max(worst) > 1e-4:
        raise SystemExit("tf_%s: ONNX Runtime is %.2g of the range from TensorFlow on the export" % (name, max(worst)))
    ops = sorted({n.op_type for n in exported.graph.node})
    saved = save_last(exported, model_path)
    return "%s, opset %d, ONNX Runtime within %.2g of TensorFlow's range; ops %s" % (
        saved, next(o.version for o in exported.opset_import if o.domain in ("", "ai.onnx")), max(worst), " ".join(ops))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], __doc__, "tf_", list(SHAPES), export))
