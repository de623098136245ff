"""The OpenAI-compatible endpoint end to end on loopback: LLMs (task: llm) deployed from a
configuration file on a local Ray instance, called with the official `openai` client and with plain
HTTP (requests). Greedy text, streamed or not, equals mosaic.genai.LLMPipeline's in this process with
the same parameters; sampling is reproducible by seed; bad requests get OpenAI's error shape and
status; a client that disconnects mid-stream stops its generation and frees the replica.

The LLM is tools/models/make_llm_models.py's Qwen2-shaped model with random weights, as
optimum-intel exports it (tests/python/generated_models.py finds or generates it).
"""
import concurrent.futures
import json
import threading
import time

import pytest
from conftest import deployed, error_of, llm_stats, long_context

import mosaic.genai as ov_genai
from mosaic.serve.config import ConfigError, parse_config

try:  # the serving extra: without it the server tests are skipped, the configuration tests run
    import openai
    import requests
except ImportError:
    openai = requests = None

APP = "mosaic-openai-test"
PROMPT = "The quick brown fox"
SHORT_MAX_LENGTH = 32
# The disconnect test's model: the same one told its context is LONG_CONTEXT tokens (its rotary
# positions are computed, not tabled), so that a greedy generation runs a second or more, long
# enough for a client leaving after the first piece to be seen before it would end.
LONG_CONTEXT = 4096

CONFIG = """\
# One LLM on CPU, the same with a shorter maximum length, and the same with a longer context and
# one row (a second request waits) for the disconnect tests.
ray_actor_options: {{num_cpus: 0.25}}
models:
  - name: tiny
    task: llm
    path: {folder}
    device: CPU
    properties: {{INFERENCE_NUM_THREADS: 1}}
  - name: tiny-short
    task: llm
    path: {folder}
    device: CPU
    max_length: {short}
  - name: tiny-long
    task: llm
    path: {long_folder}
    device: CPU
    max_num_seqs: 1
    properties: {{INFERENCE_NUM_THREADS: 1}}
"""


@pytest.fixture(scope="module")
def server(llm_folder, tmp_path_factory, request):
    """The base URL of the application's HTTP routes (conftest.deployed)."""
    pytest.importorskip("ray.serve", reason="Ray Serve is not installed: pip install '.[serve]' "
                        "(scripts/test_serve.sh does it in a venv)")
    if openai is None or requests is None:
        pytest.skip("the openai client or requests is not installed: pip install '.[serve]'")
    work = tmp_path_factory.mktemp("serve-openai")
    config = work / "serving.yaml"
    config.write_text(CONFIG.format(folder=llm_folder, short=SHORT_MAX_LENGTH,
                                    long_folder=long_context(llm_folder, work, LONG_CONTEXT)))
    yield from deployed(config, APP, request)


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=f"{server}/v1", api_key="unused", max_retries=0, timeout=120)


def finish_reason(result, max_new_tokens: int) -> str:
    return "length" if result.perf_metrics.num_generated_tokens >= max_new_tokens else "stop"


def test_an_llm_entry_in_the_configuration(tmp_path):
    config = parse_config({"models": [{"name": "cnn", "path": "cnn.xml", "batching": {"max_batch_size": 4}},
                                      {"name": "qwen", "task": "llm", "path": "qwen2-ov", "max_length": 512}],
                           "device": "CPU", "parallel_requests": 2}, base_dir=tmp_path)
    assert [m.name for m in config.kserve_models] == ["cnn"] and [m.name for m in config.llms] == ["qwen"]
    qwen = config.llms[0]
    assert (qwen.path, qwen.max_length, qwen.device) == (str(tmp_path / "qwen2-ov"), 512, "CPU")
    assert config.kserve_models[0].parallel_requests == 2 and qwen.parallel_requests == 1  # not an LLM's key
    for entry, message in [({"task": "llm", "batching": {"max_batch_size": 2}},
                            "(task: llm): unknown key(s) ['batching']"),
                           ({"task": "llm", "weights": "w.bin"}, "(task: llm): unknown key(s) ['weights']"),
                           ({"task": "llm", "max_length": 1}, "max_length: expected an integer >= 2"),
                           ({"task": "chat"}, "task 'chat' is not one of ['kserve', 'llm']"),
                           ({"max_length": 64}, "unknown key(s) ['max_length']")]:
        with pytest.raises(ConfigError) as caught:
            parse_config({"models": [{"name": "m", "path": "m", **entry}]}, source="serving.yaml")
        assert str(caught.value).startswith("serving.yaml: models[0]") and message in str(caught.value), caught.value


