"""One served LLM: a Ray Serve deployment whose replicas each hold a
mosaic.genai.ContinuousBatchingPipeline, streaming each request's text back as it comes (the OpenAI
protocol is the ingress's business, openai_ingress.py).

Continuous batching: a request is added to the pipeline as it arrives, and one stepping thread per
replica runs the pipeline's steps while any request is unfinished; each step decodes every running
request together (up to max_num_seqs; the others wait for a row) and wakes the requests' coroutines,
which read what their handles got. A caller that goes away (a client that disconnected, a cancelled
request) drops its handle, and its row goes to the next request at the next step. With
max_queued_requests, at most that many requests wait for a row: the next is refused before it is
added to the pipeline (backpressure.py).
"""
import asyncio
import collections
import json
import pathlib
import random
import threading
from typing import Optional

from ray import serve

import mosaic
import mosaic.genai
from mosaic.serve.backpressure import FOR_A_ROW, QueueFull
from mosaic.serve.config import ModelConfig, default_device, replica_device
from mosaic.serve.model_deployment import deployment_options

# config.json keys that hold a model's longest sequence (those the pipeline reads, decoder_model.cpp).
LENGTH_KEYS = ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length")


def model_max_length(folder: pathlib.Path) -> Optional[int]:
    try:
        config = json.loads((folder / "config.json").read_text())
    except (OSError, json.JSONDecodeError):
        return None
    for key in LENGTH_KEYS:
        if isinstance(config.get(key), int) and config[key] > 0:
            return config[key]
    return None


