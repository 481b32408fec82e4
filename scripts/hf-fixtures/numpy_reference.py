#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Independent float64 NumPy re-implementation of the six architectures, from config.json and the
safetensors files alone, checked against the fixtures' expected.json (attentions_float64 and
last_hidden_state_float64). It is the executable form of tests/fixtures/hf/README.md: what a C++
loader must do. Run by make_checkpoint_fixtures.py after generating; also on its own:

    scripts/hf-fixtures/.venv/bin/python scripts/hf-fixtures/numpy_reference.py [tests/fixtures/hf]

Two RoPE variants are reported: rope angles computed in float64 throughout ("f64 rope"), and the
way transformers does it (inv_freq, position * inv_freq, cos and sin in float32, then widened:
"f32 rope").
"""
import glob
import json
import math
import os
import sys

import numpy as np
from safetensors.numpy import load_file


def load_weights(case_dir):
    """name -> float64 array, from model.safetensors or the shards listed in the index."""
    index = os.path.join(case_dir, "model.safetensors.index.json")
    if os.path.exists(index):
        with open(index) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    weights = {}
    for name in files:
        path = os.path.join(case_dir, name)
        try:
            tensors = load_file(path)
        except TypeError:  # numpy has no bfloat16: go through torch for that one
            from safetensors.torch import load_file as load_torch
            import torch
            tensors = {k: v.to(torch.float64).numpy() for k, v in load_torch(path).items()}
        for k, v in tensors.items():
            weights[k] = v.astype(np.float64)
    return weights


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def rms_norm(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def gelu_tanh(x, c=math.sqrt(2.0 / math.pi)):
    return 0.5 * x * (1.0 + np.tanh(c * (x + 0.044715 * x ** 3)))


def gelu_erf(x):
    from math import erf
    return 0.5 * x * (1.0 + np.vectorize(erf)(x / math.sqrt(2.0)))


def silu(x):
    return x / (1.0 + np.exp(-x))


def softmax_rows(s):
    s = s - s.max(-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(-1, keepdims=True)


def inv_freq(rope, dim, f32):
    """transformers.modeling_rope_utils: default, linear, llama3."""
    dt = np.float32 if f32 else np.float64
    base = dt(rope["rope_theta"])
    inv = dt(1.0) / (base ** (np.arange(0, dim, 2).astype(dt) / dt(dim)))
    kind = rope.get("rope_type", "default")
    if kind == "linear":
        inv = inv / dt(rope["factor"])
    elif kind == "llama3":
        factor, lo, hi = rope["factor"], rope["low_freq_factor"], rope["high_freq_factor"]
        old = rope["original_max_position_embeddings"]
        lo_wl, hi_wl = old / lo, old / hi
        wavelen = 2 * math.pi / inv
        scaled = np.where(wavelen > lo_wl, inv / dt(factor), inv)
        smooth = (old / wavelen - lo) / (hi - lo)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wavelen < hi_wl) & ~(wavelen > lo_wl)
        inv = np.where(medium, smoothed, scaled).astype(dt)
    elif kind != "default":
        raise ValueError(kind)
    return inv


def rope_cos_sin(rope, dim, n, f32):
    inv = inv_freq(rope, dim, f32)
    pos = np.arange(n).astype(inv.dtype)
    freqs = pos[:, None] * inv[None, :]
    emb = np.concatenate([freqs, freqs], -1)  # [n, dim]: angle of pair (i, i + dim/2) is freqs[i]
    return np.cos(emb).astype(np.float64), np.sin(emb).astype(np.float64)


def apply_rope(x, cos, sin):
    """x [heads, n, d]; rotates the first cos.shape[-1] dims (rotate_half), passes the rest."""
    r = cos.shape[-1]
    xr, xp = x[..., :r], x[..., r:]
    rot = np.concatenate([-xr[..., r // 2:], xr[..., : r // 2]], -1)
    return np.concatenate([xr * cos + rot * sin, xp], -1)


def attention(q, k, v, scale, allowed, bias=None):
    """q [H, n, d], k/v [H, n, d] (already repeated for GQA); allowed [n, n] bool."""
    s = np.einsum("hqd,hkd->hqk", q, k) * scale
    if bias is not None:
        s = s + bias
    s = np.where(allowed[None], s, -np.inf)
    p = softmax_rows(s)
    return p, np.einsum("hqk,hkd->hqd", p, v)


def causal(n, window=None):
    qi, ki = np.arange(n)[:, None], np.arange(n)[None, :]
    ok = ki <= qi
    if window:
        ok &= ki > qi - window  # transformers.masking_utils.sliding_window_overlay
    return ok


def split_heads(x, heads):  # [n, heads*d] -> [heads, n, d]
    n = x.shape[0]
    return x.reshape(n, heads, -1).transpose(1, 0, 2)


def merge_heads(x):  # [heads, n, d] -> [n, heads*d]
    return x.transpose(1, 0, 2).reshape(x.shape[1], -1)


def lin(x, W, name):  # nn.Linear: weight [out, in], optional bias
    y = x @ W[name + ".weight"].T
    return y + W[name + ".bias"] if name + ".bias" in W else y


def conv1d(x, W, name):  # GPT-2 Conv1D: weight [in, out]
    return x @ W[name + ".weight"] + W[name + ".bias"]


def forward(cfg, W, ids, f32_rope):
    mt = cfg["model_type"]
    n = len(ids)
    atts = []
    if mt == "gpt2":
        H, eps = cfg["n_head"], cfg["layer_norm_epsilon"]
        x = W["wte.weight"][ids] + W["wpe.weight"][np.arange(n)]
        for l in range(cfg["n_layer"]):
            p = f"h.{l}."
            h = layer_norm(x, W[p + "ln_1.weight"], W[p + "ln_1.bias"], eps)
            qkv = conv1d(h, W, p + "attn.c_attn")
            q, k, v = (split_heads(t, H) for t in np.split(qkv, 3, axis=-1))
            a, o = attention(q, k, v, q.shape[-1] ** -0.5, causal(n))
            atts.append(a)
            x = x + conv1d(merge_heads(o), W, p + "attn.c_proj")
            h = layer_norm(x, W[p + "ln_2.weight"], W[p + "ln_2.bias"], eps)
            x = x + conv1d(gelu_tanh(conv1d(h, W, p + "mlp.c_fc")), W, p + "mlp.c_proj")
        return atts, layer_norm(x, W["ln_f.weight"], W["ln_f.bias"], eps)
    if mt in ("llama", "mistral", "qwen2"):
        H, KV, eps = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["rms_norm_eps"]
        d = cfg.get("head_dim") or cfg["hidden_size"] // H
        window = cfg.get("sliding_window") if mt == "mistral" else None
        cos, sin = rope_cos_sin(cfg["rope_parameters"], d, n, f32_rope)
        x = W["embed_tokens.weight"][ids]
        for l in range(cfg["num_hidden_layers"]):
            p = f"layers.{l}."
            h = rms_norm(x, W[p + "input_layernorm.weight"], eps)
            q = apply_rope(split_heads(lin(h, W, p + "self_attn.q_proj"), H), cos, sin)
            k = apply_rope(split_heads(lin(h, W, p + "self_attn.k_proj"), KV), cos, sin)
            v = split_heads(lin(h, W, p + "self_attn.v_proj"), KV)
            k, v = np.repeat(k, H // KV, axis=0), np.repeat(v, H // KV, axis=0)  # head h uses kv h // (H/KV)
            a, o = attention(q, k, v, d ** -0.5, causal(n, window))
            atts.append(a)
            x = x + lin(merge_heads(o), W, p + "self_attn.o_proj")
            h = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
            g = silu(lin(h, W, p + "mlp.gate_proj")) * lin(h, W, p + "mlp.up_proj")
            x = x + lin(g, W, p + "mlp.down_proj")
        return atts, rms_norm(x, W["norm.weight"], eps)
    if mt == "gpt_neox":
        H, eps = cfg["num_attention_heads"], cfg["layer_norm_eps"]
        d = cfg["hidden_size"] // H
        rope = cfg["rope_parameters"]
        rot = int(d * rope.get("partial_rotary_factor", 1.0))
        cos, sin = rope_cos_sin(rope, rot, n, f32_rope)
        act = {"gelu": gelu_erf, "gelu_new": gelu_tanh}[cfg["hidden_act"]]
        x = W["embed_in.weight"][ids]
        for l in range(cfg["num_hidden_layers"]):
            p = f"layers.{l}."
            h = layer_norm(x, W[p + "input_layernorm.weight"], W[p + "input_layernorm.bias"], eps)
            qkv = lin(h, W, p + "attention.query_key_value").reshape(n, H, 3, d).transpose(2, 1, 0, 3)
            q, k, v = apply_rope(qkv[0], cos, sin), apply_rope(qkv[1], cos, sin), qkv[2]
            a, o = attention(q, k, v, d ** -0.5, causal(n))
            atts.append(a)
            attn_out = lin(merge_heads(o), W, p + "attention.dense")

            def mlp(y):
                y = layer_norm(y, W[p + "post_attention_layernorm.weight"], W[p + "post_attention_layernorm.bias"], eps)
                return lin(act(lin(y, W, p + "mlp.dense_h_to_4h")), W, p + "mlp.dense_4h_to_h")
            if cfg["use_parallel_residual"]:
                x = x + attn_out + mlp(x)
            else:
                x = x + attn_out
                x = x + mlp(x)
        return atts, layer_norm(x, W["final_layer_norm.weight"], W["final_layer_norm.bias"], eps)
    if mt == "bloom":
        H, eps = cfg["n_head"], cfg["layer_norm_epsilon"]
        d = cfg["hidden_size"] // H
        c = 2 ** math.floor(math.log2(H))
        slopes = [(2 ** (-(2 ** -(math.log2(c) - 3)))) ** i for i in range(1, c + 1)]
        extra = 2 ** (-(2 ** -(math.log2(2 * c) - 3)))
        slopes += [extra ** i for i in range(1, 2 * min(c, H - c), 2)]
        slopes = np.array(slopes, dtype=np.float32).astype(np.float64)  # transformers: float32
        bias = slopes[:, None, None] * np.arange(n)[None, None, :]  # slope_h * key_index
        x = layer_norm(W["word_embeddings.weight"][ids], W["word_embeddings_layernorm.weight"],
                       W["word_embeddings_layernorm.bias"], eps)
        for l in range(cfg["n_layer"]):
            p = f"h.{l}."
            h = layer_norm(x, W[p + "input_layernorm.weight"], W[p + "input_layernorm.bias"], eps)
            qkv = lin(h, W, p + "self_attention.query_key_value").reshape(n, H, 3, d).transpose(2, 1, 0, 3)
            a, o = attention(qkv[0], qkv[1], qkv[2], 1.0 / math.sqrt(d), causal(n), bias)
            atts.append(a)
            x = x + lin(merge_heads(o), W, p + "self_attention.dense")
            h = layer_norm(x, W[p + "post_attention_layernorm.weight"], W[p + "post_attention_layernorm.bias"], eps)
            x = x + lin(gelu_tanh(lin(h, W, p + "mlp.dense_h_to_4h"), c=0.79788456), W, p + "mlp.dense_4h_to_h")
        return atts, layer_norm(x, W["ln_f.weight"], W["ln_f.bias"], eps)
    raise ValueError(mt)


def check(root, tol=1e-5):
    worst = 0.0
    for case_dir in sorted(glob.glob(os.path.join(root, "*", "expected.json"))):
        case_dir = os.path.dirname(case_dir)
        with open(os.path.join(case_dir, "config.json")) as f:
            cfg = json.load(f)
        with open(os.path.join(case_dir, "expected.json")) as f:
            exp = json.load(f)
        W = load_weights(case_dir)
        ref64 = np.array(exp["attentions_float64"])
        ref32 = np.array(exp["attentions_float32"])
        hid = np.array(exp["last_hidden_state_float64"])
        parts = []
        for f32_rope in (False, True):
            atts, last = forward(cfg, W, exp["token_ids"], f32_rope)
            atts = np.stack(atts)
            d64 = np.abs(atts - ref64).max()
            d32 = np.abs(atts - ref32).max()
            dh = np.abs(last - hid).max() / max(1.0, np.abs(hid).max())
            parts.append(f"{'f32' if f32_rope else 'f64'} rope: att vs f64 {d64:.1e}, vs f32 {d32:.1e}, "
                         f"hidden rel {dh:.1e}")
            if f32_rope:
                worst = max(worst, d64, d32)
        print(f"  numpy check {os.path.basename(case_dir):16s} " + " | ".join(parts), flush=True)
    if worst > tol:
        raise SystemExit(f"numpy reference disagrees with transformers by {worst:.1e} > {tol}")
    print(f"  numpy reference agrees with every fixture within {worst:.1e} (tolerance {tol})")


if __name__ == "__main__":
    check(sys.argv[1] if len(sys.argv) > 1 else
          os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures", "hf"))
