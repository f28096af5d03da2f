"""A model on a GPU, emulated on the CPU, for the headless lesson runs.

On a GPU (Colab, a GPU hub; ``load_model(device="auto")``), every tensor a lesson computes from the
model lives in device memory: numpy, matplotlib and seaborn cannot read it until ``.cpu()`` copies it
over. CI has no GPU, so ``install()`` makes ``load_model(..., device="auto")`` return a model whose
parameters are ``DeviceTensor``s: a tensor subclass that torch propagates through every operation
and that refuses, as a CUDA tensor does, to become a numpy array; ``.cpu()`` gives a plain tensor.
A lesson cell that plots a model's output without ``.cpu()`` then fails here as it would on a GPU.
(Mixing a CPU tensor into GPU arithmetic is not emulated: the device check of DESIGN.md covers it.)
"""

from __future__ import annotations

import torch

REFUSAL = "can't convert a (emulated) GPU tensor to numpy: use Tensor.cpu() to copy it to host memory first"


class DeviceTensor(torch.Tensor):
    def __array__(self, *args, **kwargs):
        raise TypeError(REFUSAL)

    def numpy(self, *args, **kwargs):
        raise TypeError(REFUSAL)

    def cpu(self, *args, **kwargs) -> torch.Tensor:
        return torch.Tensor.cpu(self, *args, **kwargs).as_subclass(torch.Tensor)

    def __format__(self, spec: str) -> str:  # a 0-d CUDA tensor formats as its number
        return format(self.item(), spec) if self.dim() == 0 else object.__format__(self, spec)


def on_emulated_gpu(model: torch.nn.Module) -> torch.nn.Module:
    """``model`` with every parameter and buffer a ``DeviceTensor`` (same values, still on the CPU)."""
    for module in model.modules():
        for name, p in list(module.named_parameters(recurse=False)):
            module._parameters[name] = torch.nn.Parameter(
                p.detach().as_subclass(DeviceTensor), requires_grad=p.requires_grad
            )
        for name, b in list(module.named_buffers(recurse=False)):
            module._buffers[name] = b.as_subclass(DeviceTensor)
    return model


def install() -> None:
    """Make ``xai_tf.load_model(..., device="auto")`` load onto the emulated GPU."""
    import xai_tf
    from xai_tf.models import hub

    load = hub.load_model

    def load_model(*args, **kwargs):
        lm = load(*args, **kwargs)
        if kwargs.get("device") == "auto":
            on_emulated_gpu(lm.model)
        return lm

    hub.load_model = xai_tf.load_model = load_model
