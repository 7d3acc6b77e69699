"""Every tensor op's forward and pullback against PyTorch autograd in float64.

Runs tensor_ops_dump (the C++ cases of op_cases.cpp: random shapes, broadcasting, strided
views), recomputes each op from the same float32 inputs in float64 with torch, and back-propagates
the same d_result. Both must agree to a relative 2-norm error of 1e-5 (float32 rounding through a
few operations is ~1e-7; a wrong formula, index or broadcast is off by O(1)).
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pytorch"))
import harness  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

TOLERANCE = 1e-5


def causal_attention(qkv, n_head):
    B, T, C3 = qkv.shape
    C = C3 // 3
    q, k, v = (t.view(B, T, n_head, C // n_head).transpose(1, 2) for t in qkv.split(C, dim=2))
    att = (q @ k.transpose(-2, -1)) / (C // n_head) ** 0.5
    att = att.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
    return (att @ v).transpose(1, 2).reshape(B, T, C)


def grouped_attention(qkv, n_head, n_kv_head):
    B, T, _, hs = qkv.shape
    q, k, v = qkv.split([n_head, n_kv_head, n_kv_head], dim=2)
    k, v = (t.repeat_interleave(n_head // n_kv_head, dim=2) for t in (k, v))
    q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    att = (q @ k.transpose(-2, -1)) / hs**0.5
    att = att.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
    return (att @ v).transpose(1, 2).reshape(B, T, n_head * hs)


def rotary(x, cos, sin, rotated_heads):
    """Meta's pairing: channels (2i, 2i+1) of the first rotated_heads heads rotated by cos, sin [t, i]."""
    T = x.shape[1]
    c, s = cos[:T, None, :], sin[:T, None, :]
    head = x[:, :, :rotated_heads]
    even, odd = head[..., 0::2], head[..., 1::2]
    rotated = torch.stack((even * c - odd * s, even * s + odd * c), dim=-1).flatten(-2)
    return torch.cat((rotated, x[:, :, rotated_heads:]), dim=2)


def constant_table(T, half):
    angles = torch.outer(torch.arange(1, T + 1), torch.arange(1, half + 1)).to(torch.float32) * 0.3
    return angles.cos().double(), angles.sin().double()


def cross_entropy(logits, ints):
    V, targets = ints[0], torch.tensor(ints[1:])
    return F.cross_entropy(logits[..., :V].reshape(-1, V), targets)


def embedding(table, ints):
    B, T = ints[0], ints[1]
    return F.embedding(torch.tensor(ints[2:]).view(B, T), table)


OPS = {
    "add": lambda x, i: x[0] + x[1],
    "sub": lambda x, i: x[0] - x[1],
    "mul": lambda x, i: x[0] * x[1],
    "div": lambda x, i: x[0] / x[1],
    "neg": lambda x, i: -x[0],
    "matmul": lambda x, i: x[0] @ x[1],
    "linear": lambda x, i: F.linear(x[0], x[1], x[2] if i[0] else None),
    "sum": lambda x, i: x[0].sum(),
    "mean": lambda x, i: x[0].mean(),
    "sum_dim": lambda x, i: x[0].sum(i[0]),
    "mean_dim": lambda x, i: x[0].mean(i[0]),
    "embedding": lambda x, i: embedding(x[0], i),
    "layernorm": lambda x, i: F.layer_norm(x[0], (x[0].shape[-1],), x[1], x[2], eps=1e-5),
    "softmax": lambda x, i: x[0].softmax(-1),
    "gelu": lambda x, i: F.gelu(x[0], approximate="tanh"),
    "causal_attention": lambda x, i: causal_attention(x[0], i[0]),
    "rmsnorm": lambda x, i: x[0] * (x[0].pow(2).mean(-1, keepdim=True) + 1e-5).rsqrt() * x[1],
    "rotary": lambda x, i: rotary(x[0], x[1], x[2], i[0]),
    "rotary_constant_table": lambda x, i: rotary(x[0], *constant_table(x[0].shape[1], x[0].shape[3] // 2), i[0]),
    "swiglu": lambda x, i: F.silu(x[0]) * x[1],
    "grouped_attention": lambda x, i: grouped_attention(x[0], i[0], i[1]),
    "cross_entropy": lambda x, i: cross_entropy(x[0], i),
    "view": lambda x, i: x[0].view(*i),
    "reshape": lambda x, i: x[0].reshape(*i),
    "transpose": lambda x, i: x[0].transpose(*i),
    "slice": lambda x, i: x[0].narrow(i[0], i[1], i[2] - i[1]),
    "contiguous": lambda x, i: x[0].contiguous(),
}


def tensor(entry, grad=False):
    return torch.tensor(entry["values"], dtype=torch.float64).view(entry["shape"]).requires_grad_(grad)


def relative_error(ours, reference):
    return ((ours - reference).norm() / max(reference.norm().item(), 1e-30)).item()


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} PATH/TO/tensor_ops_dump")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.json"
        subprocess.run([sys.argv[1], str(path)], check=True)
        cases = json.loads(path.read_text())
    assert len(cases) > 0 and set(c["op"] for c in cases) == set(OPS), "cases missing ops"
    failures = []
    for n, case in enumerate(cases):
        inputs = [tensor(x, grad=True) for x in case["inputs"]]
        out = OPS[case["op"]](inputs, case["ints"])
        shapes = " ".join(str(tuple(x["shape"])) for x in case["inputs"])
        checks = [("forward", tensor(case["output"]).reshape(out.shape), out.detach())]
        out.backward(tensor(case["d_result"]).reshape(out.shape))
        for k, x in enumerate(inputs):
            reference = x.grad if x.grad is not None else torch.zeros_like(x)
            checks.append((f"grad {k}", tensor(case["grads"][k]), reference))
        errors = {what: relative_error(ours, reference) for what, ours, reference in checks}
        for what, err in errors.items():
            status = "ok" if err < TOLERANCE else "FAIL"
            print(f"{n:3} {case['op']:17} {shapes:40} {what:8} rel.err {err:.2e} {status}")
        failures += harness.out_of_tolerance(f"{case['op']} {shapes}", errors, lambda what: TOLERANCE)
    if not failures:
        print(f"all {len(cases)} cases agree with PyTorch to {TOLERANCE}")
    return harness.exit_status(failures)


if __name__ == "__main__":
    sys.exit(main())
