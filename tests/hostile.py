"""Seeded damage for the hostile-file tests of the readers (checkpoints, saved datasets, TFRecord files)."""

KINDS = ("flip", "byte", "cut", "junk")


def damage(raw: bytes, rng, junk: int = 12) -> tuple[bytes, str, int]:
    """``(damaged bytes, kind, position)``: one bit flipped, one byte overwritten, the file cut short, or
    ``junk`` random bytes written over it, at a random position."""
    out = bytearray(raw)
    kind = rng.choice(KINDS)
    pos = rng.randrange(max(1, len(out)))
    if kind == "flip" and out:
        out[pos] ^= 1 << rng.randrange(8)
    elif kind == "byte" and out:
        out[pos] = rng.randrange(256)
    elif kind == "cut":
        out = out[:pos]
    else:
        out[pos:pos + junk] = bytes(rng.randrange(256) for _ in range(junk))
    return bytes(out), kind, pos
