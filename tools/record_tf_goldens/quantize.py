"""Record real TF's quantize / dequantize / quantized_concat and quantized / float8 casts into
tests/goldens/quantize.json (cases: tests/ops/quantize_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/quantize.py

TF's reference CPU kernels are recorded (oneDNN off): with oneDNN on, x86 builds route Quantize/Dequantize of
8-bit types to MKL kernels that ignore round_mode="HALF_TO_EVEN", skip the bfloat16 mode check and have no
qint16/qint32 Dequantize (NotFoundError).
"""

import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # before tensorflow is imported
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/ops/quantize_cases.py", "quantize.json")
