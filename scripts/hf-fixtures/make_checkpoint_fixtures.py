#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reference fixtures for AttnLab's checkpoint loader, produced by Hugging Face `transformers` itself.

Usage:
    scripts/hf-fixtures/make_checkpoint_fixtures.py [--out DIR] [--only NAME ...]
    scripts/hf-fixtures/make_checkpoint_fixtures.py --gpt2-small OUTDIR

The first form builds tiny random checkpoints (gpt2, llama, mistral, qwen2, gpt_neox, bloom and
variants), saves them with `save_pretrained`, loads them back with `from_pretrained` and records
the attention probabilities that transformers' eager attention computes in float32 and float64,
into tests/fixtures/hf/<case>/ (default). See tests/fixtures/hf/README.md for the layout.

The second form writes a GPT-2-small-shaped checkpoint (GPT2Config() defaults: 12 layers, 768
hidden, 12 heads, ~124M parameters, F32, random weights) into OUTDIR, for benchmarks; not
committed.

Creates its own virtual environment in scripts/hf-fixtures/.venv (versions pinned in
requirements.txt next to this file, from PyPI; CPU only). Never run by CI.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(HERE, ".venv")
VENV_PY = os.path.join(VENV, "bin", "python")
REQUIREMENTS = os.path.join(HERE, "requirements.txt")
REPO = os.path.dirname(os.path.dirname(HERE))


def ensure_venv():
    """Re-executes this script inside scripts/hf-fixtures/.venv, creating and filling it when needed."""
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(VENV_PY):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    probe = "import numpy, safetensors, torch, transformers"
    if subprocess.call([VENV_PY, "-c", probe], stderr=subprocess.DEVNULL) != 0:
        subprocess.check_call([VENV_PY, "-m", "pip", "install", "--quiet", "-r", REQUIREMENTS])
    env = dict(os.environ)
    env.setdefault("HF_HUB_OFFLINE", "1")  # nothing is ever fetched from a hub
    env.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    os.execve(VENV_PY, [VENV_PY, os.path.abspath(__file__)] + sys.argv[1:], env)


ensure_venv()

import argparse  # noqa: E402
import glob  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import shutil  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import (  # noqa: E402
    AutoModel,
    BloomConfig,
    GPT2Config,
    GPTNeoXConfig,
    LlamaConfig,
    MistralConfig,
    Qwen2Config,
)