class MosaicLLM:
    def __init__(self, config: dict):
        self.config = ModelConfig.from_dict(config)
        context = serve.get_replica_context()
        rank = getattr(context.rank, "rank", context.rank)
        core = mosaic.Core()
        devices = core.available_devices
        device = self.config.device or default_device(devices)
        gpu_ids = []
        if self.config.per_replica_gpu and "GPU" in devices:
            gpu_ids = [str(i) for i in core.get_property("GPU", "AVAILABLE_DEVICES")]
        self.device = replica_device(device, rank, gpu_ids)
        folder = pathlib.Path(self.config.path)
        try:
            scheduler = mosaic.genai.SchedulerConfig()
            scheduler.max_num_seqs = self.config.max_num_seqs
            self.pipe = mosaic.genai.ContinuousBatchingPipeline(folder, scheduler, self.device, **self.config.properties)
            self.tokenizer = self.pipe.get_tokenizer()
        except Exception as e:
            raise RuntimeError(f"LLM '{self.config.name}': cannot load '{folder}' on {self.device}: {e}") from None
        template = folder / "chat_template.jinja"  # where transformers 4.43+ saves it
        self.chat_template = template.read_text() if template.is_file() else self.tokenizer.chat_template
        limits = [n for n in (model_max_length(folder), self.config.max_length) if n]
        self.max_length = min(limits) if limits else None
        # requests: taken by this replica; running: in the pipeline, with a row or waiting for one;
        # started: given a row; cancelled: requests whose caller left before their generation ended;
        # queue_full: refused, max_queued_requests waiting already; batch_sizes: decode steps by the
        # requests each ran together.
        self._stats = {"requests": 0, "started": 0, "completed": 0, "cancelled": 0, "failed": 0, "running": 0,
                       "queue_full": 0, "prompt_tokens": 0, "completion_tokens": 0}
        self._batch_sizes = collections.Counter()
        self._next_id = 0
        self._waiters = set()  # (event loop, asyncio.Event) of the requests waiting for a step
        self._waiters_lock = threading.Lock()
        self._added = threading.Event()  # wakes the stepping thread
        self._step_error: Optional[Exception] = None  # the last step that failed
        self._stepper = threading.Thread(target=self._step_forever, name="mosaic-steps", daemon=True)
        self._stepper.start()

    def _step_forever(self):
        while True:
            if not self.pipe.has_non_finished_requests():
                self._added.wait()
                self._added.clear()
                continue
            try:
                self.pipe.step()
            except Exception as e:  # noqa: BLE001 - the requests it ended (IGNORED) answer with it
                self._step_error = e
            rows = self.pipe.last_step_rows()
            if rows:
                self._batch_sizes[rows] += 1
            with self._waiters_lock:
                waiters = list(self._waiters)
            for loop, event in waiters:
                loop.call_soon_threadsafe(event.set)

    def metadata(self) -> dict:
        return {"name": self.config.name, "device": self.device, "max_length": self.max_length,
                "chat": self.chat_template is not None}

    def stats(self) -> dict:
        return dict(self._stats, name=self.config.name, device=self.device, max_num_seqs=self.config.max_num_seqs,
                    max_queued_requests=self.config.max_queued_requests,
                    batch_sizes={str(k): v for k, v in sorted(self._batch_sizes.items())})

    def _queue_is_full(self) -> bool:
        """Whether max_queued_requests requests already wait for a row. The count is of requests in the
        pipeline, so with the check and add_request in one stretch of the event loop (no await
        between them) no two requests can both take the last place."""
        bound = self.config.max_queued_requests
        return bound != -1 and self._stats["running"] >= self.config.max_num_seqs + bound

    def _prompt_ids(self, request: dict) -> list:
        if request["chat"]:
            if self.chat_template is None:
                raise _Refused(400, f"model '{self.config.name}' has no chat template (chat_template.jinja or "
                                    "tokenizer_config.json's chat_template in its folder); use /v1/completions",
                               "messages", "model_not_chat")
            try:
                text = self.tokenizer.apply_chat_template(request["messages"], True, self.chat_template)
            except ValueError as e:  # the template's raise_exception (a role it does not take, ...)
                raise _Refused(400, f"the chat template refused the messages: {e}", "messages", "invalid_value")
            return self.tokenizer.encode(text, add_special_tokens=False)  # the template wrote them
        if request["prompt_ids"] is not None:
            bad = [t for t in request["prompt_ids"] if t >= self.tokenizer.vocab_size]
            if bad:
                raise _Refused(400, f"token id(s) {bad[:5]} are past the vocabulary ({self.tokenizer.vocab_size} ids)",
                               "prompt", "invalid_value")
            return list(request["prompt_ids"])
        return self.tokenizer.encode(request["prompt"])

    def _generation_config(self, request: dict, prompt_tokens: int):
        config = self.pipe.get_config()  # the folder's generation_config.json
        room = None if self.max_length is None else self.max_length - prompt_tokens
        config.max_new_tokens = min(n for n in (request["max_tokens"], room, 2**31) if n is not None)
        if request["temperature"] is not None:
            config.do_sample = request["temperature"] > 0
            if config.do_sample:
                config.temperature = request["temperature"]
        if request["top_p"] is not None:
            config.top_p = request["top_p"]
        if request["presence_penalty"] is not None:
            config.presence_penalty = request["presence_penalty"]
        if request["frequency_penalty"] is not None:
            config.frequency_penalty = request["frequency_penalty"]
        # Without a seed each request samples differently, as OpenAI's do.
        config.rng_seed = request["seed"] if request["seed"] is not None else random.getrandbits(63)
        config.stop_strings = set(request["stop"])
        return config

    def _finish_reason(self, config, tokens: list) -> str:
        stop_ids = set(config.stop_token_ids) | ({config.eos_token_id} if config.eos_token_id is not None else set())
        if tokens and not config.ignore_eos and tokens[-1] in stop_ids:
            return "stop"
        if config.stop_strings and any(s in self.tokenizer.decode(tokens) for s in config.stop_strings):
            return "stop"
        return "length" if len(tokens) >= config.max_new_tokens else "stop"

    async def generate(self, request: dict):
        """Yields {"text": piece} for each piece, then {"finish_reason", "prompt_tokens",
        "completion_tokens"}; or one {"error": {"status", "message", "param", "code"}} when the
        request cannot be generated (nothing else comes before it)."""
        self._stats["requests"] += 1
        if self._queue_is_full():  # before any work on it: a flood costs the replica little
            self._stats["queue_full"] += 1
            refused = QueueFull(self.config.name, self.config.max_queued_requests, FOR_A_ROW)
            yield {"error": {"status": 503, "message": str(refused), "param": None, "code": QueueFull.code}}
            return
        try:
            ids = self._prompt_ids(request)
            if self.max_length is not None and len(ids) >= self.max_length:
                raise _Refused(400, f"the prompt has {len(ids)} tokens; model '{self.config.name}' takes at most "
                                    f"{self.max_length} tokens with the completion, so at most {self.max_length - 1} "
                                    "in the prompt: shorten the prompt", "messages" if request["chat"] else "prompt",
                               "context_length_exceeded")
            config = self._generation_config(request, len(ids))
        except _Refused as e:
            self._stats["failed"] += 1
            yield {"error": e.to_dict()}
            return

        try:
            self._next_id += 1
            handle = self.pipe.add_request(self._next_id, ids, config)
        except ValueError as e:  # a config the pipeline refuses
            self._stats["failed"] += 1
            yield {"error": {"status": 400, "message": str(e), "param": None, "code": "invalid_value"}}
            return
        self._stats["running"] += 1
        waiter = (asyncio.get_running_loop(), asyncio.Event())
        with self._waiters_lock:
            self._waiters.add(waiter)
        self._added.set()
        tokens = []
        try:
            while True:
                # The status first: once it is not RUNNING, every token was published before it.
                status = handle.get_status()
                out = handle.read()
                if out.generated_ids and not tokens:
                    self._stats["started"] += 1  # the request had a row: its generation began
                tokens.extend(out.generated_ids)
                if out.text:
                    yield {"text": out.text}
                if status == mosaic.genai.GenerationStatus.IGNORED:  # a step failed and ended it
                    self._stats["failed"] += 1
                    yield {"error": {"status": 500, "message": f"generation failed: {self._step_error or 'a step of the batch failed'}", "param": None,
                                     "code": None}}
                    return
                if status != mosaic.genai.GenerationStatus.RUNNING:
                    break
                await waiter[1].wait()
                waiter[1].clear()
            self._stats["completed"] += 1
            yield {"finish_reason": self._finish_reason(config, tokens), "prompt_tokens": len(ids),
                   "completion_tokens": len(tokens)}
        finally:
            self._stats["running"] -= 1
            with self._waiters_lock:
                self._waiters.discard(waiter)
            # Still running: the caller went away (a disconnected client, a cancelled request);
            # the request leaves the batch at the next step.
            if handle.get_status() == mosaic.genai.GenerationStatus.RUNNING:
                handle.drop()
                self._stats["cancelled"] += 1
            if tokens:
                self._stats["prompt_tokens"] += len(ids)
                self._stats["completion_tokens"] += len(tokens)


class _Refused(Exception):
    """A request this model cannot take, answered in the protocol's shape by the ingress."""

    def __init__(self, status: int, message: str, param: Optional[str], code: Optional[str]):
        super().__init__(message)
        self.status, self.param, self.code = status, param, code

    def to_dict(self) -> dict:
        return {"status": self.status, "message": str(self), "param": self.param, "code": self.code}


def llm_deployment(config: ModelConfig):
    """The Ray Serve deployment for one LLM, with its replicas, autoscaling and resources."""
    options = deployment_options(config, f"llm-{config.name}", config.max_ongoing_requests)
    return serve.deployment(MosaicLLM).options(**options)
