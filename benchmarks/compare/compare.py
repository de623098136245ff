"""Mosaic, on one or several of its devices, against ONNX Runtime and OpenVINO: batch-1 latency, compile
time and peak memory.

Started by run.sh (which installs onnxruntime, openvino and numpy when they are missing); see
README.md in this folder for what is measured and how to read it.

For every model and thread count, R rounds of [Mosaic on each device, ONNX Runtime, OpenVINO]
blocks run one after another, each block a fresh process (so compile time and peak RSS are per
runtime and device, and drift in the machine's load hits all of them alike). A block compiles the
model, runs the warm-up inferences (excluded) and then N timed inferences.
"""

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MODEL_MAKER = os.path.join(REPO, "tools", "models", "make_onnx_models.py")
QUANTIZER = os.path.join(REPO, "tools", "models", "make_quantized_models.py")
QUANTIZED_SUFFIXES = ("_qdq", "_dynamic")
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, with torch and onnx: what make_onnx_models.py needs

DEFAULT_MODELS = ["resnet50", "mobilenet_v2", "efficientnet_b0", "squeezenet1_1", "bert_base", "minilm_l6", "bilstm"]
RUNTIMES = ["mosaic", "ort", "ov"]
LABELS = {"mosaic": "Mosaic", "ort": "ORT", "ov": "OV"}


def say(*parts):
    print(*parts, flush=True)


def csv_list(text):
    return [x.strip() for x in text.split(",") if x.strip()]


def device_list(text):
    """'CPU;GPU;HETERO:GPU,CPU': device strings hold commas, so they are separated by semicolons."""
    return [x.strip() for x in text.split(";") if x.strip()]


def parse_args(argv):
    p = argparse.ArgumentParser(prog="run.sh", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", type=csv_list, default=",".join(DEFAULT_MODELS),
                   help="comma-separated names from tools/models/make_onnx_models.py, or such a name with _qdq or "
                        "_dynamic: quantized by tools/models/make_quantized_models.py (default: %(default)s)")
    p.add_argument("--threads", type=lambda s: [int(x) for x in csv_list(s)], default="1",
                   help="comma-separated thread counts (default: 1)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--devices", type=device_list,
                       help="Mosaic device strings separated by ';', each its own column: 'CPU;GPU;HETERO:GPU,CPU' "
                            "(default: CPU)")
    which.add_argument("--device", help="one Mosaic device string: the same as --devices with one device")
    p.add_argument("--iterations", type=int, default=50, help="timed inferences per block (default: 50)")
    p.add_argument("--warmup", type=int, default=5,
                   help="warm-up inferences per block, excluded (default: 5; Mosaic's CLI always does exactly 1)")
    p.add_argument("--rounds", type=int, default=3, help="rounds of [mosaic per device, ort, ov] blocks (default: 3)")
    p.add_argument("--mosaic", metavar="BUILD", default=os.path.join(REPO, "build"),
                   help="Mosaic build folder holding bin/mosaic (default: <repo>/build)")
    p.add_argument("--models-dir", help="ONNX models folder (default: BUILD/onnx_models; missing models are generated)")
    p.add_argument("--out", help="results folder (default: BUILD/benchmarks/compare)")
    p.add_argument("--runtimes", type=csv_list, default=",".join(RUNTIMES), help="subset of mosaic,ort,ov (default: all)")
    p.add_argument("--timeout", type=float, default=900, help="seconds one block may run before it is killed (default: 900)")
    args = p.parse_args(argv)
    for r in args.runtimes:
        if r not in RUNTIMES:
            p.error("--runtimes: unknown runtime '%s' (choose from %s)" % (r, ",".join(RUNTIMES)))
    if args.iterations < 1 or args.rounds < 1 or args.warmup < 0 or not args.threads or min(args.threads) < 1:
        p.error("--iterations and --rounds must be >= 1, --warmup >= 0, --threads >= 1")
    args.devices = args.devices or [args.device or "CPU"]
    if len(set(args.devices)) != len(args.devices):
        p.error("--devices: a device is listed twice")
    args.build = os.path.abspath(args.mosaic)
    args.models_dir = os.path.abspath(args.models_dir or os.path.join(args.build, "onnx_models"))
    args.out = os.path.abspath(args.out or os.path.join(args.build, "benchmarks", "compare"))
    return args


# ------------------------------------------------------------------------------------------------
# Processes
# ------------------------------------------------------------------------------------------------

TIME = "/usr/bin/time"  # GNU time: reports its child's peak RSS


