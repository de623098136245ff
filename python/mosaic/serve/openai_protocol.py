"""The OpenAI API's completions and chat completions as plain data: the request bodies checked and
turned into one generation request, the answers and stream chunks built, the protocol's errors.
No Ray and no model here (openai_ingress.py serves them, llm_deployment.py generates).

Follows https://platform.openai.com/docs/api-reference/completions and .../chat, the shapes the
official `openai` client reads. One choice per request (n = 1); no logprobs, echo, suffix, tools.
"""
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

# What a completion may stop on at most, as OpenAI allows.
MAX_STOP_SEQUENCES = 4
# Completions without max_tokens generate 16 tokens (OpenAI's default for /v1/completions); a chat
# generates up to the model's length.
COMPLETIONS_DEFAULT_MAX_TOKENS = 16


class OpenAIError(Exception):
    """An answer in OpenAI's error shape: {"error": {"message", "type", "param", "code"}}."""

    def __init__(self, status: int, message: str, param: Optional[str] = None, code: Optional[str] = None,
                 kind: Optional[str] = None):
        super().__init__(message)
        self.status = status
        self.param = param
        self.code = code
        self.kind = kind or ("invalid_request_error" if status < 500 else "server_error")

    def to_json(self) -> dict:
        return {"error": {"message": str(self), "type": self.kind, "param": self.param, "code": self.code}}


@dataclass
class GenerationRequest:
    """One request, checked: what the LLM deployment needs to generate, and how to answer."""
    model: str
    chat: bool
    prompt: Optional[str] = None                  # completions: text
    prompt_ids: Optional[List[int]] = None        # completions: token ids
    messages: Optional[List[Dict[str, str]]] = None  # chat: [{"role", "content"}] with text content
    max_tokens: Optional[int] = None              # None: up to the model's maximum length
    temperature: Optional[float] = None           # None: the model folder's generation_config.json
    top_p: Optional[float] = None
    seed: Optional[int] = None
    stop: List[str] = field(default_factory=list)
    presence_penalty: Optional[float] = None
    frequency_penalty: Optional[float] = None
    stream: bool = False
    include_usage: bool = False

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def parse_body(body: bytes) -> dict:
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise OpenAIError(400, f"the request body is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise OpenAIError(400, f"the request body must be a JSON object, got {type(data).__name__}")
    return data


def _number(data: dict, name: str, low: float, high: float, low_open: bool = False) -> Optional[float]:
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise OpenAIError(400, f"'{name}' must be a number, got {value!r}", name, "invalid_type")
    if (value <= low if low_open else value < low) or value > high:
        interval = f"{'(' if low_open else '['}{low:g}, {high:g}]"
        raise OpenAIError(400, f"'{name}' must be in {interval}, got {value!r}", name, "invalid_value")
    return float(value)


def _integer(data: dict, name: str, low: Optional[int] = None) -> Optional[int]:
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise OpenAIError(400, f"'{name}' must be an integer, got {value!r}", name, "invalid_type")
    if low is not None and value < low:
        raise OpenAIError(400, f"'{name}' must be at least {low}, got {value}", name, "invalid_value")
    return value


def _stop(data: dict) -> List[str]:
    stop = data.get("stop")
    if stop is None:
        return []
    stops = [stop] if isinstance(stop, str) else stop
    if not isinstance(stops, list) or not all(isinstance(s, str) and s for s in stops):
        raise OpenAIError(400, f"'stop' must be a non-empty string or a list of them, got {stop!r}", "stop",
                          "invalid_type")
    if len(stops) > MAX_STOP_SEQUENCES:
        raise OpenAIError(400, f"'stop' holds {len(stops)} sequences; at most {MAX_STOP_SEQUENCES} are allowed",
                          "stop", "invalid_value")
    return stops


def _unsupported(data: dict, defaults: Dict[str, Any]):
    """Parameters whose other values this server does not implement: refused, never ignored."""
    for name, default in defaults.items():
        value = data.get(name)
        if value is not None and value != default:
            raise OpenAIError(400, f"'{name}' = {value!r} is not supported by this server (only {default!r}); "
                                   f"leave it out", name, "unsupported_value")


def _common(data: dict, chat: bool) -> GenerationRequest:
    model = data.get("model")
    if not isinstance(model, str) or not model:
        raise OpenAIError(400, "'model' is required: the name of a served model (GET /v1/models lists them)",
                          "model", "missing_required_parameter")
    stream = data.get("stream") or False
    if not isinstance(stream, bool):
        raise OpenAIError(400, f"'stream' must be true or false, got {stream!r}", "stream", "invalid_type")
    options = data.get("stream_options")
    if options is not None and not stream:
        raise OpenAIError(400, "'stream_options' is only allowed when 'stream' is true", "stream_options",
                          "invalid_value")
    if options is not None and (not isinstance(options, dict) or not isinstance(options.get("include_usage", False),
                                                                                bool)):
        raise OpenAIError(400, f"'stream_options' must be {{\"include_usage\": true|false}}, got {options!r}",
                          "stream_options", "invalid_type")
    _unsupported(data, {"n": 1, "logprobs": False if chat else None, "top_logprobs": None, "best_of": 1,
                        "echo": False, "suffix": None, "logit_bias": None, "tools": None, "functions": None,
                        "response_format": None})
    max_tokens = _integer(data, "max_tokens", 1)
    if chat and data.get("max_completion_tokens") is not None:  # the chat API's newer name
        max_tokens = _integer(data, "max_completion_tokens", 1)
    return GenerationRequest(
        model=model, chat=chat, max_tokens=max_tokens,
        temperature=_number(data, "temperature", 0, 2), top_p=_number(data, "top_p", 0, 1, low_open=True),
        seed=_integer(data, "seed"), stop=_stop(data),
        presence_penalty=_number(data, "presence_penalty", -2, 2),
        frequency_penalty=_number(data, "frequency_penalty", -2, 2),
        stream=stream, include_usage=bool(options and options.get("include_usage")))


def completion_request(data: dict) -> GenerationRequest:
    request = _common(data, chat=False)
    prompt = data.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], (str, list)):
        prompt = prompt[0]  # a batch of one prompt
    if isinstance(prompt, str) and prompt:
        request.prompt = prompt
    elif isinstance(prompt, list) and prompt and all(isinstance(t, int) and not isinstance(t, bool) and t >= 0
                                                     for t in prompt):
        request.prompt_ids = list(prompt)
    elif isinstance(prompt, list) and len(prompt) > 1:
        raise OpenAIError(400, f"'prompt' holds {len(prompt)} prompts; this server takes one prompt per request "
                               "(a string or a list of token ids): send one request each", "prompt",
                          "unsupported_value")
    else:
        raise OpenAIError(400, f"'prompt' must be a non-empty string or list of token ids, got {prompt!r}", "prompt",
                          "invalid_type")
    if request.max_tokens is None:
        request.max_tokens = COMPLETIONS_DEFAULT_MAX_TOKENS
    return request