def test_models_lists_the_llms_beside_the_kserve_api(server, client):
    assert sorted(m.id for m in client.models.list()) == ["tiny", "tiny-long", "tiny-short"]
    card = requests.get(f"{server}/v1/models/tiny-short").json()
    assert card["object"] == "model" and card["max_model_len"] == SHORT_MAX_LENGTH
    assert requests.get(f"{server}/v1/models/tiny").json()["max_model_len"] == 256  # config.json's
    assert requests.get(f"{server}/v2").json()["name"] == "mosaic"  # the same ingress speaks KServe v2


def test_completions_give_llmpipeline_greedy_text(client, pipe):
    expected = pipe.generate(PROMPT, max_new_tokens=24, do_sample=False)
    r = client.completions.create(model="tiny", prompt=PROMPT, max_tokens=24, temperature=0)
    assert r.object == "text_completion" and r.model == "tiny" and len(r.choices) == 1
    assert r.choices[0].text == expected.texts[0]
    assert r.choices[0].finish_reason == finish_reason(expected, 24) == "length"
    assert (r.usage.prompt_tokens, r.usage.completion_tokens, r.usage.total_tokens) == \
        (len(pipe.get_tokenizer().encode(PROMPT)), 24, len(pipe.get_tokenizer().encode(PROMPT)) + 24)

    chunks = list(client.completions.create(model="tiny", prompt=PROMPT, max_tokens=24, temperature=0, stream=True,
                                            stream_options={"include_usage": True}))
    pieces = [c.choices[0].text for c in chunks if c.choices]
    assert len(pieces) > 2 and "".join(pieces) == expected.texts[0]
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 24
    assert all(c.usage is None for c in chunks[:-1])


def test_concurrent_requests_each_get_their_own_text(client, pipe):
    """Requests at once are decoded together (continuous batching): each gets its own text, and the
    replica's steps ran several of them at a time."""
    before = llm_stats(APP, "tiny")["batch_sizes"]
    lengths = [60, 90, 120, 150]
    with concurrent.futures.ThreadPoolExecutor(len(lengths)) as pool:
        answers = list(pool.map(lambda n: client.completions.create(model="tiny", prompt=PROMPT, max_tokens=n,
                                                                    temperature=0), lengths))
    for n, answer in zip(lengths, answers):
        assert answer.choices[0].text == pipe.generate(PROMPT, max_new_tokens=n, do_sample=False).texts[0]
        assert answer.usage.completion_tokens == n
    after = llm_stats(APP, "tiny")["batch_sizes"]
    together = {int(rows): steps - before.get(rows, 0) for rows, steps in after.items()}
    assert max(rows for rows, steps in together.items() if steps > 0) >= 2, after
    print(f"decode steps by the requests they ran together: {together}")


def test_completions_from_token_ids(client, pipe):
    ids = pipe.get_tokenizer().encode(PROMPT)
    r = client.completions.create(model="tiny", prompt=ids, max_tokens=8, temperature=0)
    assert r.choices[0].text == pipe.generate(PROMPT, max_new_tokens=8, do_sample=False).texts[0]
    assert r.usage.prompt_tokens == len(ids)


def test_chat_gives_llmpipeline_chat_text(client, pipe):
    system, user = "You answer briefly.", "Name a colour."
    pipe.start_chat(system)
    try:
        expected = pipe.generate(user, max_new_tokens=20, do_sample=False)
    finally:
        pipe.finish_chat()
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    r = client.chat.completions.create(model="tiny", messages=messages, max_tokens=20, temperature=0)
    assert r.object == "chat.completion" and r.choices[0].message.role == "assistant"
    assert r.choices[0].message.content == expected.texts[0]
    assert r.choices[0].finish_reason == finish_reason(expected, 20)
    assert (r.usage.prompt_tokens, r.usage.completion_tokens) == \
        (expected.perf_metrics.num_input_tokens, expected.perf_metrics.num_generated_tokens)

    chunks = list(client.chat.completions.create(model="tiny", messages=messages, max_tokens=20, temperature=0,
                                                 stream=True, stream_options={"include_usage": True}))
    assert chunks[0].choices[0].delta.role == "assistant"
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == expected.texts[0]
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == finish_reason(expected, 20)
    assert chunks[-1].usage.prompt_tokens == expected.perf_metrics.num_input_tokens

    # Text content parts are the same message.
    parts = [{"role": "system", "content": [{"type": "text", "text": system}]}, {"role": "user", "content": user}]
    r = client.chat.completions.create(model="tiny", messages=parts, max_tokens=20, temperature=0)
    assert r.choices[0].message.content == expected.texts[0]