class ChildResult:
    def __init__(self, rc, peak_rss_mb, wall_s, timed_out, rss_method):
        self.rc, self.peak_rss_mb, self.wall_s, self.timed_out = rc, peak_rss_mb, wall_s, timed_out
        self.rss_method = rss_method


def run_child(cmd, log_path, timeout, extra_env=None):
    """Runs cmd, with extra_env added to this process's environment, to completion with its output
    in log_path, and measures its peak RSS.

    Linux carries the forking process's RSS high-water mark over into the child's ru_maxrss
    across exec, so wait4 on a child of this Python process would report at least this
    process's size. The child is therefore started by GNU time (a small C program, about 2 MB),
    whose %M is the ru_maxrss of its own child. Without /usr/bin/time, wait4 is the fallback and
    the figure is an upper bound.
    """
    use_time = os.access(TIME, os.X_OK)
    rss_file = log_path + ".maxrss"
    full = [TIME, "-f", "%M", "-o", rss_file, "--"] + cmd if use_time else cmd
    env = dict(os.environ, **extra_env) if extra_env else None
    with open(log_path, "w") as log:
        log.write("$ %s\n" % " ".join(["%s=%s" % (k, shlex.quote(v)) for k, v in (extra_env or {}).items()] +
                                      [shlex.quote(c) for c in cmd]))
        log.flush()
        t0 = time.perf_counter()
        # A session of its own, so a timeout kills the benchmark and not only GNU time.
        proc = subprocess.Popen(full, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    killed = threading.Event()

    def kill():
        killed.set()
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; keep Popen from waiting again
    peak_mb, method = usage.ru_maxrss / 1024.0, "wait4 (upper bound: includes the harness's own RSS)"
    if use_time:
        try:
            with open(rss_file) as f:
                peak_mb, method = int(f.read().split()[-1]) / 1024.0, "GNU time %M"
            os.remove(rss_file)
        except (OSError, ValueError, IndexError):
            pass  # killed before GNU time wrote it: keep the wait4 figure
    return ChildResult(proc.returncode, peak_mb, wall, killed.is_set(), method)


def log_line(path, prefix):
    """The rest of the first line of a log that starts with prefix; None when there is none."""
    try:
        with open(path, errors="replace") as f:
            return next((line[len(prefix):].strip() for line in f if line.startswith(prefix)), None)
    except OSError:
        return None


def log_tail(path, lines=6):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:]).strip()
    except OSError:
        return ""


def capture(cmd, **kw):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, **kw)
    except OSError as e:
        return subprocess.CompletedProcess(cmd, 127, "", str(e))


# ------------------------------------------------------------------------------------------------
# Machine and software
# ------------------------------------------------------------------------------------------------

