"""Writes the fuzzers' seed corpus (tests/fuzz/corpus/<loader>/): small valid files of each format
and a few near misses. Run from anywhere: python3 tests/fuzz/make_corpus.py"""
import json
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent / "corpus"


def model_header(magic, version, maxT, V, L, NH, C, Vp):
    return struct.pack("<256i", magic, version, maxT, V, L, NH, C, Vp, *([0] * 248))


def parameter_count(maxT, V, L, NH, C, Vp):
    return Vp * C + maxT * C + L * (12 * C * C + 13 * C) + 2 * C


def floats(n, scale=0.01):
    return struct.pack(f"<{n}f", *[scale * ((i * 7919) % 101 - 50) for i in range(n)])


def gpt2_byte_alphabet():
    """GPT-2's byte -> printable character map (encoder.json spells token bytes with it)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


def write(loader, name, data):
    folder = HERE / loader
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def main():
    for shape in [(2, 3, 1, 1, 4, 4), (4, 5, 2, 2, 4, 8)]:
        n = parameter_count(*shape)
        name = "L{}_C{}".format(shape[2], shape[4])
        model = model_header(20240326, 3, *shape) + floats(n)
        write("model_file", name + ".bin", model)
        write("model_file", name + "_truncated.bin", model[:-8])
        progress = struct.pack("<qQQiiq", 3, 2, 12345, 1, 2, 1)
        header = bytearray(model_header(20261122, 1, *shape))
        header[32:32 + len(progress)] = progress
        write("state_file", name + ".bin", bytes(header) + floats(n) + floats(n, 0.001) + floats(n, 0.0001))
    tokens = [0, 5, 50256, 7, 65535, 3, 3, 2]
    write("token_file", "eight.bin", struct.pack("<256i", 20240520, 1, len(tokens), *([0] * 253)) +
          struct.pack(f"<{len(tokens)}H", *tokens))
    write("token_file", "empty.bin", struct.pack("<256i", 20240520, 1, 0, *([0] * 253)))
    alphabet = gpt2_byte_alphabet()
    encoder = {alphabet[b]: b for b in range(256)}
    merges = [("Ġ", "t"), ("h", "e"), ("Ġt", "he")]
    for left, right in merges:
        encoder[left + right] = len(encoder)
    vocab = "#version: 0.2\n" + "".join(f"{left} {right}\n" for left, right in merges)
    write("tokenizer_files", "three_merges", json.dumps(encoder).encode() + b"\0" + vocab.encode())


if __name__ == "__main__":
    main()
