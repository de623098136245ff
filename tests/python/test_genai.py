"""mosaic.genai as openvino_genai users write it: LLMPipeline on an LLM folder as optimum-intel
exports it (tools/models/make_llm_models.py, random weights), generating transformers' own greedy
continuation, with kwargs, a GenerationConfig, a streamer, and clear errors for bad input.

The C++ suite generates the folders into build/llm_models (tests/genai/llm_pipeline_test.cpp);
here they are generated the same way when missing.
"""
import json

import pytest
from generated_models import generated, venv_python

import mosaic.genai as ov_genai


@pytest.fixture(scope="module")
def folder():
    return generated("llm_models", "llm_qwen2_ov", "make_llm_models.py", ["--only", "qwen2_ov"],
                     venv_python("MOSAIC_TORCH_EXPORTERS_PYTHON", "build-torch-exporters-venv"), "generate.json",
                     "torch, transformers and optimum-intel are needed to export the LLM "
                     "(bash scripts/install_model_exporters.sh)")


@pytest.fixture(scope="module")
def expected(folder):
    return json.loads((folder / "generate.json").read_text())["prompts"]


@pytest.fixture(scope="module")
def pipe(folder):
    return ov_genai.LLMPipeline(folder, "CPU")


def test_generate_gives_transformers_text(pipe, expected):
    for prompt in expected:
        result = pipe.generate(prompt["text"], max_new_tokens=64)
        assert str(result) == prompt["generated_text"]
        assert result.perf_metrics.num_generated_tokens == len(prompt["generated"])
        assert result.perf_metrics.get_ttft() > 0 and result.perf_metrics.get_throughput() > 0


def test_token_ids_in_token_ids_out(pipe, expected):
    prompt = expected[1]
    assert pipe.get_tokenizer().encode(prompt["text"]) == prompt["ids"]
    result = pipe.generate(prompt["ids"], max_new_tokens=64)
    assert result.tokens[0] == prompt["generated"]
    assert pipe.get_tokenizer().decode(result.tokens[0]) == prompt["generated_text"]


def test_a_generation_config_and_a_streamer(pipe, expected):
    config = pipe.get_generation_config()
    config.max_new_tokens = 16
    pieces = []
    result = pipe.generate(expected[0]["text"], config, lambda piece: pieces.append(piece))
    assert "".join(pieces) == str(result) and len(pieces) > 1
    calls = []
    stopped = pipe.generate(expected[0]["text"], config, lambda piece: calls.append(piece) or len(calls) == 2)
    assert len(calls) == 2 and stopped.perf_metrics.num_generated_tokens < 16


def test_sampling_is_reproducible_by_seed(pipe, expected):
    sample = dict(max_new_tokens=16, do_sample=True, temperature=1.5, top_p=0.9, rng_seed=5)
    assert str(pipe.generate(expected[2]["text"], **sample)) == str(pipe.generate(expected[2]["text"], **sample))


def test_bad_input_says_what(pipe, folder, tmp_path):
    with pytest.raises(ValueError, match="unknown generation parameter 'max_new_token'"):
        pipe.generate("Hi", max_new_token=3)
    with pytest.raises(ValueError, match="max_new_tokens is 0"):
        pipe.generate("Hi", max_new_tokens=0)
    with pytest.raises(RuntimeError, match="is not a folder"):
        ov_genai.LLMPipeline(tmp_path / "missing", "CPU")
    with pytest.raises(ZeroDivisionError):  # what the streamer raised, raised from generate()
        pipe.generate("Hi", max_new_tokens=4, streamer=lambda piece: 1 / 0)
    assert len(pipe.generate("Hi", max_new_tokens=4).texts) == 1  # the pipeline still works


def test_continuous_batching_gives_each_request_its_own_generation(pipe, folder, expected):
    scheduler = ov_genai.SchedulerConfig()
    scheduler.max_num_seqs = 2
    batch = ov_genai.ContinuousBatchingPipeline(folder, scheduler, "CPU")
    config = batch.get_config()
    config.max_new_tokens = 64
    results = batch.generate([p["text"] for p in expected], config)
    assert [r.m_generation_ids[0] for r in results] == [p["generated_text"] for p in expected]
    assert all(r.m_status == ov_genai.GenerationStatus.FINISHED for r in results)
    encoded = batch.generate([p["ids"] for p in expected], [config])
    assert [r.m_generation_ids[0] for r in encoded] == [p["generated"] for p in expected]
    # Handles: requests stepped together, read as they grow; one dropped.
    config.max_new_tokens = 12
    a = batch.add_request(1, expected[0]["text"], config)
    b = batch.add_request(2, expected[1]["ids"], config)
    pieces, rows = "", set()
    while batch.has_non_finished_requests():
        batch.step()
        rows.add(batch.last_step_rows())
        pieces += a.read().text
        if len(b.read_all().generated_ids) >= 3:
            b.drop()
    assert rows >= {2}
    assert pieces == a.read_all().text == str(pipe.generate(expected[0]["text"], max_new_tokens=12))
    assert b.get_status() == ov_genai.GenerationStatus.CANCEL
    with pytest.raises(ValueError, match="leaves no room"):
        config.max_length = 2
        batch.add_request(3, expected[0]["ids"], config)
