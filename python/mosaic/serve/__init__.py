"""Mosaic behind Ray Serve, speaking the KServe v2 / Open Inference Protocol over HTTP.

    mosaic-serve serving.yaml            # or: python -m mosaic.serve serving.yaml

Needs the serving extra (pip install mosaic[serve]): Ray is never imported by `import mosaic`.
config.py and protocol.py need neither Ray nor a server; app.py, ingress.py and model_deployment.py
import Ray.
"""
from mosaic.serve.config import ConfigError, ModelConfig, ServeConfig, load_config, parse_config

__all__ = ["ConfigError", "ModelConfig", "ServeConfig", "load_config", "parse_config"]
