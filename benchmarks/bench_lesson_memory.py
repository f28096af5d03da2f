"""Peak memory of the kernel while each lesson runs headless, on the bundled model and on GPT-2 small.

Every notebook in ``lessons/`` is executed top to bottom with nbclient, as the notebook tests do, in two
settings: the bundled model (an empty Hugging Face cache) and GPT-2-small-sized weights (124M parameters,
randomly initialised, saved as safetensors into a temporary Hugging Face cache, which is what Binder users
get: ``load_model()`` picks them as it would the real GPT-2). Both run offline (``HF_HUB_OFFLINE=1``).
After the last cell, one more cell prints the kernel process's own peak resident memory (Linux VmHWM),
so the number is the kernel's high-water mark over the whole lesson, not the runner's, and the kernel
process's CPU time (user + system, its start included), which a loaded machine changes far less than
the wall time. Prints, per lesson and setting, the model ``load_model()`` picked for "auto" (a dash
where the lesson asks for none by "auto": it names its models, as 15 and 19 do, or loads none), that
peak, the CPU time and the wall time of the cells; a peak above the 1,500 MB budget is marked, a lesson
that raises is reported FAILED with its error. Then every cell that took over 20 s, and whether its
output shows a progress bar.

    python benchmarks/bench_lesson_memory.py [--lessons 00 06] [--setting bundled|gpt2|both]
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

LESSONS_DIR = Path(__file__).parents[1] / "lessons"
BUDGET_MB = 1500
SLOW_CELL_S = 20
SNAPSHOT = "0" * 40
PROBE = (
    "import os as _o, pathlib as _p\n"
    "print('VmHWM', next(l for l in _p.Path('/proc/self/status').read_text().splitlines()"
    " if l.startswith('VmHWM')).split()[1], sum(_o.times()[:2]))"
)


def fake_gpt2_cache(hf_home: Path) -> None:
    """A randomly initialised GPT-2 small, laid out as the Hugging Face cache holds the real one."""
    import torch
    import transformers

    repo = hf_home / "hub" / "models--openai-community--gpt2"
    snapshot = repo / "snapshots" / SNAPSHOT
    transformers.utils.logging.disable_progress_bar()
    torch.manual_seed(0)
    transformers.GPT2LMHeadModel(transformers.GPT2Config()).save_pretrained(snapshot)
    assert (snapshot / "config.json").is_file() and (snapshot / "model.safetensors").is_file()
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(SNAPSHOT)


def _shows_progress(cell: nbformat.NotebookNode) -> bool:
    """Whether a cell's outputs hold a progress bar: tqdm's text bar "…%|…|", on stderr or as the
    plain-text form of its notebook widget."""
    texts = (o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", []))
    return any(re.search(r"\d%\|", text) for text in texts)


def run_lesson(path: Path, hf_home: Path) -> dict:
    """Execute one lesson in a fresh kernel; its peak memory (MB), wall time (s), model name, error."""
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE")}
    env.update(
        HF_HOME=str(hf_home), HF_HUB_OFFLINE="1", MPLBACKEND="module://matplotlib_inline.backend_inline"
    )
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    result: dict = {"peak": None, "cpu": None, "error": None, "cells": []}
    with client.setup_kernel(env=env):
        start = time.perf_counter()
        try:
            for index, cell in enumerate(nb.cells):
                began = time.perf_counter()
                client.execute_cell(cell, index)
                result["cells"].append((time.perf_counter() - began, index, _shows_progress(cell)))
        except Exception as err:  # a cell raised, timed out, or the kernel died
            last = (str(getattr(err, "evalue", err)).strip().splitlines() or [""])[-1]
            result["error"] = f"{getattr(err, 'ename', type(err).__name__)}: {last}"
        result["wall"] = time.perf_counter() - start
        nb.cells.append(probe := nbformat.v4.new_code_cell(PROBE))
        try:
            client.execute_cell(probe, len(nb.cells) - 1)
            _, peak, cpu = probe.outputs[0]["text"].split()
            result["peak"], result["cpu"] = int(peak) / 1024, float(cpu)
        except Exception:  # no kernel left to ask
            pass
    text = "".join(o.get("text", "") for cell in nb.cells for o in cell.get("outputs", []))
    found = re.search(r"using model '([^']+)'", text)
    result["model"] = found.group(1) if found else "–"
    return result


def cell(r: dict) -> str:
    peak = "?" if r["peak"] is None else f"{r['peak']:.0f}" + (" !" if r["peak"] > BUDGET_MB else "  ")
    cpu = "?" if r["cpu"] is None else f"{r['cpu']:.1f}"
    return f"{r['model']:>11} {'FAILED' if r['error'] else peak:>8} {cpu:>6} {r['wall']:6.1f}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lessons", nargs="*", help="filename prefixes, e.g. 00 06 (default: all)")
    p.add_argument("--setting", choices=("bundled", "gpt2", "both"), default="both")
    args = p.parse_args()
    lessons = sorted(LESSONS_DIR.glob("*.ipynb"))
    if args.lessons:
        lessons = [path for path in lessons if path.name.startswith(tuple(args.lessons))]
    settings = ("bundled", "gpt2") if args.setting == "both" else (args.setting,)
    results = {}
    for setting in settings:
        with tempfile.TemporaryDirectory(prefix=f"hf_home_{setting}_") as tmp:
            if setting == "gpt2":
                fake_gpt2_cache(Path(tmp))
            for path in lessons:
                results[path.stem, setting] = r = run_lesson(path, Path(tmp))
                print(f"  {setting:7} {path.stem}: {cell(r).strip()}", flush=True)

    print(f"\nkernel peak resident memory in MB (! = above {BUDGET_MB} MB), its CPU s, the cells' wall s")
    width = max(len(path.stem) for path in lessons)
    print(f"{'':{width}}" + "".join(f" | {s:^34}" for s in settings))
    columns = f" | {'model':>11} {'peak MB':>8} {'CPU s':>6} {'wall s':>6}"
    print(f"{'lesson':{width}}" + columns * len(settings))
    for path in lessons:
        print(f"{path.stem:{width}}" + "".join(f" | {cell(results[path.stem, s])}" for s in settings))
    print(f"\ncells over {SLOW_CELL_S} s (the issue's bar: such a cell shows a progress bar)")
    for (stem, setting), r in results.items():
        for seconds, index, bar in r["cells"]:
            if seconds > SLOW_CELL_S:
                shown = "yes" if bar else "NO"
                print(f"  {stem} ({setting}) cell {index}: {seconds:.1f} s, progress bar: {shown}")
    for (stem, setting), r in results.items():
        if r["error"]:
            print(f"FAILED {stem} ({setting}, kernel peak {r['peak'] or 0:.0f} MB): {r['error']}")


if __name__ == "__main__":
    main()
