import re

import pytest
import torch

from xai_tf.exercises import check_next_token_probs


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda z: None, "is None: did you forget to `return` it?"),
        (lambda z: z[-1], "sum to"),
        (lambda z: z[0].softmax(-1), "first position"),
        (lambda z: z.softmax(-1), r"shape \(1, 5\), expected \(5,\)"),
        (lambda z: z[-1].softmax(-1).tolist(), "should be a torch.Tensor"),
        (lambda z: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_checker_says_what_is_wrong(fn, message, capsys):
    assert check_next_token_probs(fn) is False
    out = capsys.readouterr().out
    assert out.startswith("❌") and re.search(message, out)


def test_checker_passes_a_right_answer(capsys):
    assert check_next_token_probs(lambda z: torch.softmax(z[-1], dim=0)) is True
    assert capsys.readouterr().out.startswith("✅")
