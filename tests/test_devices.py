"""Every public helper follows the device of its model and inputs.

Each helper runs on every device this machine has: the CPU, CUDA when present (skipped with the
reason printed otherwise), and a *guarded* CPU run in which torch's default device is "meta" — a
tensor a helper creates without naming a device then lands on "meta" and any arithmetic with the
model's CPU tensors fails, exactly as a CPU-made tensor fails next to a CUDA model. So a CPU-only
CI still catches a helper that would break on a GPU. Results must equal the plain CPU run.

The rows live beside the lessons they serve, as the bad-input probes do: ``devices_<topic>.py`` holds
``CALLS`` (name → a call on a loaded model) and, where the lesson trains, ``TRAINERS``; what they
share is ``device_kit.py``. A new lesson adds its own ``devices_<topic>.py``.
"""

import importlib
from collections.abc import Callable
from pathlib import Path

import device_kit as kit
import pytest
import torch

import xai_tf

LESSON_ROWS = [
    importlib.import_module(path.stem) for path in sorted(Path(__file__).parent.glob("devices_*.py"))
]
CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    k: v for module in LESSON_ROWS for k, v in module.CALLS.items()
}
TRAINERS: dict[str, Callable[[xai_tf.LoadedModel], list[torch.Tensor]]] = {
    k: v for module in LESSON_ROWS for k, v in getattr(module, "TRAINERS", {}).items()
}


#: The causal-LM helpers of the rows above, run again on a tiny Llama (issue 41): the same helper on
#: a Llama-style block (RoPE, RMSNorm, SwiGLU, grouped key/value heads) follows the device too.
ON_LLAMA = (
    "forward",
    "attentions",
    "greedy",
    "generate top-k top-p",
    "beam_search",
    "continuation_log_prob",
    "top_next_tokens",
    "logit_lens_top",
    "integrated_gradients riemann",
    "integrated_gradients gauss-legendre",
    "sequential_integrated_gradients",
    "embedding_gradients + saliency",
    "leave_one_out replace",
    "leave_one_out drop",
    "loss_per_char",
)
CALLS.update(
    {f"{name}, on a tiny Llama": (lambda lm, call=CALLS[name]: call(kit.tiny_llama(lm))) for name in ON_LLAMA}
)


def _flat(result: object) -> list:
    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, dict):
        return [t for v in result.values() for t in _flat(v)]
    if isinstance(result, (list, tuple)):
        return [t for v in result for t in _flat(v)]
    return [result]


@pytest.fixture(scope="module")
def on_cpu() -> dict[str, list]:
    lm = xai_tf.load_model("shakespeare")
    return {name: _flat(call(lm)) for name, call in CALLS.items()}


DEVICES = [
    "cpu",
    "guarded-cpu",
    pytest.param(
        "cuda",
        marks=pytest.mark.skipif(
            not torch.cuda.is_available(), reason="no CUDA device here: the CUDA runs need a GPU machine"
        ),
    ),
]


@pytest.fixture(scope="module", params=DEVICES)
def device(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def lm(device) -> xai_tf.LoadedModel:
    return xai_tf.load_model("shakespeare", device="cuda" if device == "cuda" else "cpu")


@pytest.mark.parametrize("name", list(CALLS))
def test_helper_runs_on_the_device_and_agrees_with_the_cpu(name, device, lm, on_cpu):
    if device == "guarded-cpu":
        with torch.device("meta"):
            result = _flat(CALLS[name](lm))
    else:
        result = _flat(CALLS[name](lm))
    assert len(result) == len(on_cpu[name])
    for i, (got, want) in enumerate(zip(result, on_cpu[name], strict=True)):
        where = f"{name}, result {i}"
        if isinstance(want, torch.Tensor):
            assert got.device.type == ("cuda" if device == "cuda" else "cpu"), where
            tolerance = {"atol": 1e-3, "rtol": 1e-3} if device == "cuda" else {"atol": 0, "rtol": 0}
            torch.testing.assert_close(
                got.cpu(), want, **tolerance, msg=lambda m, where=where: f"{where}: {m}"
            )
        elif device == "cuda" and isinstance(want, float):
            assert got == pytest.approx(want, rel=1e-3), where
        else:
            assert got == want, where


@pytest.mark.parametrize("name", list(TRAINERS))
def test_trainer_trains_on_the_device(name, device, lm):
    """Where a trainer trains, not what it learns (that differs between devices, see
    ``_trained_on_the_host``): every parameter of the result lies on the model's device and is finite."""
    if device == "guarded-cpu":
        with torch.device("meta"):
            result = TRAINERS[name](lm)
    else:
        result = TRAINERS[name](lm)
    for i, t in enumerate(result):
        assert t.device.type == ("cuda" if device == "cuda" else "cpu"), (name, i, t.device)
        assert torch.isfinite(t).all(), (name, i)
