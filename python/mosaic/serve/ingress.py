"""The HTTP front of the server: the KServe v2 REST API as a FastAPI app behind Ray Serve's proxy,
and beside it under /v1 the OpenAI API of the served LLMs (openai_ingress.py).

It decodes and checks each request against the model's metadata (asked once from the model's
deployment), sends the arrays to the model's replicas through a deployment handle and encodes the
outputs. It holds no model, so a model replica that dies leaves it answering: requests that were on
that replica get 503 (retryable) while Ray starts a new one. A request that finds its model's queue
full (max_queued_requests) gets 503 too, at once, and is counted in the model's statistics
(backpressure.py).
"""
import asyncio
import gzip
import zlib
from collections import Counter
from importlib.metadata import PackageNotFoundError, version
from typing import Dict, Optional

import ray.exceptions
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from ray import serve
from ray.serve import exceptions as serve_exceptions
from ray.serve.handle import DeploymentHandle
from starlette.exceptions import HTTPException

from mosaic.serve.backpressure import RETRY_AFTER_S, QueueFull, refused_by_ray
from mosaic.serve.openai_ingress import OpenAIFront
from mosaic.serve.openai_ingress import error_response as openai_error
from mosaic.serve.openai_protocol import OpenAIError
from mosaic.serve.protocol import (HEADER_LENGTH, ProtocolError, TensorSpec, decode_inputs, encode_response,
                                   requested_outputs, split_body)

# A replica that died or is restarting, or no replica taking requests now: the client may retry.
RETRYABLE = (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError,
             serve_exceptions.BackPressureError, serve_exceptions.DeploymentUnavailableError,
             serve_exceptions.ReplicaUnavailableError)
READY_TIMEOUT_S = 5.0

app = FastAPI(title="Mosaic: KServe v2 inference protocol")


# Module-level helpers the ingress calls stand before the class: serve.ingress rebuilds the class and
# Ray pickles it by value, capturing only the globals defined by then.
def error(status: int, message: str, retry_after: Optional[int] = None) -> JSONResponse:
    headers = {"Retry-After": str(retry_after)} if retry_after else None
    return JSONResponse({"error": message}, status_code=status, headers=headers)


@app.exception_handler(HTTPException)
async def _http_error(request: Request, exc: HTTPException):  # unknown paths and methods, in the protocol's shape
    path, root = request.scope.get("path", ""), request.scope.get("root_path", "")
    if root and path.startswith(root):  # the application deployed under a route prefix
        path = path[len(root):]
    if path.startswith("/v1"):
        return openai_error(OpenAIError(exc.status_code, f"{exc.detail}: the OpenAI API serves GET /v1/models, "
                                                         "POST /v1/completions and POST /v1/chat/completions"))
    return error(exc.status_code, f"{exc.detail}: the KServe v2 API is under /v2 (see GET /v2)")


@app.exception_handler(RequestValidationError)
async def _validation_error(_, exc: RequestValidationError):
    return error(400, str(exc))


def _server_version() -> str:
    try:
        return version("mosaic")
    except PackageNotFoundError:
        return "unknown"


async def answer(work):
    """Runs a request's work (a coroutine), turning its failures into the protocol's errors."""
    try:
        return await work
    except ProtocolError as e:
        return error(e.status, str(e))
    except QueueFull as e:
        return error(503, str(e), retry_after=RETRY_AFTER_S)
    except RETRYABLE as e:
        return error(503, f"the model replica was lost or is not available yet ({type(e).__name__}); "
                          "retry the request", retry_after=RETRY_AFTER_S)
    except ValueError as e:  # Mosaic's own check of a tensor's shape or type
        return error(400, str(e))
    except Exception as e:  # noqa: BLE001 - a server error is an answer too, never a dropped request
        if isinstance(e.__cause__, RETRYABLE):  # Ray Serve wraps a replica's death in RayServeException
            return error(503, f"the model replica was lost ({type(e.__cause__).__name__}); retry the request",
                         retry_after=RETRY_AFTER_S)
        return error(500, f"{type(e).__name__}: {e}")


def _decompress(body: bytes, encoding: Optional[str]) -> bytes:
    """tritonclient compresses requests with gzip or deflate when asked to (request_compression_algorithm)."""
    try:
        if encoding == "gzip":
            return gzip.decompress(body)
        if encoding == "deflate":
            return zlib.decompress(body)
    except (OSError, zlib.error) as e:
        raise ProtocolError(f"the body is not valid {encoding} data: {e}") from None
    if encoding not in (None, "", "identity"):
        raise ProtocolError(f"Content-Encoding '{encoding}' is not supported; use gzip, deflate or none", 415)
    return body


