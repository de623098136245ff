"""The installed package stands alone: its registry and plugins are inside it."""
import os
import pathlib

import mosaic as ov


def test_core_uses_the_registry_installed_with_the_package():
    assert "MOSAIC_PLUGINS" not in os.environ
    package = pathlib.Path(ov.__file__).resolve().parent
    registry = pathlib.Path(ov.Core().registry_path).resolve()
    assert registry == package / "lib" / "mosaic" / "plugins.json"
    assert (package / "lib" / "libmosaic.so").is_file()


def test_package_is_not_imported_from_the_source_tree():
    sources = pathlib.Path(__file__).resolve().parents[2] / "python"
    assert sources not in pathlib.Path(ov.__file__).resolve().parents
    assert pathlib.Path(ov.__file__).resolve().parent.parent.name == "site-packages"


def test_every_registered_device_loads(core):
    assert {"REFERENCE", "CPU", "GPU", "HETERO"} <= set(core.available_devices)
    assert core.get_available_devices() == core.available_devices


def test_device_and_hint_modules_are_the_properties_modules():
    import mosaic.device as device
    import mosaic.hint as hints

    assert device is ov.properties.device and hints is ov.properties.hint
    assert ov.device is device and ov.hint is hints