def test_apply_chat_template_renders_the_models_template(pipe, llm_folder):
    tokenizer = pipe.get_tokenizer()
    template = (llm_folder / "chat_template.jinja").read_text()
    text = tokenizer.apply_chat_template([{"role": "user", "content": "Hi"}], True, template)
    assert "Hi" in text and text.index("Hi") < len(text) - 1  # the assistant's turn is opened after it
    assert text != tokenizer.apply_chat_template([{"role": "user", "content": "Hi"}], False, template)
    with pytest.raises(ValueError, match="chat_template"):  # none in tokenizer_config.json here
        ov_genai.Tokenizer(llm_folder).apply_chat_template([{"role": "user", "content": "Hi"}], True)


def test_sampling_is_reproducible_by_seed(client, pipe):
    params = dict(model="tiny", prompt=PROMPT, max_tokens=24, temperature=0.9, top_p=0.95)
    first = client.completions.create(seed=7, **params).choices[0].text
    assert client.completions.create(seed=7, **params).choices[0].text == first
    assert client.completions.create(seed=8, **params).choices[0].text != first
    assert first == pipe.generate(PROMPT, max_new_tokens=24, do_sample=True, temperature=0.9, top_p=0.95,
                                  rng_seed=7).texts[0]
    streamed = client.completions.create(seed=7, stream=True, **params)
    assert "".join(c.choices[0].text for c in streamed if c.choices) == first


def test_stop_strings_end_the_text_before_them(client, pipe):
    text = pipe.generate(PROMPT, max_new_tokens=24, do_sample=False).texts[0]
    # A stop string from the middle of the greedy text, at its first occurrence.
    start = next(i for i in range(4, len(text) - 3) if "\ufffd" not in text[i:i + 3] and text.find(text[i:i + 3]) == i)
    stop = text[start:start + 3]
    for value in (stop, ["never-in-this-text", stop]):
        r = client.completions.create(model="tiny", prompt=PROMPT, max_tokens=24, temperature=0, stop=value)
        assert r.choices[0].text == text[:start] and r.choices[0].finish_reason == "stop"
        assert r.usage.completion_tokens < 24
        streamed = client.completions.create(model="tiny", prompt=PROMPT, max_tokens=24, temperature=0, stop=value,
                                             stream=True)
        assert "".join(c.choices[0].text for c in streamed if c.choices) == text[:start]


def test_unknown_model_is_404(server, client):
    with pytest.raises(openai.NotFoundError) as caught:
        client.completions.create(model="no-such-model", prompt=PROMPT, max_tokens=4)
    assert "no-such-model" in str(caught.value) and "tiny" in str(caught.value)
    r = requests.post(f"{server}/v1/chat/completions",
                      json={"model": "no-such-model", "messages": [{"role": "user", "content": "Hi"}]})
    assert r.status_code == 404
    assert error_of(r)["code"] == "model_not_found" and error_of(r)["param"] == "model"
    r = requests.get(f"{server}/v1/models/no-such-model")
    assert r.status_code == 404 and error_of(r)["code"] == "model_not_found"


@pytest.mark.parametrize("bad, param", [({"temperature": -0.5}, "temperature"), ({"temperature": 2.5}, "temperature"),
                                        ({"top_p": 0}, "top_p"), ({"top_p": 1.5}, "top_p"),
                                        ({"max_tokens": 0}, "max_tokens"), ({"max_tokens": "8"}, "max_tokens"),
                                        ({"stop": ["a", "b", "c", "d", "e"]}, "stop"), ({"n": 2}, "n"),
                                        ({"stream_options": {"include_usage": True}}, "stream_options")])
def test_bad_sampling_parameters_are_400(server, client, bad, param):
    with pytest.raises(openai.BadRequestError) as caught:
        client.completions.create(model="tiny", prompt=PROMPT, **bad)
    assert param in str(caught.value)
    r = requests.post(f"{server}/v1/chat/completions",
                      json={"model": "tiny", "messages": [{"role": "user", "content": "Hi"}], **bad})
    assert r.status_code == 400
    error = error_of(r)
    assert error["param"] == param and error["type"] == "invalid_request_error" and param in error["message"]