@serve.deployment(name="kserve-ingress", ray_actor_options={"num_cpus": 0}, max_ongoing_requests=256)
@serve.ingress(app)
class KServeIngress:
    def __init__(self, models: Dict[str, DeploymentHandle], llms: Optional[Dict[str, DeploymentHandle]] = None):
        self.handles = models
        self._metadata: Dict[str, dict] = {}
        # Requests this ingress refused because their model's queue was full, by model (either API).
        self.queue_full: Counter = Counter()
        self.openai = OpenAIFront(llms or {}, RETRYABLE, self.queue_full)

    def _handle(self, name: str) -> DeploymentHandle:
        if name not in self.handles:
            raise ProtocolError(f"unknown model '{name}'; served models: {sorted(self.handles)}", 404)
        return self.handles[name]

    async def _model(self, name: str, model_version: Optional[str]) -> dict:
        handle = self._handle(name)
        if model_version not in (None, "", "1"):
            raise ProtocolError(f"model '{name}' has no version '{model_version}'; its only version is 1", 404)
        if name not in self._metadata:  # fixed for a deployment's life; a redeploy restarts the ingress too
            self._metadata[name] = await handle.metadata.remote()
        return self._metadata[name]

    @app.get("/v2")
    async def server_metadata(self):
        return {"name": "mosaic", "version": _server_version(), "extensions": ["binary_tensor_data", "statistics"]}

    @app.get("/v2/health/live")
    async def live(self):
        return {"live": True}

    @app.get("/v2/health/ready")
    async def server_ready(self):
        not_ready = [name for name in self.handles if not await self._is_ready(name)]
        if not_ready:
            return error(400, f"model(s) {not_ready} not ready")
        return {"ready": True}

    async def _is_ready(self, name: str) -> bool:
        try:
            return await asyncio.wait_for(self._ready_call(name), READY_TIMEOUT_S)
        except Exception:  # noqa: BLE001 - any failure to answer is "not ready"
            return False

    async def _ready_call(self, name: str) -> bool:
        return await self.handles[name].ready.remote()

    def _with_refusals(self, stats: dict) -> dict:
        """A replica's statistics, with the requests this ingress refused for that model's full queue:
        those never reached a replica, so no replica counts them."""
        for model in stats["model_stats"]:
            model["queue_full"] = self.queue_full[model["name"]]
        return stats

    def refusals(self) -> Dict[str, int]:
        """Requests this ingress replica refused because their model's queue was full, by model, the
        LLMs' included (a deployment-handle call: serve.get_deployment_handle("kserve-ingress", app))."""
        return dict(self.queue_full)

    @app.get("/v2/models/stats")
    async def all_stats(self):
        async def gather():
            stats = [await self._handle(name).stats.remote() for name in sorted(self.handles)]
            return self._with_refusals({"model_stats": [m for s in stats for m in s["model_stats"]]})
        return await answer(gather())

    @app.get("/v2/models/{name}")
    @app.get("/v2/models/{name}/versions/{model_version}")
    async def model_metadata(self, name: str, model_version: Optional[str] = None):
        async def metadata():
            meta = await self._model(name, model_version)
            return {k: meta[k] for k in ("name", "versions", "platform", "inputs", "outputs")}
        return await answer(metadata())

    @app.get("/v2/models/{name}/ready")
    @app.get("/v2/models/{name}/versions/{model_version}/ready")
    async def model_ready(self, name: str, model_version: Optional[str] = None):
        async def ready():
            await self._model(name, model_version)
            if not await self._is_ready(name):
                return error(400, f"model '{name}' is not ready")
            return {"name": name, "ready": True}
        return await answer(ready())

    @app.get("/v2/models/{name}/stats")
    @app.get("/v2/models/{name}/versions/{model_version}/stats")
    async def model_stats(self, name: str, model_version: Optional[str] = None):
        async def stats():
            await self._model(name, model_version)
            return self._with_refusals(await self._handle(name).stats.remote())
        return await answer(stats())

    @app.post("/v2/models/{name}/infer")
    @app.post("/v2/models/{name}/versions/{model_version}/infer")
    async def infer(self, name: str, request: Request, model_version: Optional[str] = None):
        return await answer(self._infer(name, model_version, request))

    async def _infer(self, name: str, model_version: Optional[str], request: Request) -> Response:
        meta = await self._model(name, model_version)
        body = _decompress(await request.body(), request.headers.get("content-encoding"))
        payload, tail = split_body(body, request.headers.get(HEADER_LENGTH))
        inputs = decode_inputs(payload, tail, [TensorSpec(**s) for s in meta["inputs"]],
                               meta["max_batch_size"] or None)
        outputs = requested_outputs(payload, [TensorSpec(**s) for s in meta["outputs"]])
        try:
            arrays = await self.handles[name].infer.remote(inputs)
        except serve_exceptions.BackPressureError as e:
            raise refused_by_ray(name, e, self.queue_full) from None
        content, header_length = encode_response(name, payload, outputs, arrays)
        if header_length is None:
            return Response(content, media_type="application/json")
        return Response(content, media_type="application/octet-stream",
                        headers={HEADER_LENGTH: str(header_length)})

    # The OpenAI API of the LLMs (task: llm), openai_ingress.py.
    @app.get("/v1/models")
    async def openai_models(self):
        return await self.openai.models()

    @app.get("/v1/models/{name}")
    async def openai_model(self, name: str):
        return await self.openai.model(name)

    @app.post("/v1/completions")
    async def openai_completions(self, request: Request):
        return await self.openai.completions(request)

    @app.post("/v1/chat/completions")
    async def openai_chat_completions(self, request: Request):
        return await self.openai.chat_completions(request)
