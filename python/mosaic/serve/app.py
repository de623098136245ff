"""The Ray Serve application: one deployment per model behind the ingress, which speaks KServe v2
for the models and the OpenAI API for the LLMs (task: llm).

    serve run mosaic.serve.app:app_builder config=serving.yaml     # Ray's own CLI
    serve deploy serve_config.yaml                                  # import_path: mosaic.serve.app:app_builder
"""
from ray.serve import Application

from mosaic.serve.config import ServeConfig, load_config
from mosaic.serve.ingress import KServeIngress
from mosaic.serve.llm_deployment import llm_deployment
from mosaic.serve.model_deployment import model_deployment


def build_app(config: ServeConfig) -> Application:
    models = {m.name: model_deployment(m).bind(m.to_dict()) for m in config.kserve_models}
    llms = {m.name: llm_deployment(m).bind(m.to_dict()) for m in config.llms}
    ingress = KServeIngress.options(num_replicas=config.ingress_num_replicas,
                                    ray_actor_options=config.ingress_ray_actor_options)
    return ingress.bind(models, llms)


def app_builder(args: dict) -> Application:
    """Ray Serve's application-builder hook: args come from `serve run ... config=PATH` or a Serve
    config file's `args: {config: PATH}`."""
    if "config" not in args:
        raise ValueError("mosaic.serve.app:app_builder needs the argument config=PATH (a mosaic-serve "
                         "YAML or JSON file)")
    return build_app(load_config(args["config"]))