def machine_info():
    info = {"hostname": platform.node(), "kernel": platform.release(), "os_cpu_count": os.cpu_count()}
    fields = {"Model name": "cpu_model", "CPU(s)": "cpus", "Core(s) per socket": "cores_per_socket",
              "Thread(s) per core": "threads_per_core", "Socket(s)": "sockets", "L3 cache": "l3_cache",
              "Flags": "flags"}
    out = capture(["lscpu"], env=dict(os.environ, LC_ALL="C"))
    for line in out.stdout.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in fields:
            info[fields[key.strip()]] = value.strip()
    flags = info.pop("flags", "").split()
    info["simd"] = [f for f in ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile") if f in flags]
    try:
        info["affinity_cpus"] = len(os.sched_getaffinity(0))
    except AttributeError:
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    info["mem_total_mb"] = round(int(line.split()[1]) / 1024)
    except OSError:
        pass
    return info


def loadavg():
    return [round(x, 2) for x in os.getloadavg()]


def python_has(python, modules):
    return capture([python, "-c", "import " + ", ".join(modules)]).returncode == 0


def git_revision():
    out = capture(["git", "-C", REPO, "rev-parse", "--short", "HEAD"])
    if out.returncode:
        return None
    # --no-optional-locks: status must not refresh the index (this harness changes nothing in the tree).
    dirty = capture(["git", "--no-optional-locks", "-C", REPO, "status", "--porcelain", "--untracked-files=no"]).stdout.strip()
    return out.stdout.strip() + ("+local changes" if dirty else "")


# ------------------------------------------------------------------------------------------------
# Models and inputs
# ------------------------------------------------------------------------------------------------

def ensure_models(args):
    def present(m):
        d = os.path.join(args.models_dir, m)
        return os.path.exists(os.path.join(d, "model.onnx")) and os.path.exists(os.path.join(d, "test_data_set_0", "input_0.pb"))

    missing = [m for m in args.models if not present(m)]
    if not missing:
        return
    # NAME_qdq and NAME_dynamic: NAME quantized by ONNX Runtime's quantizer (make_quantized_models.py,
    # run by this harness's interpreter, which has onnxruntime), NAME generated first when missing.
    quantized = [m for m in missing if m.endswith(QUANTIZED_SUFFIXES)]
    sources = sorted({m.rsplit("_", 1)[0] for m in quantized})
    missing = sorted(set(m for m in missing if m not in quantized) | {s for s in sources if not present(s)})
    if missing:
        generate_models(args, missing)
    if quantized:
        forms = sorted({m.rsplit("_", 1)[1] for m in quantized})
        say("Quantizing %s into %s (tools/models/make_quantized_models.py) ..." % (",".join(quantized), args.models_dir))
        rc = subprocess.call([sys.executable, QUANTIZER, args.models_dir, args.models_dir, "--only", ",".join(sources),
                              "--forms", ",".join(forms)])
        still = [m for m in quantized if not present(m)]
        if rc or still:
            sys.exit("compare: quantization failed (exit %d); missing: %s" % (rc, ",".join(still) or "-"))


def generate_models(args, missing):
    def present(m):
        return os.path.exists(os.path.join(args.models_dir, m, "model.onnx"))

    say("Generating %s into %s (tools/models/make_onnx_models.py, %s) ..." % (",".join(missing), args.models_dir, SYSTEM_PYTHON))
    if not os.path.exists(SYSTEM_PYTHON) or not python_has(SYSTEM_PYTHON, ["torch", "torchvision", "onnx"]):
        sys.exit("compare: %s with torch, torchvision and onnx is needed to generate the models "
                 "(see tools/models/README.md); or pass --models-dir with them already generated" % SYSTEM_PYTHON)
    os.makedirs(args.models_dir, exist_ok=True)
    rc = subprocess.call([SYSTEM_PYTHON, MODEL_MAKER, args.models_dir, "--only", ",".join(missing)])
    still = [m for m in missing if not present(m)]
    if rc or still:
        sys.exit("compare: model generation failed (exit %d); missing: %s. Names known to the generator: "
                 "%s %s --list" % (rc, ",".join(still) or "-", SYSTEM_PYTHON, MODEL_MAKER))


def onnx_python():
    """An interpreter that can read TensorProto files: ours, Debian's, or ours after pip install onnx."""
    for python in (sys.executable, SYSTEM_PYTHON):
        if os.path.exists(python) and python_has(python, ["onnx", "numpy"]):
            return python
    say("Neither %s nor %s can import onnx; installing it: %s -m pip install onnx" % (sys.executable, SYSTEM_PYTHON, sys.executable))
    if subprocess.call([sys.executable, "-m", "pip", "install", "--quiet", "onnx"]) != 0:
        sys.exit("compare: pip install onnx failed; onnx is needed to read the models' test inputs")
    return sys.executable


def prepare_inputs(args, model, cache_root, python_for_onnx):
    """Test inputs as .npz + manifest, cached and redone when the model is newer."""
    model_dir = os.path.join(args.models_dir, model)
    folder = os.path.join(cache_root, model)
    manifest = os.path.join(folder, "inputs.json")
    newest = max(os.path.getmtime(os.path.join(model_dir, "model.onnx")),
                 os.path.getmtime(os.path.join(model_dir, "test_data_set_0")))
    if os.path.exists(manifest) and os.path.getmtime(manifest) >= newest:
        with open(manifest) as f:
            data = json.load(f)
        if data.get("model") == os.path.join(model_dir, "model.onnx"):
            return folder, data["inputs"]
    rc = subprocess.call([python_for_onnx(), os.path.join(HERE, "prepare_inputs.py"), model_dir, folder])
    if rc:
        sys.exit("compare: could not read the test inputs of %s" % model_dir)
    with open(manifest) as f:
        return folder, json.load(f)["inputs"]


# ------------------------------------------------------------------------------------------------
# Mosaic
# ------------------------------------------------------------------------------------------------

def split_device(device):
    """("HETERO", ["GPU.1", "CPU"]) for "HETERO:GPU.1,CPU"; ("CPU", []) for "CPU"."""
    head, _, rest = device.partition(":")
    return head, csv_list(rest)


def runs_on(device):
    """The devices that run a device string's ops, as written: [GPU.1, CPU] for "HETERO:GPU.1,CPU"."""
    head, listed = split_device(device)
    return listed or [head]


def base_name(name):
    """The registry entry of a device or an instance of it: "GPU.1" -> "GPU"."""
    return name.split(".")[0]


class MosaicDevice:
    """One device string of --devices and what the registry says about the devices it names."""

    def __init__(self, device, available, note="", props=None):
        self.device = device
        self.available = available
        self.note = note  # why it is not available; "" when it is
        self.props = props or {}  # {registry name: {property: value}}, from `mosaic devices --json`

    def full_names(self):
        return {name: p.get("FULL_DEVICE_NAME") for name, p in self.props.items()}


def mosaic_registry(args):
    """({device: properties}, registry problems, version, error) from `mosaic devices --json`."""
    binary = os.path.join(args.build, "bin", "mosaic")
    if not os.access(binary, os.X_OK):
        return {}, "", None, "no mosaic binary at %s: build Mosaic first (bash scripts/build.sh) or pass --mosaic BUILD" % binary
    version = capture([binary, "--version"]).stdout.strip() or None
    out = capture([binary, "devices", "--json"])
    try:
        listing = json.loads(out.stdout)
    except ValueError:
        return {}, "", version, "'mosaic devices --json' failed (exit %d): %s" % (out.returncode, (out.stderr or out.stdout).strip())
    devices = {d["name"]: d.get("properties", {}) for d in listing.get("devices", [])}
    return devices, "; ".join(str(p) for p in listing.get("problems", [])), version, None


def describe_device(device, registry, build):
    """A MosaicDevice for one device string. It is unavailable when a device it names is not in the
    registry (or failed to load), or lists no instance to run on (GPU without an OpenCL driver)."""
    head, listed = split_device(device)
    names = [base_name(n) for n in [head] + listed]
    absent = [n for n in names if n not in registry]
    # A device with instances (GPU.0, GPU.1, ...) lists them; an empty list means nothing to run on.
    empty = [n for n in names if n in registry and registry[n].get("AVAILABLE_DEVICES") in ([], "")]
    if absent:
        why = "%s %s not available in %s (its registry lists: %s)" % (
            ", ".join(absent), "is" if len(absent) == 1 else "are", build, ", ".join(registry) or "none")
        if "CPU" in absent:
            why += "; the CPU plugin needs oneDNN (scripts/install_deps.sh installs libdnnl-dev)"
    elif empty:
        why = "; ".join("%s: %s" % (n, registry[n].get("GPU_DEVICE_STATUS") or registry[n].get("FULL_DEVICE_NAME")) for n in empty)
    else:
        return MosaicDevice(device, True, props={n: registry[n] for n in names})
    return MosaicDevice(device, False, "Mosaic device %s cannot run, its blocks are skipped: %s." % (device, why))


def mosaic_config(device, threads, props):
    """The --config of a block: the properties ORT and OpenVINO get, for each device the string runs
    on, where that device declares them (a device refuses keys it does not know; the GPU device has
    no INFERENCE_NUM_THREADS). A plain device takes them at the top level; behind HETERO each device
    gets a section of its own, which the CLI passes on as DEVICE_PROPERTIES."""
    wanted = {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": 1, "INFERENCE_PRECISION_HINT": "f32"}
    sections = {name: {k: v for k, v in wanted.items() if k in props[base_name(name)]} for name in runs_on(device)}
    if ":" not in device:
        return sections[device]
    return {name: section for name, section in sections.items() if section}


def mosaic_env(device, threads):
    """Environment added to a block. PoCL's OpenCL CPU device, the GPU device's stand-in where there
    is no GPU, takes no thread count from Mosaic and starts a worker per core; POCL_MAX_PTHREAD_COUNT
    caps its workers, so that a GPU block at T threads uses T cores like every other block. Other
    OpenCL drivers ignore the variable."""
    if "GPU" in [base_name(n) for n in runs_on(device)]:
        return {"POCL_MAX_PTHREAD_COUNT": str(threads)}
    return {}


def run_mosaic_block(args, dev, model_path, inputs, threads, stem):
    config, env = mosaic_config(dev.device, threads, dev.props), mosaic_env(dev.device, threads)
    cfg_path, report_path = stem + ".config.json", stem + ".report.json"
    with open(cfg_path, "w") as f:
        json.dump(config, f)
    if os.path.exists(report_path):
        os.remove(report_path)
    cmd = [os.path.join(args.build, "bin", "mosaic"), "benchmark", "-m", model_path, "-d", dev.device,
           "-api", "sync", "-nireq", "1", "-niter", str(args.iterations), "--report", report_path, "--config", cfg_path]
    dynamic = [s for s in inputs if s["dynamic"]]
    if dynamic:  # `mosaic benchmark` fills inputs itself and needs static shapes to do it
        cmd += ["--shape", ",".join("%s[%s]" % (s["name"], ",".join(str(d) for d in s["shape"])) for s in dynamic)]
    child = run_child(cmd, stem + ".log", args.timeout, env)
    block = {"rc": child.rc, "peak_rss_mb": child.peak_rss_mb, "rss_method": child.rss_method, "wall_s": child.wall_s,
             "config": config, "env": env}
    if child.rc != 0 or not os.path.exists(report_path):
        block["error"] = "timed out after %g s" % args.timeout if child.timed_out else log_tail(stem + ".log")
        return block
    with open(report_path) as f:
        report = json.load(f)
    lat = report["latency_ms"]
    block.update({
        "read_model_ms": report.get("read_model_ms"),
        "compile_ms": report.get("compile_ms"),
        "load_ms": (report.get("read_model_ms") or 0) + (report.get("compile_ms") or 0),
        "warmup_ms": [report.get("first_inference_ms")],
        "iterations": report.get("iterations"),
        # The report holds summary figures only, not each iteration's latency.
        "median_ms": lat["median"], "average_ms": lat["average"], "min_ms": lat["min"], "max_ms": lat["max"],
        "performance_hint": report.get("performance_hint"),
        # HETERO's placement ("GPU 100 ops, CPU 17 ops; 3 subgraphs; ..."): which device ran what.
        "split": log_line(stem + ".log", "Split: "),
    })
    return block


# ------------------------------------------------------------------------------------------------
# ONNX Runtime and OpenVINO
# ------------------------------------------------------------------------------------------------

def run_worker_block(args, runtime, model_path, inputs_dir, threads, stem):
    out = stem + ".result.json"
    if os.path.exists(out):
        os.remove(out)
    cmd = [sys.executable, os.path.join(HERE, "worker.py"), runtime, "--model", model_path, "--inputs", inputs_dir,
           "--threads", str(threads), "--iterations", str(args.iterations), "--warmup", str(args.warmup), "--out", out]
    child = run_child(cmd, stem + ".log", args.timeout)
    block = {"rc": child.rc, "peak_rss_mb": child.peak_rss_mb, "rss_method": child.rss_method, "wall_s": child.wall_s}
    if child.rc != 0 or not os.path.exists(out):
        block["error"] = "timed out after %g s" % args.timeout if child.timed_out else log_tail(stem + ".log")
        return block
    with open(out) as f:
        result = json.load(f)
    lat = result.pop("latencies_ms")
    block.update(result)
    block.update({"latencies_ms": lat, "iterations": len(lat), "median_ms": statistics.median(lat),
                  "average_ms": statistics.fmean(lat), "min_ms": min(lat), "max_ms": max(lat)})
    return block


def baseline(args, runtime, logs):
    """(peak RSS MB, version) of a process that only starts the runtime: what every block of it
    costs whatever the model. Run before anything else, it also tells whether the runtime imports."""
    if runtime == "mosaic":
        cmd = [os.path.join(args.build, "bin", "mosaic"), "devices", "--json"]
    else:
        out = os.path.join(logs, "baseline_%s.json" % runtime)
        cmd = [sys.executable, os.path.join(HERE, "worker.py"), runtime, "--baseline", "--out", out]
    log = os.path.join(logs, "baseline_%s.log" % runtime)
    child = run_child(cmd, log, 300)
    if child.rc != 0:
        return None, "unavailable: " + log_tail(log, 2).replace("\n", " | ")
    if runtime == "mosaic":
        return round(child.peak_rss_mb, 1), None
    with open(out) as f:
        return round(child.peak_rss_mb, 1), json.load(f).get("version")


# ------------------------------------------------------------------------------------------------
# Summary
# ------------------------------------------------------------------------------------------------

def summarize(runtime, blocks):
    ok = [b for b in blocks if "error" not in b]
    s = {"blocks": blocks, "ok": bool(ok) and len(ok) == len(blocks)}
    if not ok:
        s["error"] = blocks[-1].get("error") if blocks else "not run"
        return s
    round_medians = [b["median_ms"] for b in ok]
    if runtime == "mosaic":
        # Only per-run summaries are reported by `mosaic benchmark --report`.
        s["median_ms"] = statistics.median(round_medians)
        s["median_of"] = "median of the per-round medians (the CLI report holds no per-iteration latencies)"
    else:
        s["median_ms"] = statistics.median([x for b in ok for x in b["latencies_ms"]])
        s["median_of"] = "median over all timed iterations of all rounds"
        s["median_of_round_medians_ms"] = statistics.median(round_medians)
    s["round_medians_ms"] = round_medians
    s["load_ms"] = statistics.median([b["load_ms"] for b in ok])
    s["compile_ms"] = statistics.median([b["compile_ms"] for b in ok])
    s["peak_rss_mb"] = max(b["peak_rss_mb"] for b in ok)
    s["iterations"] = sum(b["iterations"] for b in ok)
    return s


def fmt(v, spec="%.2f"):
    return "-" if v is None else spec % v


def ratio(a, b):
    return a / b if a is not None and b else None


class Column:
    """What one column of the results measures: ONNX Runtime, OpenVINO, or Mosaic on one device string."""

    def __init__(self, runtime, device=None):
        self.runtime, self.device = runtime, device  # device: a MosaicDevice, for Mosaic only
        self.key = "mosaic:" + device.device if device else runtime  # its key in the JSON results
        self.name = device.device if device else LABELS[runtime]  # table headers and ratio names
        self.title = "Mosaic " + self.name if device else self.name
        self.available = device.available if device else True


def make_columns(runtimes, devices):
    """The columns in block order: Mosaic on each device, then ORT, then OV."""
    mosaic = [Column("mosaic", d) for d in devices] if "mosaic" in runtimes else []
    return mosaic + [Column(r) for r in runtimes if r != "mosaic"]


def ratio_pairs(columns):
    """(numerator, denominator) of each latency ratio reported: every other Mosaic device against
    the reference device (CPU when listed, else the first), then every Mosaic device against ORT
    and OV."""
    mosaic = [c for c in columns if c.device]
    others = [c for c in columns if not c.device]
    reference = next((c for c in mosaic if c.name == "CPU"), mosaic[0] if mosaic else None)
    return [(c, reference) for c in mosaic if c is not reference] + [(c, o) for c in mosaic for o in others]


def ratio_name(pair):
    return "%s/%s" % (pair[0].name, pair[1].name)


def print_aligned(header, rows):
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    line = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    say(line(header))
    say(line(["-" * w for w in widths]))
    for r in rows:
        say(line(r))


def print_tables(results, columns, pairs):
    """Latency and its ratios, then load time and memory: one table would be too wide to read with
    several Mosaic devices."""
    lead = lambda res: [res["model"], str(res["threads"])]
    print_aligned(["model", "thr"] + ["%s ms" % c.name for c in columns] + [ratio_name(p) for p in pairs],
                  [lead(res) + [fmt(res["runtimes"][c.key].get("median_ms")) for c in columns]
                   + [fmt(res["ratios"][ratio_name(p)], "%.2fx") for p in pairs] for res in results])
    mosaic_names = ", ".join(c.name for c in columns if c.device)
    say("ms: median batch-1 latency%s. A/B: A's latency / B's (below 1: A faster)."
        % (" (%s: Mosaic on that device)" % mosaic_names if mosaic_names else ""))
    say("")
    print_aligned(["model", "thr"] + ["load %s" % c.name for c in columns] + ["RSS %s" % c.name for c in columns],
                  [lead(res) + [fmt(res["runtimes"][c.key].get("load_ms"), "%.0f") for c in columns]
                   + [fmt(res["runtimes"][c.key].get("peak_rss_mb"), "%.0f") for c in columns] for res in results])
    say("load: read + compile, ms (ORT: session creation), median over rounds. RSS: peak resident MB of the "
        "block's process, max over rounds.")


def write_chart(results, path, pairs):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "chart skipped: matplotlib is not importable by %s (%s -m pip install matplotlib to get one)" % (sys.executable, sys.executable)
    labels = ["%s\n%dT" % (r["model"], r["threads"]) for r in results]
    names = [ratio_name(p) for p in pairs]
    values = {name: [r["ratios"][name] for r in results] for name in names}
    present = [v for vs in values.values() for v in vs if v]
    if not present:
        return "chart skipped: no ratio to draw (Mosaic or everything it is compared with did not run)"
    fig, ax = plt.subplots(figsize=(max(6, (0.4 + 0.25 * len(names)) * len(results) + 2), 4.5))
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        xs = [j + (i - (len(names) - 1) / 2) * width for j in range(len(results))]
        bars = ax.bar(xs, [v or 0 for v in values[name]], width, label="%s / %s" % (pairs[i][0].title, pairs[i][1].title))
        for bar, v in zip(bars, values[name]):
            if v:
                ax.annotate("%.2f" % v, (bar.get_x() + bar.get_width() / 2, v), ha="center", va="bottom", fontsize=7)
    ax.axhline(1.0, color="black", linewidth=0.8)
    if max(present) / min(present) > 20 or max(present) > 20:
        ax.set_yscale("log")
    ax.set_xticks(range(len(results)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("latency ratio")
    ax.set_title("Batch-1 latency ratios A / B (below 1: A faster)", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None


# ------------------------------------------------------------------------------------------------

def mosaic_devices(args):
    """(a MosaicDevice per --devices entry, Mosaic's version, notes for the report)."""
    if "mosaic" not in args.runtimes:
        return [], None, []
    registry, problems, version, error = mosaic_registry(args)
    if error:
        devices = [MosaicDevice(d, False, "Mosaic cannot run, its blocks are skipped: %s." % error) for d in args.devices]
    else:
        devices = [describe_device(d, registry, args.build) for d in args.devices]
    notes = list(dict.fromkeys(d.note for d in devices if d.note))  # one each, in --devices order
    if problems:
        notes.append("registry problems: " + problems)
    if devices and not error and not any(d.available for d in devices):
        notes.append("No Mosaic device could run; try --device REFERENCE to exercise the harness.")
    return devices, version, notes


def file_stem(text):
    """A column key as part of a file name: "mosaic:HETERO:GPU,CPU" -> "mosaic_HETERO_GPU_CPU"."""
    return re.sub(r"[^\w.-]+", "_", text)


def measure(args, columns, model, inputs, inputs_dir, threads, logs):
    """Every block of one model and thread count, round by round: {column key: [block, ...]}."""
    model_path = os.path.join(args.models_dir, model, "model.onnx")
    blocks = {c.key: [] for c in columns}
    failed = set()
    width = max(len(c.title) for c in columns)
    for rnd in range(args.rounds):
        for c in columns:
            if not c.available or c.key in failed:
                continue  # a block that failed once fails again; do not spend the time
            stem = os.path.join(logs, "%s_t%d_r%d_%s" % (model, threads, rnd, file_stem(c.key)))
            load = loadavg()[0]
            if c.device:
                block = run_mosaic_block(args, c.device, model_path, inputs, threads, stem)
            else:
                block = run_worker_block(args, c.runtime, model_path, inputs_dir, threads, stem)
            block.update({"round": rnd, "loadavg_1m_before": load})
            blocks[c.key].append(block)
            head = "  %-14s T=%d round %d %-*s" % (model, threads, rnd, width, c.title)
            if "error" in block:
                failed.add(c.key)
                say("%s FAILED (exit %d): %s" % (head, block["rc"], block["error"].replace("\n", " | ")))
            else:
                say("%s median %9.2f ms  load %8.0f ms  peak RSS %6.0f MB%s" % (
                    head, block["median_ms"], block["load_ms"], block["peak_rss_mb"],
                    "  split: " + block["split"] if block.get("split") else ""))
    return blocks


def summarize_columns(columns, blocks, pairs):
    """({column key: summary}, {ratio name: value}) of one model and thread count."""
    summary = {}
    for c in columns:
        if c.available:
            summary[c.key] = summarize(c.runtime, blocks[c.key])
        else:
            summary[c.key] = {"ok": False, "error": "device %s not available" % c.name}
    ratios = {ratio_name(p): ratio(summary[p[0].key].get("median_ms"), summary[p[1].key].get("median_ms")) for p in pairs}
    return summary, ratios


def main(argv):
    args = parse_args(argv)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    results_dir = os.path.join(args.out, "results")
    logs = os.path.join(args.out, "logs", stamp)
    os.makedirs(results_dir, exist_ok=True)
    os.makedirs(logs, exist_ok=True)

    machine = machine_info()
    machine["loadavg_before"] = loadavg()
    say("Machine: %s, %s CPUs (%s cores/socket x %s sockets, %s threads/core), load average %s"
        % (machine.get("cpu_model"), machine.get("cpus"), machine.get("cores_per_socket"), machine.get("sockets"),
           machine.get("threads_per_core"), " ".join(map(str, machine["loadavg_before"]))))
    if max(args.threads) > (machine.get("affinity_cpus") or os.cpu_count() or 1):
        say("Note: %d threads asked for, but this process may use only %s CPUs" % (max(args.threads), machine.get("affinity_cpus")))

    devices, mosaic_version, notes = mosaic_devices(args)
    for note in notes:
        say("")
        say("*** " + note)
    if notes:
        say("")
    columns = make_columns(args.runtimes, devices)
    pairs = ratio_pairs(columns)
    runtimes_up = sorted({c.runtime for c in columns if c.available}, key=RUNTIMES.index)
    base = {r: baseline(args, r, logs) for r in runtimes_up}
    baselines = {r: v[0] for r, v in base.items()}
    software = {
        "python": sys.version.split()[0], "python_executable": sys.executable,
        "onnxruntime": base.get("ort", (None, None))[1], "openvino": base.get("ov", (None, None))[1],
        "mosaic": mosaic_version, "mosaic_build": args.build,
        "mosaic_devices": [{"device": d.device, "available": d.available, "note": d.note, "full_names": d.full_names()}
                           for d in devices],
        "repo_revision": git_revision(),
    }
    say("Runtimes: Mosaic %s (%s), ONNX Runtime %s, OpenVINO %s"
        % (mosaic_version or "-", args.build, software["onnxruntime"] or "-", software["openvino"] or "-"))
    for d in devices:
        say("  Mosaic device %s: %s" % (d.device, "; ".join("%s = %s" % kv for kv in d.full_names().items())
                                        if d.available else "NOT AVAILABLE"))

    ensure_models(args)
    python_cache = []

    def python_for_onnx():
        if not python_cache:
            python_cache.append(onnx_python())
        return python_cache[0]

    say("Baseline peak RSS of a process that only starts the runtime (Mosaic: 'mosaic devices'), MB: %s"
        % ", ".join("%s %s" % (LABELS[r], fmt(v, "%.0f")) for r, v in baselines.items()))
    say("Settings: batch 1, %d round(s) x %d timed iterations, %d warm-up (Mosaic: 1), sync, one request; logs in %s"
        % (args.rounds, args.iterations, args.warmup, logs))
    say("")

    results = []
    for model in args.models:
        inputs_dir, inputs = prepare_inputs(args, model, os.path.join(args.out, "inputs"), python_for_onnx)
        for threads in args.threads:
            blocks = measure(args, columns, model, inputs, inputs_dir, threads, logs)
            summary, ratios = summarize_columns(columns, blocks, pairs)
            results.append({"model": model, "threads": threads, "inputs": inputs, "runtimes": summary, "ratios": ratios})

    machine["loadavg_after"] = loadavg()
    say("")
    print_tables(results, columns, pairs)
    if any(c.device and c.available for c in columns):
        say("Mosaic's latency is the median of its per-round medians (its --report has no per-iteration figures); "
            "ORT's and OV's the median over all their iterations.")
    say("Load average before %s, after %s (%s CPUs)." % (" ".join(map(str, machine["loadavg_before"])),
                                                      " ".join(map(str, machine["loadavg_after"])), machine.get("cpus")))
    for note in notes:
        say("Note: " + note)

    json_path = os.path.join(results_dir, stamp + ".json")
    png_path = os.path.join(results_dir, stamp + ".png")
    chart_note = write_chart(results, png_path, pairs) if pairs else "chart skipped: Mosaic did not run, so there are no ratios"
    if chart_note:
        notes.append(chart_note)
        say(chart_note)
    doc = {
        "timestamp": stamp,
        "command": " ".join(shlex.quote(a) for a in [os.path.join(HERE, "run.sh")] + list(argv)),
        "settings": {"models": args.models, "threads": args.threads, "devices": args.devices, "iterations": args.iterations,
                     "warmup": args.warmup, "mosaic_warmup": 1, "rounds": args.rounds, "batch": 1,
                     "runtimes": args.runtimes, "models_dir": args.models_dir, "timeout_s": args.timeout},
        "columns": {c.key: {"runtime": c.runtime, "name": c.name, "available": c.available} for c in columns},
        "machine": machine,
        "software": software,
        "baseline_peak_rss_mb": baselines,
        "results": results,
        "notes": notes,
        "logs": logs,
        "chart": None if chart_note else png_path,
    }
    with open(json_path, "w") as f:
        json.dump(doc, f, indent=2)
    say("Results: %s" % json_path)
    if not chart_note:
        say("Chart:   %s" % png_path)
    failed_any = any(not r["runtimes"][c.key].get("ok") for r in results for c in columns if c.available)
    return 1 if failed_any else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
