"""One runtime's generation in its own process (so its peak RSS is its own): greedy, a fixed prompt of
token ids, a fixed number of new tokens with end-of-sequence ignored. Prints one JSON line:
{"runtime", "device", "threads", "ttft_ms", "decode_tokens_per_s", "peak_rss_mib", "tokens"}.

    python worker.py RUNTIME MODEL_PATH DEVICE THREADS PROMPT_LEN NEW_TOKENS

RUNTIME: mosaic (mosaic.genai on an optimum-intel IR folder), mosaic_dq (the same with
DYNAMIC_QUANTIZATION_GROUP_SIZE 32: a compressed model's MatMuls quantize their activations to int8,
as OpenVINO's CPU plugin does by default), mosaic_packed (the same with CPU_WEIGHTS_IN_PLACE off: the
CPU packs the weights beside the model's, two copies in memory), openvino_genai (the same folder),
ort_genai (onnxruntime-genai on its model builder's folder), llama_cpp (llama-cpp-python on a GGUF).
"""
import json
import resource
import sys
import time

import numpy as np


def prompt_ids(length, seed=3):
    # Ids of the trained tokenizer's range (make_model.py): every runtime gets the same ones.
    return np.random.default_rng(seed).integers(10, 700, length).tolist()


def warm_up_ids(ids):
    # Another prompt of the same length: the warm-up compiles what the measured run needs, but a
    # runtime that caches prompts (OpenVINO GenAI's prefix caching) gains nothing from it.
    return prompt_ids(len(ids), seed=4)


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_mosaic(path, device, threads, ids, new, extra=None):
    import mosaic.genai as genai
    properties = dict({"INFERENCE_NUM_THREADS": threads}, **(extra or {})) if device == "CPU" else {}
    pipe = genai.LLMPipeline(path, device, **properties)
    config = genai.GenerationConfig()
    config.max_new_tokens = new
    config.ignore_eos = True
    pipe.generate(warm_up_ids(ids), config)  # warm-up, as for every runtime: the second run is measured
    result = pipe.generate(ids, config)
    metrics = result.perf_metrics
    return metrics.ttft_ms, metrics.throughput, len(result.tokens[0])


def run_mosaic_dq(path, device, threads, ids, new):
    return run_mosaic(path, device, threads, ids, new, {"DYNAMIC_QUANTIZATION_GROUP_SIZE": 32})


def run_mosaic_packed(path, device, threads, ids, new):
    return run_mosaic(path, device, threads, ids, new, {"CPU_WEIGHTS_IN_PLACE": False})


def run_openvino_genai(path, device, threads, ids, new):
    import openvino as ov
    import openvino_genai as ov_genai
    pipe = ov_genai.LLMPipeline(path, device, INFERENCE_NUM_THREADS=threads, INFERENCE_PRECISION_HINT="f32",
                                KV_CACHE_PRECISION="f32")
    config = ov_genai.GenerationConfig()
    config.max_new_tokens = new
    config.ignore_eos = True
    tokens = ov.Tensor(np.array([ids], dtype=np.int64))
    pipe.generate(ov.Tensor(np.array([warm_up_ids(ids)], dtype=np.int64)), config)
    result = pipe.generate(tokens, config)
    metrics = result.perf_metrics
    return metrics.get_ttft().mean, metrics.get_throughput().mean, len(result.tokens[0])


def run_ort_genai(path, device, threads, ids, new):
    import atexit
    import json
    import os
    import shutil
    import tempfile
    import onnxruntime_genai as og
    # The thread count is a session option of genai_config.json: a folder of hard links to the
    # model (ONNX Runtime refuses external data through symbolic links) with a config of its own.
    folder = tempfile.mkdtemp(prefix="ort-genai-", dir=os.path.dirname(os.path.abspath(path)))
    atexit.register(shutil.rmtree, folder, True)
    for name in os.listdir(path):
        if name != "genai_config.json":
            os.link(os.path.join(path, name), os.path.join(folder, name))
    with open(os.path.join(path, "genai_config.json")) as f:
        genai_config = json.load(f)
    options = genai_config["model"]["decoder"]["session_options"]
    options["intra_op_num_threads"] = threads
    options["inter_op_num_threads"] = 1
    with open(os.path.join(folder, "genai_config.json"), "w") as f:
        json.dump(genai_config, f)
    config = og.Config(folder)
    model = og.Model(config)

    def once(prompt):
        params = og.GeneratorParams(model)
        params.set_search_options(max_length=len(prompt) + new, min_length=len(prompt) + new, do_sample=False)
        generator = og.Generator(model, params)
        start = time.perf_counter()
        generator.append_tokens(prompt)
        first = time.perf_counter()
        count = 1
        while not generator.is_done():
            generator.generate_next_token()
            count += 1
        end = time.perf_counter()
        return (first - start) * 1000, (count - 1) / (end - first), count

    once(warm_up_ids(ids))
    return once(ids)


def run_llama_cpp(path, device, threads, ids, new):
    from llama_cpp import Llama
    llm = Llama(model_path=path, n_ctx=len(ids) + new + 8, n_threads=threads, n_threads_batch=threads,
                n_batch=len(ids), verbose=False, logits_all=True)

    def once(prompt):
        llm.reset()
        start = time.perf_counter()
        llm.eval(prompt)
        token = int(np.argmax(llm.scores[llm.n_tokens - 1]))
        first = time.perf_counter()
        for _ in range(new - 1):
            llm.eval([token])
            token = int(np.argmax(llm.scores[llm.n_tokens - 1]))
        end = time.perf_counter()
        return (first - start) * 1000, (new - 1) / (end - first), new

    once(warm_up_ids(ids))
    return once(ids)


def main():
    runtime, path, device, threads, prompt_len, new = sys.argv[1:7]
    runner = {"mosaic": run_mosaic, "mosaic_dq": run_mosaic_dq, "mosaic_packed": run_mosaic_packed,
              "openvino_genai": run_openvino_genai, "ort_genai": run_ort_genai, "llama_cpp": run_llama_cpp}[runtime]
    ttft, rate, tokens = runner(path, device, int(threads), prompt_ids(int(prompt_len)), int(new))
    print(json.dumps({"runtime": runtime, "device": device, "threads": int(threads), "ttft_ms": round(ttft, 1),
                      "decode_tokens_per_s": round(rate, 2), "peak_rss_mib": round(peak_rss_mib()), "tokens": tokens}))


if __name__ == "__main__":
    main()
