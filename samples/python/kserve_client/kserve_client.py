#!/usr/bin/env python3
"""kserve_client: classifies an image (or a random tensor) on a model served by `mosaic-serve`,
with tritonclient's HTTP client and the KServe v2 binary tensor extension.

    python3 kserve_client.py --url 127.0.0.1:8000 --model cnn [--image photo.jpg] [--retries 5]

The image is laid out as hello_classification lays it out (BGR, 0..255, the input's layout); without
--image the input is random data of the input's shape. A request answered 503 (the replica that held
it was lost; Ray is starting another) or that got no answer is sent again, up to --retries times with
a growing pause: inference has no side effects, so a retry is safe. Needs `pip install
tritonclient[http]` (and Pillow for --image).
"""
import argparse
import pathlib
import sys
import time

import numpy as np

try:
    import tritonclient.http as httpclient
    from tritonclient.utils import InferenceServerException, triton_to_np_dtype
except ImportError:
    sys.exit("kserve_client needs tritonclient's HTTP client: pip install 'tritonclient[http]'")


def input_array(spec, image):
    shape = [1 if d == -1 else d for d in spec["shape"]]  # -1: a batch dimension, one image
    dtype = triton_to_np_dtype(spec["datatype"])
    if image is None:
        return np.random.default_rng(0).random(shape).astype(dtype)
    # The image layout of hello_classification, beside this sample (both install under mosaic/samples).
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "hello_classification"))
    from hello_classification import image_tensor
    return image_tensor(image, shape, dtype)


def infer_with_retries(client, model, inputs, outputs, retries):
    for attempt in range(retries + 1):
        try:
            return client.infer(model, inputs, outputs=outputs)
        except InferenceServerException as e:
            # 503: retryable by the protocol; None: no HTTP answer (the connection dropped).
            if e.status() not in ("503", None) or attempt == retries:
                raise
            print(f"attempt {attempt + 1}: {e}; retrying", file=sys.stderr)
        except ConnectionError as e:
            if attempt == retries:
                raise
            print(f"attempt {attempt + 1}: {e}; retrying", file=sys.stderr)
        time.sleep(0.2 * 2 ** attempt)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default="127.0.0.1:8000", help="host:port of the server")
    p.add_argument("--model", required=True)
    p.add_argument("--image", help="a JPEG or PNG to classify (default: a random tensor)")
    p.add_argument("--retries", type=int, default=5, help="retries of a request answered 503 or not answered")
    p.add_argument("--top", type=int, default=10)
    args = p.parse_args(argv)

    client = httpclient.InferenceServerClient(args.url)
    metadata = client.get_model_metadata(args.model)
    if len(metadata["inputs"]) != 1:
        raise ValueError(f"model '{args.model}' has {len(metadata['inputs'])} inputs; this sample sends one")
    spec = metadata["inputs"][0]
    data = input_array(spec, args.image)
    tensor = httpclient.InferInput(spec["name"], list(data.shape), spec["datatype"])
    tensor.set_data_from_numpy(data, binary_data=True)
    first = metadata["outputs"][0]["name"]  # read as class scores, as hello_classification does
    result = infer_with_retries(client, args.model, [tensor],
                                [httpclient.InferRequestedOutput(first, binary_data=True)], args.retries)
    print(f"Model {args.model} at {args.url}, input {spec['name']} {list(data.shape)} "
          f"{'from ' + args.image if args.image else '(random)'}")
    print(top_table(result.as_numpy(first).reshape(-1), args.top))
    return 0


def top_table(scores, count):
    """The `count` highest scores, highest first, in hello_classification's table."""
    top = np.argsort(scores, kind="stable")[::-1][:count]
    rows = [f"{class_id:<8} {scores[class_id]:.7f}" for class_id in top]
    return "\n".join([f"Top {len(top)} results:", "class_id probability", "-" * 20, *rows])


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (InferenceServerException, ValueError, ConnectionError) as e:
        print(e, file=sys.stderr)
        sys.exit(1)
