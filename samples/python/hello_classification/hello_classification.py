#!/usr/bin/env python3
"""hello_classification, as OpenVINO's Python sample: classifies one image with a model on a device
and prints the top 10 classes.

    python3 hello_classification.py <path_to_model> <path_to_image> <device_name>

The image (JPEG or PNG, read with Pillow) is resized to the model input's height and width and laid
out as the C++ sample and `mosaic run -i` lay it out: BGR (OpenCV's order, which OpenVINO's samples
read with), values 0..255, NCHW or NHWC from where the input's 3 channels sit. The model's first
output is read as class scores.
"""
import logging as log
import sys

import numpy as np
from PIL import Image, UnidentifiedImageError

import mosaic as ov


def image_tensor(path, shape, dtype):
    """The image at `path` as an array of `shape` (N, C, H, W or N, H, W, C) and `dtype`."""
    if len(shape) != 4:
        raise ValueError(f"the model input has shape {list(shape)}; an image input is [N,3,H,W] or [N,H,W,3]")
    nchw = shape[1] in (1, 3)
    channels, height, width = (shape[1], shape[2], shape[3]) if nchw else (shape[3], shape[1], shape[2])
    if channels not in (1, 3):
        raise ValueError(f"the model input has shape {list(shape)}, with no dimension of 3 (or 1) channels")
    try:
        with Image.open(path) as image:
            image = image.convert("RGB" if channels == 3 else "L")
            image = image.resize((width, height), Image.BILINEAR)
            pixels = np.asarray(image, dtype=np.uint8)
    except FileNotFoundError:
        raise ValueError(f"image file '{path}' does not exist") from None
    except (UnidentifiedImageError, OSError) as e:
        raise ValueError(f"'{path}' is not a readable JPEG or PNG image: {e}") from None
    if channels == 3:
        pixels = pixels[:, :, ::-1]  # RGB -> BGR
    else:
        pixels = pixels[:, :, np.newaxis]
    if nchw:
        pixels = pixels.transpose(2, 0, 1)
    batch = np.broadcast_to(pixels, (shape[0],) + pixels.shape)
    return np.ascontiguousarray(batch, dtype=dtype)


def main():
    log.basicConfig(format="[ %(levelname)s ] %(message)s", level=log.INFO, stream=sys.stdout)
    if len(sys.argv) != 4:
        log.info(f"Usage: {sys.argv[0]} <path_to_model> <path_to_image> <device_name>")
        return 1
    model_path, image_path, device_name = sys.argv[1:]

    # Step 1. Initialize the runtime core.
    core = ov.Core()

    # Step 2. Read a model.
    log.info(f"Loading model files: {model_path}")
    model = core.read_model(model_path)
    if len(model.inputs) != 1:
        log.error("Sample supports only single input topologies")
        return -1

    # A model exported with a dynamic batch ([?,3,224,224], as torch exports) classifies one image:
    # batch 1. Other dynamic dimensions need the model reshaped first.
    shape = list(model.input(0).get_partial_shape())
    if shape and shape[0] < 0:
        model.reshape({model.input(0).get_any_name(): [1] + shape[1:]})

    # Step 3. Read the image laid out as the input wants it.
    port = model.input(0)
    data = image_tensor(image_path, list(port.get_shape()), port.get_element_type().to_dtype())

    # Step 4. Compile the model on the device.
    compiled_model = core.compile_model(model, device_name)

    # Step 5. Infer.
    results = compiled_model.create_infer_request().infer({0: data})

    # Step 6. Process the output: the top 10 classes, highest first.
    scores = np.asarray(results[compiled_model.output(0)]).reshape(-1)
    top = np.argsort(scores, kind="stable")[::-1][:10]
    log.info(f"Image path: {image_path}")
    log.info(f"Top {len(top)} results: ")
    log.info("class_id probability")
    log.info("--------------------")
    for class_id in top:
        log.info(f"{class_id:<8} {scores[class_id]:.7f}")
    log.info("")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, ValueError, TypeError) as e:
        print(e, file=sys.stderr)
        sys.exit(1)
