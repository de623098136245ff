"""The OpenAI-compatible API of the served LLMs (GET /v1/models, POST /v1/completions,
POST /v1/chat/completions), answered by the ingress beside the KServe v2 API (ingress.py routes
/v1 here).

Each request is checked here (openai_protocol.py), then streamed from an LLM replica
(llm_deployment.py) through a deployment handle: server-sent events when the client asked for a
stream, else one body once the generation has ended. The replica's first event decides the status:
a request it refuses (a prompt too long, a template that refuses the messages) is an error answer,
never a stream that breaks; so is one refused because the model's queue is full (503 with
Retry-After, backpressure.py), whether Ray Serve refused it in the ingress or the replica did. When
the client goes away the replica's stream is cancelled, and with it the generation.
"""
import time
from collections import Counter
from typing import AsyncIterator, Dict

from fastapi import Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from ray.serve.exceptions import BackPressureError
from ray.serve.handle import DeploymentHandle

from mosaic.serve.backpressure import RETRY_AFTER_S, QueueFull, refused_by_ray
from mosaic.serve.openai_protocol import DONE, Answer, OpenAIError, chat_request, completion_request, event, parse_body


def error_response(e: OpenAIError) -> JSONResponse:
    headers = {"Retry-After": str(RETRY_AFTER_S)} if e.status == 503 else None
    return JSONResponse(e.to_json(), status_code=e.status, headers=headers)


class OpenAIFront:
    """The /v1 routes' work, for the LLM deployments' handles (by served model name)."""

    def __init__(self, llms: Dict[str, DeploymentHandle], retryable: tuple, queue_full: Counter):
        self.handles = llms
        self.retryable = retryable  # failures that mean "no replica now": 503, retry
        self.queue_full = queue_full  # the ingress's count of requests refused for a full queue, by model
        self.created = int(time.time())
        self._metadata: Dict[str, dict] = {}

    def _handle(self, name: str) -> DeploymentHandle:
        if name not in self.handles:
            served = sorted(self.handles) or "none: the configuration has no 'task: llm' model"
            raise OpenAIError(404, f"The model '{name}' does not exist; served models: {served}", "model",
                              "model_not_found")
        return self.handles[name]

    async def _model_card(self, name: str) -> dict:
        if name not in self._metadata:  # fixed for a deployment's life
            self._metadata[name] = await self._handle(name).metadata.remote()
        return {"id": name, "object": "model", "created": self.created, "owned_by": "mosaic",
                "max_model_len": self._metadata[name]["max_length"]}

    async def models(self) -> Response:
        return await self._answer(self._models())

    async def _models(self):
        return JSONResponse({"object": "list", "data": [await self._model_card(n) for n in sorted(self.handles)]})

    async def model(self, name: str) -> Response:
        return await self._answer(self._model_card_response(name))

    async def _model_card_response(self, name: str):
        return JSONResponse(await self._model_card(name))

    async def completions(self, request: Request) -> Response:
        return await self._answer(self._generate(request, completion_request))

    async def chat_completions(self, request: Request) -> Response:
        return await self._answer(self._generate(request, chat_request))

    async def _answer(self, work) -> Response:
        """Runs a request's work (a coroutine), turning its failures into the protocol's errors."""
        try:
            return await work
        except OpenAIError as e:
            return error_response(e)
        except QueueFull as e:
            return error_response(OpenAIError(503, str(e), code=QueueFull.code))
        except Exception as e:  # noqa: BLE001 - a server error is an answer too, never a dropped request
            if isinstance(e, self.retryable) or isinstance(e.__cause__, self.retryable):
                return error_response(OpenAIError(503, f"the LLM replica was lost or is not available yet "
                                                        f"({type(e).__name__}); retry the request", code="unavailable"))
            return error_response(OpenAIError(500, f"{type(e).__name__}: {e}"))

    async def _generate(self, http_request: Request, parse) -> Response:
        request = parse(parse_body(await http_request.body()))
        handle = self._handle(request.model)
        events = handle.options(stream=True).generate.remote(request.to_dict())
        try:
            first = await events.__anext__()
        except BaseException as e:
            events.cancel()
            if isinstance(e, BackPressureError):
                raise refused_by_ray(request.model, e, self.queue_full) from None
            raise
        if "error" in first:
            events.cancel()
            raise _error(first["error"])
        answer = Answer(request)
        if request.stream:
            return StreamingResponse(self._stream(answer, first, events), media_type="text/event-stream",
                                     headers={"Cache-Control": "no-cache"})
        return JSONResponse(await self._collect(answer, first, events))

    async def _collect(self, answer: Answer, first: dict, events) -> dict:
        text = []
        try:
            item = first
            while "finish_reason" not in item:
                if "error" in item:
                    raise _error(item["error"])
                text.append(item["text"])
                item = await events.__anext__()
        finally:
            events.cancel()  # no-op once the stream ended; else (the client left) the generation stops
        return answer.body("".join(text), item["finish_reason"], item["prompt_tokens"], item["completion_tokens"])

    async def _stream(self, answer: Answer, first: dict, events) -> AsyncIterator[str]:
        try:
            if answer.request.chat:
                yield answer.chunk("", first=True)  # OpenAI's first chunk: the role
            item = first
            while "finish_reason" not in item:
                if "error" in item:
                    yield event(_error(item["error"]).to_json())
                    yield DONE
                    return
                yield answer.chunk(item["text"])
                item = await events.__anext__()
            yield answer.chunk(None, item["finish_reason"])
            if answer.request.include_usage:
                yield answer.usage_chunk(item["prompt_tokens"], item["completion_tokens"])
            yield DONE
        except Exception as e:  # noqa: BLE001 - the status is sent: the error goes in the stream
            yield event(OpenAIError(500, f"the generation failed mid-stream: {type(e).__name__}: {e}").to_json())
            yield DONE
        finally:
            # A client that disconnected ends this generator early (cancelled, or closed): the
            # replica's stream is cancelled and its generation stops at the next token.
            events.cancel()


def _error(data: dict) -> OpenAIError:
    return OpenAIError(data["status"], data["message"], data.get("param"), data.get("code"))
