"""mosaic-serve's command line: one command serves a configuration file until SIGTERM; a
configuration mistake is one message and exit status 2, before any Ray instance starts.

These run before the session's server (test files go in name order), so the command's own local
Ray instance is the only one."""
import json
import queue
import signal
import subprocess
import sys
import threading
import time
import urllib.request

from conftest import free_port, need_serving_packages


def test_a_bad_configuration_stops_mosaic_serve_with_the_reason(tmp_path):
    config = tmp_path / "serving.yaml"
    config.write_text("models: [{name: cnn, path: cnn.xml, replicas: 2}]\n")
    done = subprocess.run([sys.executable, "-m", "mosaic.serve", str(config)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert "unknown key(s) ['replicas']" in done.stderr and "num_replicas" in done.stderr


def test_mosaic_serve_help_names_the_configuration():
    done = subprocess.run([sys.executable, "-m", "mosaic.serve", "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "config" in done.stdout and "--address" in done.stdout


def test_mosaic_serve_serves_the_configuration_until_sigterm(tmp_path, model_path):
    need_serving_packages()
    port = free_port()
    config = tmp_path / "serving.json"
    config.write_text(json.dumps({"http": {"port": port}, "ray": {"num_cpus": 2},
                                  "models": [{"name": "cnn", "path": str(model_path), "device": "CPU",
                                              "ray_actor_options": {"num_cpus": 0.5}}]}))
    server = subprocess.Popen([sys.executable, "-m", "mosaic.serve", str(config)], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in server.stdout], daemon=True).start()
    try:
        deadline, seen = time.time() + 120, []
        while not any("Ctrl-C stops" in line for line in seen):
            assert time.time() < deadline and server.poll() is None, "".join(seen[-20:])
            try:
                seen.append(lines.get(timeout=1))
            except queue.Empty:
                pass
        assert f"at http://127.0.0.1:{port}/v2" in "".join(seen)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/models/cnn") as r:
            assert json.load(r)["inputs"] == [{"name": "data", "datatype": "FP32", "shape": [1, 3, 32, 32]}]
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