def _content_text(content, where: str) -> str:
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if isinstance(content, list):  # content parts: only text ones
        texts = []
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                raise OpenAIError(400, f"{where}: only text content parts ({{\"type\": \"text\", \"text\": ...}}) are "
                                       f"supported, got {part!r}", "messages", "unsupported_value")
            texts.append(part["text"])
        return "".join(texts)
    raise OpenAIError(400, f"{where}: 'content' must be a string or a list of text parts, got {content!r}",
                      "messages", "invalid_type")


def chat_request(data: dict) -> GenerationRequest:
    request = _common(data, chat=True)
    messages = data.get("messages")
    if not isinstance(messages, list) or not messages:
        raise OpenAIError(400, "'messages' must be a non-empty list of {\"role\", \"content\"} objects", "messages",
                          "invalid_type")
    request.messages = []
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, dict) or not isinstance(message.get("role"), str) or not message["role"]:
            raise OpenAIError(400, f"{where}: must be an object with a 'role' string, got {message!r}", "messages",
                              "invalid_type")
        request.messages.append({"role": message["role"], "content": _content_text(message.get("content"), where)})
    return request


def usage(prompt_tokens: int, completion_tokens: int) -> dict:
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens}


class Answer:
    """The answer to one request: the full body, or the stream's chunks as server-sent events."""

    def __init__(self, request: GenerationRequest):
        self.request = request
        self.id = f"{'chatcmpl' if request.chat else 'cmpl'}-{uuid.uuid4().hex}"
        self.created = int(time.time())
        self.object = "chat.completion" if request.chat else "text_completion"

    def _head(self, obj: str) -> dict:
        return {"id": self.id, "object": obj, "created": self.created, "model": self.request.model}

    def body(self, text: str, finish_reason: str, prompt_tokens: int, completion_tokens: int) -> dict:
        if self.request.chat:
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": None,
                      "finish_reason": finish_reason}
        else:
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish_reason}
        return {**self._head(self.object), "choices": [choice], "usage": usage(prompt_tokens, completion_tokens)}

    def chunk(self, text: Optional[str], finish_reason: Optional[str] = None, first: bool = False) -> str:
        """A stream chunk with a piece of text (chat: the first one also carries the role), or the
        last one with the finish reason."""
        if self.request.chat:
            delta = {} if text is None else {"content": text}
            if first:
                delta = {"role": "assistant", **delta}
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            obj = "chat.completion.chunk"
        else:
            choice = {"index": 0, "text": text or "", "logprobs": None, "finish_reason": finish_reason}
            obj = "text_completion"
        data = {**self._head(obj), "choices": [choice]}
        if self.request.include_usage:
            data["usage"] = None  # as OpenAI: every chunk has it, null but in the last one
        return event(data)

    def usage_chunk(self, prompt_tokens: int, completion_tokens: int) -> str:
        obj = "chat.completion.chunk" if self.request.chat else "text_completion"
        return event({**self._head(obj), "choices": [], "usage": usage(prompt_tokens, completion_tokens)})


def event(data: dict) -> str:
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"


DONE = "data: [DONE]\n\n"
