"""Mosaic behind Ray Serve, speaking the KServe v2 / Open Inference Protocol over HTTP, and the
OpenAI API for LLMs (task: llm in the configuration).

    mosaic-serve serving.yaml            # or: python -m mosaic.serve serving.yaml

Needs the serving extra (pip install mosaic[serve]): Ray is never imported by `import mosaic`.
config.py, protocol.py and openai_protocol.py need neither Ray nor a server; app.py, ingress.py,
openai_ingress.py, model_deployment.py and llm_deployment.py import Ray.
"""
from mosaic.serve.config import ConfigError, ModelConfig, ServeConfig, load_config, parse_config

__all__ = ["ConfigError", "ModelConfig", "ServeConfig", "load_config", "parse_config"]
