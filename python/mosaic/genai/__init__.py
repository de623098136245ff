"""LLM generation with openvino_genai's API: port by renaming `openvino_genai` to `mosaic.genai`.

    import mosaic.genai as ov_genai
    pipe = ov_genai.LLMPipeline("TinyLlama-ov", "CPU")
    print(pipe.generate("The Sun is", max_new_tokens=64))
"""
from mosaic._mosaic.genai import (
    ContinuousBatchingPipeline,
    DecodedResults,
    EncodedGenerationResult,
    EncodedResults,
    GenerationConfig,
    GenerationHandle,
    GenerationOutput,
    GenerationResult,
    GenerationStatus,
    LLMPipeline,
    PerfMetrics,
    SchedulerConfig,
    StreamingStatus,
    Tokenizer,
)

__all__ = ["ContinuousBatchingPipeline", "DecodedResults", "EncodedGenerationResult", "EncodedResults",
           "GenerationConfig", "GenerationHandle", "GenerationOutput", "GenerationResult", "GenerationStatus",
           "LLMPipeline", "PerfMetrics", "SchedulerConfig", "StreamingStatus", "Tokenizer"]