def test_a_body_that_is_not_json_is_400(server):
    r = requests.post(f"{server}/v1/completions", data=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "not valid JSON" in error_of(r)["message"]
    r = requests.post(f"{server}/v1/nowhere", json={})
    assert r.status_code == 404 and "/v1/completions" in error_of(r)["message"]


def test_a_prompt_longer_than_the_model_is_400(server, client, pipe):
    long_prompt = " ".join(["fox"] * 300)
    assert len(pipe.get_tokenizer().encode(long_prompt)) > 256
    for stream in (False, True):  # a stream too is refused with the status, before any event
        with pytest.raises(openai.BadRequestError) as caught:
            client.completions.create(model="tiny", prompt=long_prompt, max_tokens=4, stream=stream)
        assert "256" in str(caught.value)
    short_limit = " ".join(["fox"] * 40)  # fits the model, not tiny-short's max_length
    r = requests.post(f"{server}/v1/chat/completions",
                      json={"model": "tiny-short", "messages": [{"role": "user", "content": short_limit}]})
    assert r.status_code == 400
    error = error_of(r)
    assert error["code"] == "context_length_exceeded" and error["param"] == "messages"
    assert str(SHORT_MAX_LENGTH) in error["message"]
    # The replica serves on after the refusals.
    assert client.completions.create(model="tiny-short", prompt=PROMPT, max_tokens=4).usage.completion_tokens == 4


def test_a_client_that_disconnects_stops_its_generation(server, client):
    body = {"model": "tiny-long", "prompt": PROMPT, "max_tokens": LONG_CONTEXT, "temperature": 0}
    before = llm_stats(APP, "tiny-long")
    left = time.monotonic()
    with requests.post(f"{server}/v1/completions", json={**body, "stream": True}, stream=True, timeout=60) as r:
        assert r.status_code == 200
        first = next(line for line in r.iter_lines() if line.startswith(b"data: "))
        assert json.loads(first[len(b"data: "):])["choices"][0]["text"]
    # The connection is closed here, after the first piece: the generation is counted as cancelled
    # (not completed) once the streamer has stopped it.
    deadline = left + 30
    while True:
        stats = llm_stats(APP, "tiny-long")
        if stats["cancelled"] > before["cancelled"] and stats["running"] == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    stopped_s = time.monotonic() - left
    assert (stats["cancelled"], stats["started"], stats["completed"], stats["running"]) == \
        (before["cancelled"] + 1, before["started"] + 1, before["completed"], 0), stats
    cut = stats["completion_tokens"] - before["completion_tokens"]
    # The replica is free: the same request, not cut, is answered, and runs longer than the cut one.
    start = time.monotonic()
    full = client.completions.create(**body)
    full_s = time.monotonic() - start
    assert 0 < cut < full.usage.completion_tokens, (cut, full.usage.completion_tokens)
    assert llm_stats(APP, "tiny-long")["completed"] == before["completed"] + 1
    print(f"disconnect: stopped {stopped_s:.2f} s after the request at {cut} tokens; the whole generation: "
          f"{full.usage.completion_tokens} tokens in {full_s:.2f} s")


def test_requests_that_leave_while_running_or_waiting_are_not_generated_on(server, client):
    """Without a stream too: a client that gives up on a running generation stops it, and one that
    gives up while waiting behind it is never generated."""
    body = {"model": "tiny-long", "prompt": PROMPT, "max_tokens": LONG_CONTEXT, "temperature": 0}
    full_tokens = client.completions.create(**body).usage.completion_tokens
    before = llm_stats(APP, "tiny-long")

    def leave_after(seconds):
        with pytest.raises(requests.exceptions.ReadTimeout):
            requests.post(f"{server}/v1/completions", json=body, timeout=(5, seconds))

    # tiny-long has one row: the second request waits for it. Its 0.5 s give it time to reach the
    # replica on a loaded machine, and it leaves before the first frees the row (at 1 s, well before
    # its whole generation's 1.7 s or more).
    running = threading.Thread(target=leave_after, args=(1.0,))
    running.start()
    time.sleep(0.3)  # the first request has the row by now
    leave_after(0.5)
    running.join()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        stats = llm_stats(APP, "tiny-long")
        if stats["cancelled"] == before["cancelled"] + 2 and stats["running"] == 0:
            break
        time.sleep(0.02)
    assert (stats["cancelled"], stats["started"], stats["completed"], stats["running"]) == \
        (before["cancelled"] + 2, before["started"] + 1, before["completed"], 0), stats
    generated = stats["completion_tokens"] - before["completion_tokens"]
    assert 0 < generated < full_tokens, (generated, full_tokens)  # the first one, cut
