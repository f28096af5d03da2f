"""A user's own model as issue 57 pictures it: a random tiny Llama saved by Hugging Face with a sentencepiece-
style BPE ``tokenizer.json`` (``<s>`` opens every text), trained on the lessons' own markdown so that their
prompts tokenize into words and pieces. ``XAI_TF_MODEL=<directory>`` runs a causal-LM lesson on it."""

import json
from pathlib import Path

import torch
import transformers
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

ROOT = Path(__file__).resolve().parents[1]
SIZES = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4)


def _corpus() -> list[str]:
    """Every markdown and code line of the lessons: the words their prompts use."""
    lines = []
    for path in sorted((ROOT / "lessons").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            lines += "".join(cell["source"]).splitlines()
    return lines


def _tokenizer() -> Tokenizer:
    """BPE with Llama 2's layout: "▁" for a space, <unk> 0, <s> 1, </s> 2, <s> prepended."""
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    tokenizer.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    trainer = trainers.BpeTrainer(vocab_size=2000, special_tokens=["<unk>", "<s>", "</s>"])
    tokenizer.train_from_iterator(_corpus(), trainer)
    tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    return tokenizer


def write(directory: Path, seed: int = 0) -> Path:
    """Save the random tiny Llama (2 blocks, width 64, 4 heads over 2 key-value heads, untied) in
    ``directory``."""
    tokenizer = _tokenizer()
    config = transformers.LlamaConfig(
        vocab_size=tokenizer.get_vocab_size(),
        max_position_embeddings=1024,
        num_key_value_heads=2,
        attn_implementation="eager",
        **SIZES,
    )
    torch.manual_seed(seed)
    transformers.LlamaForCausalLM(config).save_pretrained(directory, safe_serialization=True)
    specials = dict(bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer, **specials).save_pretrained(directory)
    return directory
