#!/usr/bin/python3
"""The plan for scaling out (docs/distributed.md): tokens/s and efficiency of data-parallel training
on N nodes joined by a network, ZeRO-1 off and on, from what was measured on one machine.

Inputs (measured, as the programs print them):
  --bench FILE      `adjoint bench --model gpt2-124M -B 4 -T 64 --backward manual` output: its JSON line
                    gives one node's forward+backward ms and step ms (step - forward+backward = AdamW
                    and clipping), the parameter count and (B, T).
  --allreduce FILE  `mpirun -np 2 build/bin/allreduce_bench` output: the bus GB/s of MPI_Allreduce at
                    the pieces' size (--piece-floats), the rate at which a node's MPI moves and sums
                    gradient bytes by itself (loopback).
Assumed (flags): the link (100 Gb/s at 80%), 5 us a hop, the backward's share of forward+backward
(2/3), the share of the gradient in per-layer pieces (gpt2-124M: 0.683; the embeddings' pieces
complete only with the whole backward), and which collective ZeRO-1 sums with (--zero1-sum).

Model, per step and node: the gradient goes in pieces of --piece-floats (as Communicator::sum
sends it); a piece's allreduce takes 2 log2(N) hops of latency plus 2 (N-1)/N of its bytes at the
slower of the link and the loopback rate (recursive halving and doubling, what MPI libraries use at
this size); a reduce-scatter or an all-gather half of each. ZeRO-1 is a reduction (reduce-scatter,
or allreduce with --zero1-sum allreduce) plus an all-gather of the parameters per piece, and
divides AdamW's time and moments by N. "--overlap": the per-layer pieces' communication hides
behind the backward (up to the backward's time); the rest is exposed. Efficiency is one node's step
time (no communication) over the step time: per-node throughput against one node alone.

Usage: bench/distributed/scale_out.py --bench FILE --allreduce FILE [--nodes 8 64 512] [...]"""
import argparse
import json
import math
import sys


def bench_inputs(path, B, T):
    """forward+backward ms, step ms and parameters from adjoint bench's JSON line for (B, T)."""
    for line in open(path):
        if line.startswith("{"):
            row = json.loads(line)
            if row["B"] == B and row["T"] == T:
                return row["fwdbwd_ms"], row["step_ms"], row["parameters"]
    sys.exit(f"scale_out: error: {path} has no JSON line of adjoint bench for B={B} T={T}")


def loopback_gbps(path, piece_floats):
    """MPI_Allreduce's bus GB/s at piece_floats from allreduce_bench's table."""
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0] == str(piece_floats):
            return float(cells[3])
    sys.exit(f"scale_out: error: {path} has no allreduce_bench row for {piece_floats} floats")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", required=True)
    parser.add_argument("--allreduce", required=True)
    parser.add_argument("-B", type=int, default=4)
    parser.add_argument("-T", type=int, default=64)
    parser.add_argument("--nodes", type=int, nargs="+", default=[8, 64, 512])
    parser.add_argument("--piece-floats", type=int, default=1 << 19)
    parser.add_argument("--link-gbit", type=float, default=100.0)
    parser.add_argument("--link-efficiency", type=float, default=0.8)
    parser.add_argument("--hop-us", type=float, default=5.0)
    parser.add_argument("--backward-share", type=float, default=2 / 3)
    parser.add_argument("--layer-share", type=float, default=0.683)
    parser.add_argument("--zero1-sum", choices=("reduce-scatter", "allreduce"), default="reduce-scatter")
    a = parser.parse_args()

    fwdbwd_ms, step_ms, parameters = bench_inputs(a.bench, a.B, a.T)
    adamw_ms = step_ms - fwdbwd_ms
    loopback = loopback_gbps(a.allreduce, a.piece_floats)
    link = a.link_gbit / 8 * a.link_efficiency
    ms_per_byte = 1e3 / (min(link, loopback) * 1e9)
    pieces = math.ceil(parameters / a.piece_floats)
    piece_bytes = 4 * parameters / pieces
    print(f"inputs: forward+backward {fwdbwd_ms:.0f} ms and AdamW+clipping {adamw_ms:.0f} ms a step (one node, "
          f"gpt2 {parameters} parameters, B={a.B} T={a.T}); loopback allreduce {loopback:.2f} GB/s (bus) at "
          f"{a.piece_floats} floats; link {a.link_gbit:g} Gb/s x {a.link_efficiency:g} = {link:.1f} GB/s, "
          f"{a.hop_us:g} us a hop; {pieces} pieces; bytes at {min(link, loopback):.1f} GB/s "
          f"({'loopback' if loopback < link else 'link'}-bound); ZeRO-1 sums with {a.zero1_sum}")

    def collective_ms(nodes, share):
        """One collective over every piece that moves share x (N-1)/N of each piece's bytes in
        log2(N) x share hops (share 2: allreduce, 1: reduce-scatter or all-gather)."""
        hops = share * math.ceil(math.log2(nodes))
        return pieces * (hops * a.hop_us / 1e3 + share * (nodes - 1) / nodes * piece_bytes * ms_per_byte)

    one_node_ms = fwdbwd_ms + adamw_ms
    tokens = a.B * a.T
    print("| nodes | ZeRO-1 | comm ms/step | step ms | tokens/s | efficiency | step ms (--overlap) | tokens/s "
          "| efficiency | AdamW moments MB/node |")
    print("|--:|:--|--:|--:|--:|--:|--:|--:|--:|--:|")
    for nodes in a.nodes:
        for zero in (0, 1):
            if zero == 0:
                comm, compute, moments = collective_ms(nodes, 2), one_node_ms, 8 * parameters
            else:
                comm = collective_ms(nodes, 2 if a.zero1_sum == "allreduce" else 1) + collective_ms(nodes, 1)
                compute, moments = fwdbwd_ms + adamw_ms / nodes, 8 * math.ceil(parameters / nodes)
            # With --overlap the all-gather of ZeRO-1 still follows the update: only the sum hides.
            gather = collective_ms(nodes, 1) if zero == 1 else 0.0
            summing = comm - gather
            hidden = min(summing * a.layer_share, fwdbwd_ms * a.backward_share)
            row = [f"{nodes}", "on" if zero else "off", f"{comm:.0f}"]
            for step in (compute + comm, compute + comm - hidden):
                row += [f"{step:.0f}", f"{nodes * tokens / (step / 1e3):,.0f}", f"{one_node_ms / step:.2f}"]
            print("| " + " | ".join(row + [f"{moments / 1e6:.0f}"]) + " |")


if __name__ == "__main__":
    main()
