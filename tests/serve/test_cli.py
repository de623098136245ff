"""mosaic-serve's command line: a configuration mistake is one message and exit status 2, before
any Ray instance starts."""
import subprocess
import sys


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