torch.set_num_threads(2)
VOCAB = 512
MAX_POS = 64
DTYPES = {"F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16, "F64": torch.float64}

# Every case: a config built here, the dtype the checkpoint is stored in, the sequence length used,
# a seed, and optionally a max_shard_size for save_pretrained.
CASES = [
    dict(
        name="gpt2",
        what="GPT-2: Conv1D fused c_attn [in, out] with columns [q | k | v], learned positions wpe, "
        "pre-LayerNorm, gelu_new, biases everywhere, ln_f",
        config=lambda: GPT2Config(vocab_size=VOCAB, n_positions=MAX_POS, n_embd=32, n_layer=2, n_head=4,
                                  n_inner=64, activation_function="gelu_new", bos_token_id=None,
                                  eos_token_id=None),
        stored="F32", n=10, seed=1,
    ),
    dict(
        name="gpt2-sharded",
        what="GPT-2 as above, saved with a small max_shard_size: several model-0000X-of-0000Y.safetensors "
        "plus model.safetensors.index.json",
        config=lambda: GPT2Config(vocab_size=VOCAB, n_positions=MAX_POS, n_embd=32, n_layer=2, n_head=4,
                                  n_inner=64, activation_function="gelu_new", bos_token_id=None,
                                  eos_token_id=None),
        stored="F32", n=10, seed=2, max_shard_size="40KB",
    ),
    dict(
        name="llama",
        what="Llama: GQA (4 query heads, 2 kv heads), RMSNorm, gated SiLU MLP, RoPE rotate_half style, "
        "no biases, stored BF16",
        config=lambda: LlamaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2,
                                   max_position_embeddings=MAX_POS, rope_theta=10000.0, rms_norm_eps=1e-6,
                                   tie_word_embeddings=False),
        stored="BF16", n=10, seed=3,
    ),
    dict(
        name="llama3-scaled",
        what="Llama with rope_type llama3 (factor 8, low_freq_factor 1, high_freq_factor 4, "
        "original_max_position_embeddings 16): some frequencies kept, some divided by 8, one smoothed",
        config=lambda: LlamaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2,
                                   max_position_embeddings=MAX_POS, rms_norm_eps=1e-6,
                                   rope_parameters={"rope_type": "llama3", "rope_theta": 10000.0, "factor": 8.0,
                                                    "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                                    "original_max_position_embeddings": 16}),
        stored="BF16", n=10, seed=4,
    ),
    dict(
        name="llama-linear",
        what="Llama with rope_type linear, factor 2 (every inverse frequency divided by 2)",
        config=lambda: LlamaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2,
                                   max_position_embeddings=MAX_POS, rms_norm_eps=1e-6,
                                   rope_parameters={"rope_type": "linear", "rope_theta": 10000.0, "factor": 2.0}),
        stored="BF16", n=10, seed=5,
    ),
    dict(
        name="mistral",
        what="Mistral: Llama layout plus sliding_window 4 (bites at n=12), GQA 4/2, stored F32",
        config=lambda: MistralConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                                     max_position_embeddings=MAX_POS, rope_theta=10000.0, sliding_window=4,
                                     rms_norm_eps=1e-6),
        stored="F32", n=12, seed=6,
    ),
    dict(
        name="qwen2",
        what="Qwen2: Llama layout with q/k/v biases (no o_proj bias), GQA 4/2, rope_theta 1e6, stored F16",
        config=lambda: Qwen2Config(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2,
                                   max_position_embeddings=MAX_POS, rope_theta=1000000.0, rms_norm_eps=1e-6,
                                   use_sliding_window=False, tie_word_embeddings=False),
        stored="F16", n=10, seed=7,
    ),
    dict(
        name="gpt_neox",
        what="GPT-NeoX: fused query_key_value rows [heads, 3, head_dim], partial rotary (rotary_pct 0.5: "
        "first 4 of 8 dims per head), use_parallel_residual true, exact-erf gelu, stored F32",
        config=lambda: GPTNeoXConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, max_position_embeddings=MAX_POS, rotary_pct=0.5,
                                     rotary_emb_base=10000, use_parallel_residual=True, hidden_act="gelu",
                                     tie_word_embeddings=False),
        stored="F32", n=10, seed=8,
    ),
    dict(
        name="gpt_neox-serial",
        what="GPT-NeoX as above with use_parallel_residual false (attention residual, then MLP on it)",
        config=lambda: GPTNeoXConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, max_position_embeddings=MAX_POS, rotary_pct=0.5,
                                     rotary_emb_base=10000, use_parallel_residual=False, hidden_act="gelu",
                                     tie_word_embeddings=False),
        stored="F32", n=10, seed=9,
    ),
    dict(
        name="bloom",
        what="BLOOM: ALiBi with 6 heads (not a power of two), fused query_key_value rows [heads, 3, head_dim], "
        "word_embeddings_layernorm, bloom gelu (tanh), stored F64",
        config=lambda: BloomConfig(vocab_size=VOCAB, hidden_size=48, n_layer=2, n_head=6),
        stored="F64", n=10, seed=10,
    ),
]


# ---------------------------------------------------------------------------------------------
# Weight redraw
# ---------------------------------------------------------------------------------------------

EMBEDDING_NAMES = ("wte.weight", "embed_tokens.weight", "embed_in.weight", "word_embeddings.weight")
NORM_HINTS = ("ln_", "norm", "layernorm")


