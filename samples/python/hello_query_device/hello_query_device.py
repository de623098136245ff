#!/usr/bin/env python3
"""hello_query_device, as OpenVINO's Python sample: every available device and the properties it
declares, mutable or not, with their values.

    python3 hello_query_device.py
"""
import logging as log
import sys

import mosaic as ov


def param_to_string(value):
    if isinstance(value, (list, tuple)):
        return ", ".join(str(x) for x in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, bool):
        return "YES" if value else "NO"
    return str(value)


def main():
    log.basicConfig(format="[ %(levelname)s ] %(message)s", level=log.INFO, stream=sys.stdout)
    core = ov.Core()
    log.info("Available devices:")
    for device in core.available_devices:
        log.info(f"{device} :")
        log.info("\tSUPPORTED_PROPERTIES:")
        for prop in core.get_property(device, "SUPPORTED_PROPERTIES"):
            name = prop["name"] if isinstance(prop, dict) else str(prop)
            mutable = isinstance(prop, dict) and prop.get("mutable", False)
            if name == "SUPPORTED_PROPERTIES":
                continue
            try:
                value = param_to_string(core.get_property(device, name))
            except (RuntimeError, TypeError, ValueError) as e:
                value = f"UNSUPPORTED TYPE ({e})"
            log.info(f"\t\t{'Mutable' if mutable else 'Immutable'}: {name}: {value}")
        log.info("")
    return 0


if __name__ == "__main__":
    sys.exit(main())
