"""The one timing loop: a warm-up run each, then interleaved runs, the median reported. A fake clock
makes every duration known, so the median and the order of the runs are checked exactly."""

import pytest

from xai_tf import timing


@pytest.fixture
def clock(monkeypatch):
    """perf_counter advances by the duration the last-called function set."""
    state = {"now": 0.0, "pending": 0.0}

    def perf_counter():
        state["now"] += state["pending"]
        state["pending"] = 0.0
        return state["now"]

    monkeypatch.setattr(timing.time, "perf_counter", perf_counter)
    return state


def test_runs_interleave_after_one_warm_up_each(clock):
    calls, durations = [], {"a": iter([9.0, 1.0, 5.0, 3.0]), "b": iter([9.0, 2.0, 2.0, 8.0])}

    def run(name):
        calls.append(name)
        clock["pending"] = next(durations[name])

    times = timing.interleaved_times({"a": lambda: run("a"), "b": lambda: run("b")}, repeats=3)
    assert calls == ["a", "b", "a", "b", "a", "b", "a", "b"]
    assert times == {"a": [1.0, 5.0, 3.0], "b": [2.0, 2.0, 8.0]}  # the warm-ups' 9 s are not counted


def test_the_median_not_the_mean(clock):
    durations = iter([100.0, 1.0, 100.0, 2.0])

    def run():
        clock["pending"] = next(durations)

    assert timing.median_seconds(run, repeats=3) == 2.0


@pytest.mark.parametrize(
    ("fns", "repeats", "error"), [({}, 3, TypeError), ({"a": 3}, 3, TypeError), ({"a": print}, 0, ValueError)]
)
def test_bad_arguments(fns, repeats, error):
    with pytest.raises(error, match="fns must map|repeats must be an integer in 1..1000"):
        timing.interleaved_seconds(fns, repeats)