def qk_mask(name, param, model):
    """Boolean mask (same shape as param) selecting the query/key part of a projection, or None."""
    cfg = model.config
    if name.endswith(("q_proj.weight", "k_proj.weight", "q_proj.bias", "k_proj.bias")):
        return torch.ones_like(param, dtype=torch.bool)
    if name.endswith(("v_proj.weight", "v_proj.bias")):
        return torch.zeros_like(param, dtype=torch.bool)
    if "c_attn" in name:  # GPT-2 Conv1D: weight [in, 3*hidden] (columns q | k | v), bias [3*hidden]
        hidden = cfg.hidden_size
        mask = torch.zeros_like(param, dtype=torch.bool)
        mask[..., : 2 * hidden] = True
        return mask
    if "query_key_value" in name:  # NeoX / BLOOM nn.Linear: rows [heads, 3, head_dim]
        heads = cfg.num_attention_heads
        rows = param.shape[0]
        head_dim = rows // (3 * heads)
        which = torch.arange(rows).reshape(heads, 3, head_dim)[:, :2, :].reshape(-1)
        mask = torch.zeros_like(param, dtype=torch.bool)
        mask[which] = True
        return mask
    return None


def redraw(model, seed, qk_gain):
    """Redraws every parameter so that attention is clearly non-uniform and norms matter.

    - embeddings (token, position): N(0, 1) (GPT-2's wpe N(0, 0.5))
    - query/key weights: N(0, (qk_gain / sqrt(fan_in))^2)  -> logit std of about qk_gain^2
    - every other matrix: N(0, 1 / fan_in)
    - query/key biases N(0, 0.5^2), other biases N(0, 0.2^2)
    - norm weights 1 + N(0, 0.2^2), norm biases N(0, 0.1^2)
    """
    gen = torch.Generator().manual_seed(1000 + seed)
    is_conv1d = model.config.model_type == "gpt2"
    with torch.no_grad():
        for name, p in model.named_parameters():
            def normal(std):
                return torch.randn(p.shape, generator=gen, dtype=torch.float64) * std

            if name.endswith(EMBEDDING_NAMES):
                new = normal(1.0)
            elif name.endswith("wpe.weight"):
                new = normal(0.5)
            elif any(h in name.split(".")[-2] for h in NORM_HINTS) and p.dim() == 1:
                new = 1.0 + normal(0.2) if name.endswith("weight") else normal(0.1)
            elif p.dim() == 2:
                fan_in = p.shape[0] if is_conv1d else p.shape[1]
                new = normal(1.0 / math.sqrt(fan_in))
                mask = qk_mask(name, p, model)
                if mask is not None:
                    new = torch.where(mask, new * qk_gain, new)
            elif p.dim() == 1:  # biases
                new = normal(0.2)
                mask = qk_mask(name, p, model)
                if mask is not None:
                    new = torch.where(mask, new * 2.5, new)
            else:
                raise RuntimeError(f"unexpected parameter {name} {tuple(p.shape)}")
            p.copy_(new.to(p.dtype))


# ---------------------------------------------------------------------------------------------
# Fixture generation
# ---------------------------------------------------------------------------------------------


def nested(t):
    """Tensor -> nested lists of Python floats (repr: shortest round-trip, i.e. full precision)."""
    return t.detach().to(torch.float64).cpu().numpy().tolist()


def run(path, dtype, ids):
    model = AutoModel.from_pretrained(path, dtype=dtype, attn_implementation="eager")
    model = model.to(dtype).eval()
    for p in model.parameters():
        assert p.dtype == dtype, (p.dtype, dtype)
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), output_attentions=True, use_cache=False)
    att = torch.stack([a[0] for a in out.attentions])  # [layer, head, q, k]
    assert att.dtype == dtype, att.dtype
    return att, out.last_hidden_state[0]


def stats(att):
    """Mean over layers, heads and rows of the row's max probability; same for a uniform row."""
    allowed = att > 0
    mean_max = att.max(dim=-1).values.mean().item()
    uniform = (1.0 / allowed.sum(dim=-1).to(torch.float64)).mean().item()
    return mean_max, uniform


def window_semantics(att):
    """For each (q, k) with k <= q: which ones carry weight (exact zeros are masked)."""
    n = att.shape[-1]
    seen = (att > 0).any(dim=0).any(dim=0)  # [q, k] over layers and heads
    widths = {int(seen[q].sum().item()) for q in range(n)}
    lowest = [int(torch.nonzero(seen[q])[0].item()) for q in range(n)]
    return seen, widths, lowest


