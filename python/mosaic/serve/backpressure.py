"""Backpressure: a model bounds the requests waiting for it (max_queued_requests in the serving
configuration), and a request that finds its queue full is refused at once with 503 and Retry-After,
so that a flood fails fast, visibly and retryably instead of queueing without end.

A request can wait in two places, and each holds at most max_queued_requests:
- in the ingress, for a replica with room (every replica has max_ongoing_requests): Ray Serve's own
  queue at the deployment handle, whose bound is the deployment option of the same name; past it the
  handle raises BackPressureError, which the ingress counts and answers;
- in an LLM replica, for a row of its continuous batch: the replica refuses a request when
  max_num_seqs requests already run and max_queued_requests wait (llm_deployment.py).
"""
from collections import Counter

from ray.serve.exceptions import BackPressureError

# A refused request's Retry-After: long enough for a running generation or inference to free room,
# short enough that a client retrying at once after a short burst is not kept waiting.
RETRY_AFTER_S = 1
# Where a refused request would have waited, in its message.
FOR_A_REPLICA = "waiting for a replica"
FOR_A_ROW = "waiting for a batch row"


class QueueFull(Exception):
    """A request refused because its model's queue is full: 503 with Retry-After, in the protocol's shape."""

    code = "queue_full"  # the OpenAI error's code

    def __init__(self, model: str, bound, waiting_for: str):
        super().__init__(f"model '{model}' is busy: its queue of requests {waiting_for} is full "
                         f"(max_queued_requests: {bound}); retry after {RETRY_AFTER_S} s, or raise the model's "
                         "max_queued_requests in the serving configuration")


def refused_by_ray(model: str, error: BackPressureError, refused: Counter) -> QueueFull:
    """Ray Serve's refusal of a call to `model` from the ingress, counted in `refused` (by model)."""
    refused[model] += 1
    # BackPressureError keeps (num_queued_requests, max_queued_requests, ...) in args, not as attributes.
    bound = error.args[1] if len(error.args) > 1 else "?"
    return QueueFull(model, bound, FOR_A_REPLICA)
