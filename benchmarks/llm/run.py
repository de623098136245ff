"""The table of benchmarks/llm/run.sh (see there): each runtime in its own process (worker.py), one
after another on a machine left otherwise idle; the machine, its load and the command are printed
with the figures."""
import argparse
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--prompt", type=int, default=128)
    parser.add_argument("--new", type=int, default=64)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--devices", default="CPU;GPU;HETERO:GPU,CPU", help="Mosaic's devices")
    parser.add_argument("--runtimes", default="mosaic,mosaic_dq,openvino_genai,ort_genai,llama_cpp")
    parser.add_argument("--models", default=os.path.join(ROOT, "build", "llm_bench"))
    parser.add_argument("--weights", default="f32", help="f32, int8, int4 (comma-separated): the weights' format")
    args = parser.parse_args()
    models = "%s_%dl" % (args.models, args.layers)
    subprocess.run([sys.executable, os.path.join(HERE, "make_model.py"), models, "--layers", str(args.layers),
                    "--weights", args.weights], check=True)
    # Each runtime's model of each weight format (make_model.py); None where it has none.
    paths = {"f32": {"ov": "ov", "ort": "ort", "gguf": "model.gguf"},
             "int8": {"ov": "ov_int8", "ort": None, "gguf": "model_q8_0.gguf"},
             "int4": {"ov": "ov_int4", "ort": "ort_int4", "gguf": "model_q4_0.gguf"}}
    runs = []
    for threads in [int(t) for t in args.threads.split(",")]:
        for weights in args.weights.split(","):
            path = {k: v and os.path.join(models, v) for k, v in paths[weights].items()}
            for runtime in args.runtimes.split(","):
                if runtime == "mosaic":
                    for device in args.devices.split(";"):
                        if device == "CPU" or threads == int(args.threads.split(",")[0]):  # a GPU run per table
                            runs.append((runtime, weights, path["ov"], device, threads))
                elif runtime == "mosaic_dq" and weights != "f32":  # only compressed MatMuls quantize
                    runs.append((runtime, weights, path["ov"], "CPU", threads))
                elif runtime == "mosaic_packed" and weights == "f32":  # only f32 weights are read in place
                    runs.append((runtime, weights, path["ov"], "CPU", threads))
                elif runtime == "openvino_genai":
                    runs.append((runtime, weights, path["ov"], "CPU", threads))
                elif runtime == "ort_genai" and path["ort"]:
                    runs.append((runtime, weights, path["ort"], "CPU", threads))
                elif runtime == "llama_cpp":
                    runs.append((runtime, weights, path["gguf"], "CPU", threads))
    print("machine: %s, %d cores; load average before: %s" % (cpu_name(), os.cpu_count(),
                                                               " ".join("%.2f" % x for x in os.getloadavg())))
    print("command: benchmarks/llm/run.sh %s" % " ".join(sys.argv[1:]))
    print("model: Qwen2.5-0.5B-shaped, %d layers, weights %s, random weights; prompt %d tokens, %d new tokens, greedy"
          % (args.layers, args.weights, args.prompt, args.new))
    print("%-16s %-7s %-16s %7s %10s %18s %10s" % ("runtime", "weights", "device", "threads", "TTFT ms", "decode tokens/s",
                                                  "peak MiB"))
    for runtime, weights, path, device, threads in runs:
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        done = subprocess.run([sys.executable, os.path.join(HERE, "worker.py"), runtime, path, device, str(threads),
                               str(args.prompt), str(args.new)], capture_output=True, text=True, env=env)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            print("%-16s %-7s %-16s %7d  failed: %s" % (runtime, weights, device, threads, tail[0][:120]))
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print("%-16s %-7s %-16s %7d %10.1f %18.2f %10d" % (runtime, weights, device, threads, r["ttft_ms"],
                                                          r["decode_tokens_per_s"], r["peak_rss_mib"]), flush=True)
    print("load average after: %s" % " ".join("%.2f" % x for x in os.getloadavg()))


if __name__ == "__main__":
    main()
