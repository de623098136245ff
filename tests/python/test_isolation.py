"""A registry entry with "isolation": "process" works from the installed package: the wheel carries
mosaic-plugin-host where libmosaic looks for it (mosaic/bin, beside mosaic/lib)."""
import json
import pathlib

import numpy as np
import pytest

import mosaic as ov

PACKAGE = pathlib.Path(ov.__file__).resolve().parent


def registry_with(tmp_path, entry):
    path = tmp_path / "plugins.json"
    path.write_text(json.dumps({"version": 1, "plugins": [entry]}))
    return str(path)


def isolated_reference(tmp_path):
    library = PACKAGE / "lib" / "mosaic" / "plugins" / "libmosaic_reference_plugin.so"
    return registry_with(tmp_path, {"device": "ISOLATED", "library": str(library), "isolation": "process"})


def test_the_plugin_host_is_installed_beside_the_runtime():
    host = PACKAGE / "bin" / "mosaic-plugin-host"
    assert host.is_file()
    assert host.stat().st_mode & 0o111, "mosaic-plugin-host must be executable"


def test_an_isolated_plugin_gives_what_it_gives_in_process(tmp_path, model_path, image, reference):
    core = ov.Core(isolated_reference(tmp_path))
    compiled = core.compile_model(model_path, "ISOLATED")
    got = compiled.create_infer_request().infer({"data": image})["prob"]
    want = reference.create_infer_request().infer({"data": image})["prob"]
    np.testing.assert_array_equal(got, want)


def test_a_library_the_host_cannot_load_is_an_error_naming_the_entry(tmp_path, model_path):
    core = ov.Core(registry_with(tmp_path, {"device": "ISOLATED", "library": str(tmp_path / "missing.so"),
                                            "isolation": "process"}))
    with pytest.raises(RuntimeError, match="ISOLATED"):
        core.compile_model(model_path, "ISOLATED")
