"""mosaic-serve CONFIG: deploys the configured models on Ray Serve and stays in the foreground, as
`serve run` does; Ctrl-C (or SIGTERM) takes the application down.

Without ray.address (or --address) it starts a local Ray instance; with "auto" or host:port it joins
that cluster (started by `ray start --head` / `ray start --address=HEAD:6379`), and the replicas go
wherever the cluster has room.
"""
import argparse
import signal
import sys
import time

from mosaic.serve.config import ConfigError, load_config


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mosaic-serve", description="Serve Mosaic models over the KServe v2 "
                                "REST protocol, and LLMs over the OpenAI API, with Ray Serve (a foreground "
                                "server, like `serve run`).")
    p.add_argument("config", help="the serving configuration, .yaml/.yml or .json (docs/serving.md)")
    p.add_argument("--host", help="HTTP host (overrides http.host; default 127.0.0.1)")
    p.add_argument("--port", type=int, help="HTTP port (overrides http.port; default 8000)")
    p.add_argument("--address", help="Ray cluster to join: 'auto' or HEAD:6379 (overrides ray.address; "
                   "default: start a local Ray instance)")
    return p


def _deployment_failures(serve, app_name):
    """Each failed deployment's reason: the last line of its replica's traceback (serve.run's own
    error only says that a deployment failed)."""
    try:
        deployments = serve.status().applications[app_name].deployments
    except (KeyError, RuntimeError):
        return []
    reasons = []
    for name, status in deployments.items():
        if status.status in ("UNHEALTHY", "DEPLOY_FAILED") and status.message:
            lines = [line.strip() for line in status.message.splitlines() if line.strip()]
            reasons.append(f"{name}: {lines[-1] if lines else status.message}")
    return reasons


def _interrupt(*_):
    raise KeyboardInterrupt


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        config = load_config(args.config)
    except ConfigError as e:
        print(f"mosaic-serve: {e}", file=sys.stderr)
        return 2
    config.host = args.host or config.host
    config.port = args.port if args.port is not None else config.port
    address = args.address or config.ray_address
    try:
        import ray
        from ray import serve
    except ImportError as e:
        print(f"mosaic-serve needs Ray Serve ({e}): pip install 'mosaic[serve]'", file=sys.stderr)
        return 2
    from mosaic.serve.app import build_app

    if address:
        ray.init(address=address)
    else:
        ray.init(num_cpus=config.ray_num_cpus, include_dashboard=False)
    # SIGTERM (a service manager, `kill`) stops the server as Ctrl-C does; SIGINT is set again since a
    # shell starting us in the background (`mosaic-serve CONFIG &`) leaves it ignored.
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
    try:
        serve.start(http_options={"host": config.host, "port": config.port})
        serve.run(build_app(config), name=config.app_name, route_prefix="/")
        url = f"http://{config.host}:{config.port}"
        if config.kserve_models:
            print(f"mosaic-serve: {len(config.kserve_models)} model(s) {[m.name for m in config.kserve_models]} "
                  f"at {url}/v2", flush=True)
        if config.llms:
            print(f"mosaic-serve: {len(config.llms)} LLM(s) {[m.name for m in config.llms]} at {url}/v1 "
                  "(the OpenAI API)", flush=True)
        print("mosaic-serve: Ctrl-C stops", flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print("mosaic-serve: stopping", flush=True)
    except RuntimeError as e:  # serve.run: a deployment failed (model not found, wrong device, ...)
        print(f"mosaic-serve: the application did not start: {e}", file=sys.stderr)
        for reason in _deployment_failures(serve, config.app_name):
            print(f"mosaic-serve: {reason}", file=sys.stderr)
        return 1
    finally:
        if address:
            serve.delete(config.app_name)  # the cluster and its Serve instance stay up for others
        else:
            serve.shutdown()
        ray.shutdown()
    return 0