def make_case(case, out_root, qk_gain):
    name = case["name"]
    out = os.path.join(out_root, name)
    if os.path.isdir(out):
        shutil.rmtree(out)
    torch.manual_seed(case["seed"])
    config = case["config"]()
    model = AutoModel.from_config(config, attn_implementation="eager").to(torch.float64)
    redraw(model, case["seed"], qk_gain)
    stored = DTYPES[case["stored"]]
    model = model.to(stored)
    save_kwargs = {}
    if "max_shard_size" in case:
        save_kwargs["max_shard_size"] = case["max_shard_size"]
    model.save_pretrained(out, **save_kwargs)
    del model

    gen = torch.Generator().manual_seed(case["seed"])
    ids = torch.randint(0, VOCAB, (case["n"],), generator=gen).tolist()
    att32, _ = run(out, torch.float32, ids)
    att64, hidden64 = run(out, torch.float64, ids)

    expected = {
        "case": name,
        "token_ids": ids,
        "attentions_float32": nested(att32),
        "attentions_float64": nested(att64),
        "last_hidden_state_float64": nested(hidden64),
        "transformers_version": transformers.__version__,
        "torch_version": torch.__version__,
        "dtype_stored": case["stored"],
    }
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, separators=(",", ":"))
        f.write("\n")

    # Checks and the report line.
    stored_files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(out, "*.safetensors")))
    with open(os.path.join(out, "config.json")) as f:
        saved_cfg = json.load(f)
    diff = (att32.to(torch.float64) - att64).abs().max().item()
    mean_max, uniform = stats(att64)
    size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
    line = (f"{name:16s} stored {case['stored']:4s} n={case['n']:2d} mean max prob {mean_max:.3f} "
            f"(uniform {uniform:.3f})  |f32-f64| {diff:.1e}  {size / 1024:.0f} KB  "
            f"files {stored_files} dtype in config: {saved_cfg.get('dtype', saved_cfg.get('torch_dtype'))}")
    print(line, flush=True)
    if mean_max < uniform + 0.25:
        raise SystemExit(f"{name}: attention is too close to uniform ({mean_max:.3f} vs {uniform:.3f})")
    if saved_cfg.get("sliding_window"):
        window = saved_cfg["sliding_window"]
        seen, widths, lowest = window_semantics(att64)
        print(f"    sliding_window={window}: keys seen per query {sorted(widths)}, "
              f"first key seen per query {lowest}")
        # What the fixtures document: query q sees keys max(0, q - W + 1) .. q (W keys, itself included).
        if lowest != [max(0, q - window + 1) for q in range(case["n"])] or case["n"] <= window:
            raise SystemExit(f"{name}: unexpected sliding-window semantics")
    return dict(name=name, mean_max=mean_max, uniform=uniform, size=size, f32_f64=diff)


def make_gpt2_small(outdir):
    torch.manual_seed(0)
    config = GPT2Config()
    model = AutoModel.from_config(config, attn_implementation="eager").to(torch.float32)
    redraw(model, 0, qk_gain=1.5)
    model.save_pretrained(outdir)
    params = sum(p.numel() for p in model.parameters())
    size = sum(os.path.getsize(os.path.join(outdir, f)) for f in os.listdir(outdir))
    print(f"GPT-2 small shaped checkpoint: {params} parameters, {size / 2**20:.1f} MiB in {outdir}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "hf"))
    ap.add_argument("--only", nargs="*", help="case names (default: all)")
    ap.add_argument("--qk-gain", type=float, default=1.5,
                    help="query/key weights are drawn with std qk_gain/sqrt(fan_in) (default 1.5)")
    ap.add_argument("--gpt2-small", metavar="OUTDIR", help="write a GPT-2-small shaped checkpoint and stop")
    args = ap.parse_args()
    print(f"transformers {transformers.__version__}, torch {torch.__version__}", flush=True)
    if args.gpt2_small:
        make_gpt2_small(args.gpt2_small)
        return
    os.makedirs(args.out, exist_ok=True)
    for case in CASES:
        if args.only and case["name"] not in args.only:
            continue
        make_case(case, args.out, args.qk_gain)
    sys.path.insert(0, HERE)
    import numpy_reference  # independent float64 NumPy re-implementation of the conventions in README
    numpy_reference.check(args.out)


if __name__ == "__main__":
    main()
